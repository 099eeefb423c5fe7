/**
 * Embedding vectors and the code graph on PostgreSQL: SQLite's (../../docs/vectors.ts,
 * ../../docs/graph.ts), read by the same row readers, in the same orders.
 *
 * Vectors are rows of little-endian float32 bytes that the engine reads into its in-memory
 * index, as on SQLite: the built-in way, which needs nothing of the server (see
 * `vectorBackend` in document_search.ts for pgvector).
 *
 * A graph's rows are written by one statement per table (each column an array), in the order
 * given; DEFINES edges are read from the nodes that name their parent, as there.
 *
 * @module
 */
import { EDGE, type GraphEdgeRow, type GraphNodeRow, NODE, TYPE_COUNT } from "../../docs/graph.ts";
import { FIRST_VECTOR, VECTOR, type VectorRow } from "../../docs/vectors.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { plainBytes, readRow, readRows } from "../reads.ts";
import { unnestInsert } from "../unnest.ts";

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Stores one vector of a document. */
export async function insertVector(
  q: PgQueryable,
  documentId: number,
  seq: number,
  model: string,
  vector: Uint8Array,
): Promise<void> {
  await q.query(
    "INSERT INTO docs_vectors (document_id, seq, model, vector) VALUES ($1, $2, $3, $4)",
    [documentId, seq, model, vector],
  );
}

/** Removes a document's vectors; answers how many. */
export async function deleteVectors(q: PgQueryable, documentId: number): Promise<number> {
  return (await q.query("DELETE FROM docs_vectors WHERE document_id = $1 RETURNING id", [
    documentId,
  ])).length;
}

/** A page of one model's vectors after an id, in id order. */
export async function vectorsAfter(
  q: PgQueryable,
  model: string,
  afterId: number,
  limit: number,
): Promise<VectorRow[]> {
  const rows = await readRows(
    q,
    VECTOR,
    `SELECT ${VECTOR.columns} FROM docs_vectors WHERE model = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [model, afterId, limit],
  );
  return rows.map((row) => ({ ...row, vector: plainBytes(row.vector) }));
}

/** The first vector of every document of one model, by document. */
export async function firstVectors(
  q: PgQueryable,
  model: string,
): Promise<Array<{ document_id: number; vector: Uint8Array }>> {
  const rows = await readRows(
    q,
    FIRST_VECTOR,
    `SELECT document_id, vector FROM docs_vectors WHERE model = $1 AND seq = 0
     ORDER BY document_id`,
    [model],
  );
  return rows.map((row) => ({ document_id: row.document_id, vector: plainBytes(row.vector) }));
}

/** How many vectors are stored. */
export async function vectorCount(q: PgQueryable): Promise<number> {
  return (await readRow(q, COUNT, "SELECT count(*) AS n FROM docs_vectors")).n;
}

// ---------------------------------------------------------------------------------------------
// The code graph

const NODE_INSERT = unnestInsert("docs_graph_nodes", {
  document_id: "bigint",
  node_key: "text",
  type: "text",
  name: "text",
  line: "bigint",
  parent: "text",
}, "ON CONFLICT DO NOTHING");

const EDGE_INSERT = unnestInsert("docs_graph_edges", {
  document_id: "bigint",
  src: "text",
  dst: "text",
  relation: "text",
  line: "bigint",
});

/** Stores a document's graph nodes and edges (a node key met twice keeps its first row). */
export async function insertGraph(
  q: PgQueryable,
  documentId: number,
  nodes: ReadonlyArray<Omit<GraphNodeRow, "document_id">>,
  edges: ReadonlyArray<Omit<GraphEdgeRow, "document_id">>,
): Promise<void> {
  await NODE_INSERT.run(
    q,
    nodes.map((n) => [documentId, n.node_key, n.type, n.name, n.line, n.parent ?? null]),
  );
  await EDGE_INSERT.run(q, edges.map((e) => [documentId, e.src, e.dst, e.relation, e.line]));
}

/** Removes a document's graph. */
export async function deleteGraph(q: PgQueryable, documentId: number): Promise<void> {
  await q.query("DELETE FROM docs_graph_nodes WHERE document_id = $1", [documentId]);
  await q.query("DELETE FROM docs_graph_edges WHERE document_id = $1", [documentId]);
}

/**
 * Edges leaving (or entering) a node, optionally of one relation: by relation, then as
 * stored, with the DEFINES edges read from the nodes in their place.
 */
export async function edgesOf(
  q: PgQueryable,
  key: string,
  reverse: boolean,
  relation: string | undefined,
  limit: number,
): Promise<GraphEdgeRow[]> {
  const column = reverse ? "dst" : "src";
  const stored = await readRows(
    q,
    EDGE,
    `SELECT ${EDGE.columns} FROM docs_graph_edges WHERE ${column} = $1
       AND ($2::text IS NULL OR relation = $2) ORDER BY relation, seq LIMIT $3`,
    [key, relation ?? null, limit],
  );
  if (relation !== undefined && relation !== "DEFINES") return stored;
  const defines = await readRows(
    q,
    EDGE,
    `SELECT document_id, parent AS src, node_key AS dst, 'DEFINES' AS relation, line
     FROM docs_graph_nodes WHERE ${reverse ? "node_key = $1 AND parent IS NOT NULL" : "parent = $1"}
     ORDER BY document_id, line, node_key LIMIT $2`,
    [key, limit],
  );
  if (defines.length === 0) return stored;
  return [
    ...stored.filter((edge) => edge.relation <= "DEFINES"),
    ...defines,
    ...stored.filter((edge) => edge.relation > "DEFINES"),
  ].slice(0, limit);
}

/** The stored rows of a node key, one per document that mentions it, by document. */
export function nodesByKey(q: PgQueryable, key: string): Promise<GraphNodeRow[]> {
  return readRows(
    q,
    NODE,
    `SELECT ${NODE.columns} FROM docs_graph_nodes WHERE node_key = $1 ORDER BY document_id`,
    [key],
  );
}

/** Definitions (not references) carrying a name. */
export function definitionsNamed(
  q: PgQueryable,
  name: string,
  limit: number,
): Promise<GraphNodeRow[]> {
  return readRows(
    q,
    NODE,
    `SELECT ${NODE.columns} FROM docs_graph_nodes
     WHERE name = $1 AND type NOT IN ('reference', 'module', 'url', 'wiki')
     ORDER BY document_id, node_key LIMIT $2`,
    [name, limit],
  );
}

/** Node types with their distinct node counts, most first. */
export function nodeTypeCounts(q: PgQueryable): Promise<Array<{ type: string; count: number }>> {
  return readRows(
    q,
    TYPE_COUNT,
    `SELECT type, count(DISTINCT node_key) AS count FROM docs_graph_nodes
     GROUP BY type ORDER BY count DESC, type`,
  );
}

/** Distinct nodes of one type, by key. */
export function nodesOfType(q: PgQueryable, type: string, limit: number): Promise<GraphNodeRow[]> {
  return readRows(
    q,
    NODE,
    `SELECT min(document_id) AS document_id, node_key, min(type) AS type, min(name) AS name,
       min(line) AS line
     FROM docs_graph_nodes WHERE type = $1 GROUP BY node_key ORDER BY node_key LIMIT $2`,
    [type, limit],
  );
}

/** How many edges there are, DEFINES edges (read from the nodes) included. */
export async function edgeCount(q: PgQueryable): Promise<number> {
  return (await readRow(
    q,
    COUNT,
    `SELECT (SELECT count(*) FROM docs_graph_edges)
       + (SELECT count(*) FROM docs_graph_nodes WHERE parent IS NOT NULL) AS n`,
  )).n;
}
