/**
 * Suggesting which stored snapshots are relevant to a draft topic, YAMS
 * style: a wide hybrid search, hits grouped by the snapshot they were stored
 * in, each group scored by its hits plus bonuses when the query's words
 * appear in the snapshot's label, folder or a hit's title. Within a session,
 * the set served last time for the same query is held back, so back-to-back
 * calls do not repeat themselves.
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../store/database.ts";
import { recordServedSuggestions } from "../store/docs/doc_sessions.ts";
import type { DocumentFilter } from "../store/docs/document_listing.ts";
import type { DocumentRow } from "../store/docs/documents.ts";
import { type DocsStore, sqliteDocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import { rankDocuments, type Ranking, type SearchRequest } from "./doc_search.ts";
import type { Embedder } from "./embedder.ts";
import { queryKeywords } from "./search_terms.ts";

/** One supporting search result. */
export interface SupportingResult {
  /** Document id. */
  id: number;
  /** Content hash. */
  hash: string;
  /** Title. */
  title: string;
  /** Path. */
  path: string;
  /** Its search score. */
  score: number;
}

/** One suggested snapshot. */
export interface ContextSuggestion {
  /** Snapshot id. */
  snapshot_id: string;
  /** Its label. */
  label: string | null;
  /** The folder it was taken of. */
  directory_path: string | null;
  /** Group score. */
  score: number;
  /** Hits that fell in this snapshot. */
  supporting_result_count: number;
  /** Up to three of them, best first. */
  supporting_results: SupportingResult[];
}

/** The suggestion report. */
export interface SuggestReport {
  /** The query. */
  query: string;
  /** Suggestions returned. */
  total: number;
  /** Best first. */
  suggestions: ContextSuggestion[];
  /** Snapshots held back because they were served last time (session scope only). */
  suppressed: number;
}

/** A suggestion request. */
export interface SuggestRequest {
  /** Draft topic or query. */
  query: string;
  /** Most suggestions. */
  limit: number;
  /** Session scope (also enables suppression), if any. */
  session?: string;
  /** Which documents count. */
  filter: DocumentFilter;
  /** The embedder. */
  embedder: Embedder;
  /** "Now", ms. */
  now: number;
}

/** Normalizes a query for suppression: lowercase content words, sorted. */
export function normalizedQuery(query: string): string {
  return [...new Set(queryKeywords(query))].sort().join(" ");
}

/** Suggests snapshots for a topic. */
export async function suggestContext(
  db: DatabaseSync,
  request: SuggestRequest,
): Promise<SuggestReport> {
  return await suggestFrom(
    sqliteDocsStore(db),
    (search) => rankDocuments(db, search),
    (session, key, served) =>
      transaction(db, () => recordServedSuggestions(db, session, key, served, request.now)),
    request,
  );
}

/**
 * Suggests snapshots for a topic from any backend: `docs` reads the store, `rank` ranks on it
 * and `record` records the set served in a session (in a write of its own). The core of
 * {@linkcode suggestContext}.
 */
export async function suggestFrom(
  docs: DocsStore<StoreMode>,
  rank: (search: SearchRequest) => Promise<Ranking>,
  record: (session: string, queryKey: string, served: string) => void | Promise<void>,
  request: SuggestRequest,
): Promise<SuggestReport> {
  const { hits } = await rank({
    query: request.query,
    mode: "hybrid",
    limit: Math.max(8 * request.limit, 20),
    fuzzy: true,
    similarity: 0.7,
    filter: request.filter,
    embedder: request.embedder,
  });
  const rows = new Map<number, DocumentRow>();
  for (const row of await docs.documentsByIds(hits.map((hit) => hit.id))) rows.set(row.id, row);
  const words = queryKeywords(request.query).map((word) => word.toLowerCase());
  const mentions = (text: string | null | undefined): boolean =>
    text !== null && text !== undefined && words.some((word) => text.toLowerCase().includes(word));
  const groups = new Map<string, { score: number; results: SupportingResult[] }>();
  for (const hit of hits) {
    const row = rows.get(hit.id);
    if (row === undefined || row.snapshot_id === null) continue;
    let group = groups.get(row.snapshot_id);
    if (group === undefined) {
      group = { score: 0, results: [] };
      groups.set(row.snapshot_id, group);
    }
    group.score += hit.score + (mentions(row.title) ? 0.15 : 0);
    group.results.push({
      id: row.id,
      hash: row.hash,
      title: row.title,
      path: row.path,
      score: Math.round(hit.score * 1e6) / 1e6,
    });
  }
  const snapshots = new Map(
    (await docs.snapshotsByIds([...groups.keys()])).map((s) => [s.snapshot_id, s]),
  );
  const key = request.session !== undefined ? normalizedQuery(request.query) : undefined;
  const heldBack = new Set<string>();
  if (request.session !== undefined && key !== undefined) {
    const served = await docs.lastServedSuggestions(request.session, key);
    if (served !== undefined) { for (const id of JSON.parse(served) as string[]) heldBack.add(id); }
  }
  const suggestions: ContextSuggestion[] = [];
  let suppressed = 0;
  for (const [id, group] of groups) {
    if (heldBack.has(id)) {
      suppressed++;
      continue;
    }
    const snapshot = snapshots.get(id);
    const label = snapshot?.label ?? null;
    const directory = snapshot?.directory_path ?? null;
    const score = group.score + (mentions(label) ? 0.35 : 0) + (mentions(directory) ? 0.2 : 0);
    suggestions.push({
      snapshot_id: id,
      label,
      directory_path: directory,
      score: Math.round(score * 1e6) / 1e6,
      supporting_result_count: group.results.length,
      supporting_results: group.results.slice(0, 3),
    });
  }
  suggestions.sort((a, b) => b.score - a.score || a.snapshot_id.localeCompare(b.snapshot_id));
  const chosen = suggestions.slice(0, request.limit);
  if (request.session !== undefined && key !== undefined) {
    await record(request.session, key, JSON.stringify(chosen.map((s) => s.snapshot_id)));
  }
  return { query: request.query, total: chosen.length, suggestions: chosen, suppressed };
}
