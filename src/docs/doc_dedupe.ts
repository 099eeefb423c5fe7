/**
 * Near-duplicate groups, computed on demand from the first embedded piece of
 * each latest text document (YAMS "semantic-dedupe-v1"): candidate pairs come
 * from sign-of-random-projection buckets (so the work stays near-linear), a
 * pair is accepted when its cosine reaches the threshold (0.975 when neither
 * names nor paths overlap), accepted pairs are joined into groups, and each
 * group names a canonical member to keep.
 *
 * @module
 */
import type { DocumentRow } from "../store/docs/documents.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import { vectorFromBytes } from "./embedder.ts";
import type { UnstoredDocument } from "./unstored_vectors.ts";

/** How the canonical member of a group is chosen. */
export type CanonicalStrategy = "keep-newest" | "keep-oldest" | "keep-largest";

/** One member of a group. */
export interface DuplicateMember {
  /** Document id. */
  document_id: number;
  /** `canonical` or `duplicate`. */
  role: "canonical" | "duplicate";
  /** `keep` for the canonical member, `review` for duplicates. */
  decision: "keep" | "review";
  /** Score of the pair it forms with the canonical member (duplicates only). */
  pair_score?: number;
  /** Content hash. */
  hash: string;
  /** Path. */
  path: string;
}

/** One group of near-duplicates. */
export interface DuplicateGroup {
  /** Stable key: strategy, threshold and member hashes. */
  group_key: string;
  /** Algorithm name. */
  algorithm_version: string;
  /** Always `suggested`: groups are advice, nothing is removed. */
  status: "suggested";
  /** Always `pending`. */
  review_state: "pending";
  /** The member to keep. */
  canonical_document_id: number;
  /** Members. */
  member_count: number;
  /** Best pair score in the group. */
  max_pair_score: number;
  /** Cosine threshold used. */
  threshold: number;
  /** Why: the accepted pairs, as JSON. */
  evidence_json: string;
  /** Members, canonical first. */
  members: DuplicateMember[];
}

/** A dedupe request. */
export interface DedupeRequest {
  /** Embedding model whose vectors are compared. */
  model: string;
  /** Least cosine for a pair (default 0.92). */
  threshold: number;
  /** Canonical choice. */
  strategy: CanonicalStrategy;
  /** Only the group with this key. */
  groupKey?: string;
  /** Only groups containing one of these documents. */
  documentIds?: readonly number[];
  /** Most groups. */
  limit: number;
  /** Vectors of documents that have none stored, computed for this call (see `unstored_vectors.ts`). */
  unstored?: readonly UnstoredDocument[];
}

/** Algorithm name reported with every group. */
export const DEDUPE_ALGORITHM = "semantic-dedupe-v1";

const TABLES = 8;
const BITS = 10;
const TAPS = 24;
const MAX_BUCKET = 400;

/**
 * Finds near-duplicate groups.
 *
 * @example
 * ```ts ignore
 * await duplicateGroups(store.docs, { model: "hashed-v1-384", threshold: 0.92, strategy: "keep-newest", limit: 25 });
 * ```
 */
export async function duplicateGroups(
  docs: DocsStore<StoreMode>,
  request: DedupeRequest,
): Promise<{
  total: number;
  groups: DuplicateGroup[];
}> {
  // Each document by its first piece, whether its vectors are stored or computed for this call.
  const first = new Map<number, Float32Array>();
  for (const s of await docs.firstVectors(request.model)) {
    first.set(s.document_id, vectorFromBytes(s.vector));
  }
  for (const doc of request.unstored ?? []) {
    if (doc.vectors.length > 0) first.set(doc.id, doc.vectors[0]);
  }
  const rows = new Map<number, DocumentRow>();
  for (const row of await docs.documentsByIds([...first.keys()])) {
    if (row.is_latest === 1) rows.set(row.id, row);
  }
  // In id order, as if every vector were stored: a full bucket keeps its first members.
  const items = [...first].filter(([id]) => rows.has(id)).map(([id, vector]) => ({ id, vector }))
    .sort((a, b) => a.id - b.id);
  if (items.length < 2) return { total: 0, groups: [] };
  const dimensions = items[0].vector.length;
  const projections = projectionTaps(dimensions);
  const pairs = new Map<string, { a: number; b: number; cos: number; score: number }>();
  for (let table = 0; table < TABLES; table++) {
    const buckets = new Map<number, number[]>();
    for (let i = 0; i < items.length; i++) {
      const signature = signatureOf(items[i].vector, projections[table]);
      let bucket = buckets.get(signature);
      if (bucket === undefined) buckets.set(signature, bucket = []);
      if (bucket.length < MAX_BUCKET) bucket.push(i);
    }
    for (const bucket of buckets.values()) {
      for (let x = 0; x < bucket.length; x++) {
        for (let y = x + 1; y < bucket.length; y++) {
          const left = items[bucket[x]];
          const right = items[bucket[y]];
          const key = left.id < right.id ? `${left.id}:${right.id}` : `${right.id}:${left.id}`;
          if (pairs.has(key)) continue;
          const cos = dot(left.vector, right.vector);
          if (cos < request.threshold) continue;
          const a = rows.get(left.id)!;
          const b = rows.get(right.id)!;
          const title = jaccard(nameTokens(a.name), nameTokens(b.name));
          const path = jaccard(pathTokens(a.path), pathTokens(b.path));
          if (title === 0 && path === 0 && cos < 0.975) continue;
          pairs.set(key, {
            a: Math.min(a.id, b.id),
            b: Math.max(a.id, b.id),
            cos,
            score: 0.8 * cos + 0.15 * title + 0.05 * path,
          });
        }
      }
    }
  }
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  for (const pair of pairs.values()) {
    const ra = find(pair.a);
    const rb = find(pair.b);
    if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb));
  }
  const members = new Map<number, number[]>();
  for (const id of parent.keys()) {
    const root = find(id);
    let list = members.get(root);
    if (list === undefined) members.set(root, list = []);
    if (!list.includes(id)) list.push(id);
  }
  const groups: DuplicateGroup[] = [];
  for (const ids of members.values()) {
    if (ids.length < 2) continue;
    const docs = ids.map((id) => rows.get(id)!).sort(canonicalOrder(request.strategy));
    const canonical = docs[0];
    const pairScore = (id: number): number | undefined => {
      const key = canonical.id < id ? `${canonical.id}:${id}` : `${id}:${canonical.id}`;
      return pairs.get(key)?.score;
    };
    const groupPairs = [...pairs.values()].filter((p) => ids.includes(p.a) && ids.includes(p.b));
    const hashes = docs.map((doc) => doc.hash.slice(0, 12)).sort();
    groups.push({
      group_key: `semantic:${request.strategy}:${request.threshold.toFixed(3)}:${hashes.join(",")}`,
      algorithm_version: DEDUPE_ALGORITHM,
      status: "suggested",
      review_state: "pending",
      canonical_document_id: canonical.id,
      member_count: docs.length,
      max_pair_score: round(Math.max(...groupPairs.map((p) => p.score))),
      threshold: request.threshold,
      evidence_json: JSON.stringify({
        pairs: groupPairs.map((p) => ({
          a: p.a,
          b: p.b,
          cosine: round(p.cos),
          score: round(p.score),
        })),
      }),
      members: docs.map((doc, index) => {
        const member: DuplicateMember = {
          document_id: doc.id,
          role: index === 0 ? "canonical" : "duplicate",
          decision: index === 0 ? "keep" : "review",
          hash: doc.hash,
          path: doc.path,
        };
        const score = index === 0 ? undefined : pairScore(doc.id);
        if (score !== undefined) member.pair_score = round(score);
        return member;
      }),
    });
  }
  let selected = groups.sort((a, b) =>
    b.max_pair_score - a.max_pair_score || a.group_key.localeCompare(b.group_key)
  );
  if (request.groupKey !== undefined) {
    selected = selected.filter((g) => g.group_key === request.groupKey);
  }
  if (request.documentIds !== undefined && request.documentIds.length > 0) {
    const wanted = new Set(request.documentIds);
    selected = selected.filter((g) => g.members.some((m) => wanted.has(m.document_id)));
  }
  return { total: selected.length, groups: selected.slice(0, request.limit) };
}

function canonicalOrder(strategy: CanonicalStrategy): (a: DocumentRow, b: DocumentRow) => number {
  switch (strategy) {
    case "keep-oldest":
      return (a, b) => a.indexed_at - b.indexed_at || a.id - b.id;
    case "keep-largest":
      return (a, b) => b.size - a.size || b.indexed_at - a.indexed_at || b.id - a.id;
    default:
      return (a, b) => b.indexed_at - a.indexed_at || b.id - a.id;
  }
}

/** Deterministic sparse projections: each bit is the sign of a sum of a few signed dimensions. */
function projectionTaps(dimensions: number): Int32Array[][] {
  let state = 0x5eed1234;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) | 0;
    return state >>> 0;
  };
  const tables: Int32Array[][] = [];
  for (let t = 0; t < TABLES; t++) {
    const bits: Int32Array[] = [];
    for (let b = 0; b < BITS; b++) {
      const taps = new Int32Array(TAPS);
      // Positive entries add a dimension, negative ones (offset by one) subtract it.
      for (let i = 0; i < TAPS; i++) {
        const dim = next() % dimensions;
        taps[i] = next() % 2 === 0 ? dim + 1 : -(dim + 1);
      }
      bits.push(taps);
    }
    tables.push(bits);
  }
  return tables;
}

function signatureOf(vector: Float32Array, bits: Int32Array[]): number {
  let signature = 0;
  for (let b = 0; b < bits.length; b++) {
    let sum = 0;
    for (const tap of bits[b]) sum += tap > 0 ? vector[tap - 1] : -vector[-tap - 1];
    if (sum >= 0) signature |= 1 << b;
  }
  return signature;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

function nameTokens(name: string): Set<string> {
  return new Set(
    name.toLowerCase().replace(/\.[^.]*$/, "").split(/[^\p{L}\p{N}]+/u).filter(Boolean),
  );
}

function pathTokens(path: string): Set<string> {
  return new Set(path.toLowerCase().split(/[\\/]+/).slice(0, -1).filter(Boolean));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const item of a) if (b.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

function round(value: number): number {
  return Math.round(value * 10000) / 10000;
}
