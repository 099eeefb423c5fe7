/**
 * Walking the code graph stored with documents: breadth-first from a
 * document's file node (or any node key), following edges forwards or, with
 * `reverse`, backwards, optionally of one relation, up to five hops. Names
 * that are only references in one file (`ref:parse`) are joined to the
 * definitions of that name in other files, and file nodes are joined to the
 * stored document at that path, so a walk crosses file boundaries.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { DocumentRow } from "../store/docs/documents.ts";
import type { GraphEdgeRow } from "../store/docs/graph.ts";
import type { StoreMode } from "../store/repository.ts";

/** The relations the extractor emits. */
export const RELATIONS: readonly string[] = [
  "IMPORTS",
  "INCLUDES",
  "DEFINES",
  "CALLS",
  "INHERITS",
  "IMPLEMENTS",
  "LINKS_TO",
];

/** A node reached by a walk. */
export interface GraphNodeInfo {
  /** Node key. */
  node_key: string;
  /** Node kind (`file`, `function`, `class`, `module`, `reference`, …). */
  type: string;
  /** Display name. */
  name: string;
  /** Hops from the start (0 for the start). */
  depth: number;
  /** Relation of the edge that reached it (`RESOLVES` for a reference joined to a definition). */
  relation?: string;
  /** Node it was reached from. */
  from?: string;
  /** Line of that edge in its document. */
  line?: number;
  /** Stored document holding the node, when there is one. */
  document_id?: number;
  /** That document's hash. */
  hash?: string;
  /** That document's path. */
  path?: string;
}

/** An edge crossed by a walk. */
export interface GraphEdgeInfo {
  /** Source node key. */
  from: string;
  /** Target node key. */
  to: string;
  /** Relation. */
  relation: string;
  /** 1-based line in the document it came from. */
  line: number;
  /** Document it came from. */
  document_id: number;
}

/** A walk request. */
export interface GraphWalk {
  /** Start node key. */
  start: string;
  /** Hops, 1–5. */
  depth: number;
  /** Follow incoming edges instead of outgoing ones. */
  reverse: boolean;
  /** Only edges of this relation. */
  relation?: string;
  /** Most nodes to return (the start excluded). */
  limit: number;
}

/** What a walk found. */
export interface GraphResult {
  /** The start node. */
  origin: GraphNodeInfo;
  /** Nodes reached, nearest first (the start excluded). */
  nodes: GraphNodeInfo[];
  /** Edges crossed. */
  edges: GraphEdgeInfo[];
  /** True when the limit cut the walk short. */
  truncated: boolean;
}

/** The file node key of a stored document. */
export function fileNodeKey(row: DocumentRow): string {
  return `file:${row.path.replaceAll("\\", "/")}`;
}

const RESOLVE_EXTENSIONS = [
  "",
  ".ts",
  ".tsx",
  ".js",
  ".jsx",
  ".mjs",
  ".py",
  ".go",
  ".rs",
  "/index.ts",
  "/index.js",
  "/mod.ts",
];

/**
 * Walks the graph stored on either backend.
 *
 * @example
 * ```ts ignore
 * await walkGraph(store.docs, { start: "file:/repo/src/app.ts", depth: 2, reverse: false, limit: 100 });
 * ```
 */
export async function walkGraph(docs: DocsStore<StoreMode>, walk: GraphWalk): Promise<GraphResult> {
  const depth = Math.min(5, Math.max(1, walk.depth));
  const relation = walk.relation?.toUpperCase();
  const documents = new Map<number, DocumentRow | undefined>();
  const origin = await describeNode(docs, walk.start, 0, documents);
  // A file stands for the symbols it defines: asked for CALLS or INHERITS of a file, the walk
  // starts from its definitions, which is where those edges leave from.
  const seeds = relation !== undefined && relation !== "DEFINES" && walk.start.startsWith("file:")
    ? await definitionsWithin(docs, walk.start)
    : [];
  const seen = new Set<string>([walk.start]);
  const edgeKeys = new Set<string>();
  const nodes: GraphNodeInfo[] = [];
  const edges: GraphEdgeInfo[] = [];
  let frontier = [walk.start, ...seeds];
  let truncated = false;
  const reach = async (
    key: string,
    level: number,
    via: { relation: string; from: string; line?: number },
    next: string[],
  ): Promise<boolean> => {
    if (seen.has(key)) return true;
    if (nodes.length >= walk.limit) {
      truncated = true;
      return false;
    }
    seen.add(key);
    const info = await describeNode(docs, key, level, documents);
    info.relation = via.relation;
    info.from = via.from;
    if (via.line !== undefined) info.line = via.line;
    nodes.push(info);
    next.push(key);
    return true;
  };
  for (let level = 1; level <= depth && frontier.length > 0 && !truncated; level++) {
    const next: string[] = [];
    for (const key of frontier) {
      for (const alias of await aliases(docs, key, walk.reverse)) {
        // An alias is the same thing under another key: reached at the same depth.
        if (!(await reach(alias, level - 1, { relation: "RESOLVES", from: key }, next))) break;
      }
      const sources = [key];
      if (walk.reverse) sources.push(...referenceKeysFor(key));
      for (const source of sources) {
        for (const edge of await docs.edgesOf(source, walk.reverse, relation, walk.limit * 4)) {
          const target = walk.reverse ? edge.src : edge.dst;
          const edgeKey = `${edge.src}\u0000${edge.dst}\u0000${edge.relation}`;
          if (!edgeKeys.has(edgeKey)) {
            edgeKeys.add(edgeKey);
            edges.push(edgeInfo(edge));
          }
          if (
            !(await reach(target, level, {
              relation: edge.relation,
              from: key,
              line: edge.line,
            }, next))
          ) {
            break;
          }
        }
      }
      if (truncated) break;
    }
    frontier = next;
  }
  return { origin, nodes, edges, truncated };
}

async function definitionsWithin(docs: DocsStore<StoreMode>, fileKey: string): Promise<string[]> {
  const found: string[] = [];
  let frontier = [fileKey];
  for (let level = 0; level < 4 && frontier.length > 0; level++) {
    const next: string[] = [];
    for (const key of frontier) {
      for (const edge of await docs.edgesOf(key, false, "DEFINES", 1000)) {
        if (!found.includes(edge.dst)) {
          found.push(edge.dst);
          next.push(edge.dst);
        }
      }
    }
    frontier = next;
  }
  return found;
}

function edgeInfo(edge: GraphEdgeRow): GraphEdgeInfo {
  return {
    from: edge.src,
    to: edge.dst,
    relation: edge.relation,
    line: edge.line,
    document_id: edge.document_id,
  };
}

/** Other keys standing for the same thing: definitions of a referenced name, a file's document. */
async function aliases(
  docs: DocsStore<StoreMode>,
  key: string,
  reverse: boolean,
): Promise<string[]> {
  if (reverse) return [];
  if (key.startsWith("ref:")) {
    const name = key.slice(4);
    const short = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : name;
    const found = await docs.definitionsNamed(name, 20);
    if (found.length === 0 && short !== name) found.push(...await docs.definitionsNamed(short, 20));
    return [...new Set(found.map((node) => node.node_key))];
  }
  return [];
}

/** Reference keys that other files use for a symbol (for reverse walks: who calls this?). */
function referenceKeysFor(key: string): string[] {
  if (!key.startsWith("symbol:")) return [];
  const name = key.slice(key.indexOf("#") + 1);
  const keys = [`ref:${name}`];
  const short = name.includes(".") ? name.slice(name.lastIndexOf(".") + 1) : name;
  if (short !== name) keys.push(`ref:${short}`);
  return keys;
}

async function describeNode(
  docs: DocsStore<StoreMode>,
  key: string,
  depth: number,
  documents: Map<number, DocumentRow | undefined>,
): Promise<GraphNodeInfo> {
  const rows = await docs.nodesByKey(key);
  const colon = key.indexOf(":");
  const prefix = colon > 0 ? key.slice(0, colon) : "unknown";
  const info: GraphNodeInfo = {
    node_key: key,
    type: rows[0]?.type ?? (prefix === "ref" ? "reference" : prefix),
    name: rows[0]?.name ?? key.slice(colon + 1),
    depth,
  };
  let doc: DocumentRow | undefined;
  if (key.startsWith("file:")) {
    doc = await documentForPath(docs, key.slice(5));
  } else if (key.startsWith("symbol:") && rows.length > 0) {
    const id = rows[0].document_id;
    if (!documents.has(id)) documents.set(id, await docs.documentById(id));
    doc = documents.get(id);
  }
  if (doc !== undefined) {
    info.document_id = doc.id;
    info.hash = doc.hash;
    info.path = doc.path;
  }
  return info;
}

async function documentForPath(
  docs: DocsStore<StoreMode>,
  path: string,
): Promise<DocumentRow | undefined> {
  for (const suffix of RESOLVE_EXTENSIONS) {
    const doc = await docs.latestDocumentForPath(path + suffix);
    if (doc !== undefined) return doc;
  }
  return undefined;
}

/** Node types with the number of distinct nodes of each. */
export async function graphNodeTypes(
  docs: DocsStore<StoreMode>,
): Promise<Array<{ type: string; count: number }>> {
  return await docs.nodeTypeCounts();
}

/** Distinct nodes of one type. */
export async function graphNodesOfType(
  docs: DocsStore<StoreMode>,
  type: string,
  limit: number,
): Promise<GraphNodeInfo[]> {
  const documents = new Map<number, DocumentRow | undefined>();
  const nodes: GraphNodeInfo[] = [];
  // One after another: nodes of one document share its row, read once.
  for (const row of await docs.nodesOfType(type, limit)) {
    nodes.push(await describeNode(docs, row.node_key, 0, documents));
  }
  return nodes;
}

/** Checks a relation name, accepting any case. */
export function checkRelation(relation: string | undefined): string | undefined {
  if (relation === undefined) return undefined;
  const upper = relation.toUpperCase();
  if (!RELATIONS.includes(upper)) {
    throw new VantageError(
      "invalid_arguments",
      `relation '${relation}' is unknown; relations: ${RELATIONS.join(", ")}`,
      { details: { relation } },
    );
  }
  return upper;
}
