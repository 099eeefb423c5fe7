/**
 * The code graph extracted from stored documents: nodes (files, symbols,
 * modules, references, links) and directed, typed edges, each owned by the
 * document it came from so deleting the document removes them.
 *
 * A symbol's DEFINES edge (from its file or class, on its own line) is not an
 * edge row: the symbol's node names its `parent`, and edge reads give those
 * edges back among the stored ones. Definitions are most of a code graph, so
 * this saves most of its rows.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A node as stored. */
export interface GraphNodeRow {
  /** Document the node was extracted from. */
  document_id: number;
  /** Stable key, e.g. `symbol:/repo/a.ts#main`. */
  node_key: string;
  /** Node kind. */
  type: string;
  /** Display name. */
  name: string;
  /** 1-based line. */
  line: number;
  /** The node whose DEFINES edge leads here (its file or class), if any. */
  parent?: string | null;
}

/** An edge as stored. */
export interface GraphEdgeRow {
  /** Document the edge was extracted from. */
  document_id: number;
  /** Source node key. */
  src: string;
  /** Target node key. */
  dst: string;
  /** Relation, e.g. `CALLS`. */
  relation: string;
  /** 1-based line. */
  line: number;
}

/** Reads a stored graph edge. (Both backends read it with this reader.) */
export const EDGE: RowReader<GraphEdgeRow> = new RowReader<GraphEdgeRow>("graph edge", {
  document_id: "number",
  src: "text",
  dst: "text",
  relation: "text",
  line: "number",
});

/** Reads a node as the reads below give it (without the node that defines it). */
export const NODE: RowReader<Omit<GraphNodeRow, "parent">> = new RowReader<
  Omit<GraphNodeRow, "parent">
>("graph node", {
  document_id: "number",
  node_key: "text",
  type: "text",
  name: "text",
  line: "number",
});

/** Rows per multi-row INSERT: a statement per row costs more than the row itself. */
const ROWS_PER_INSERT = 32;

/** Stores a document's nodes and edges. */
export function insertGraph(
  db: DatabaseSync,
  documentId: number,
  nodes: ReadonlyArray<Omit<GraphNodeRow, "document_id">>,
  edges: ReadonlyArray<Omit<GraphEdgeRow, "document_id">>,
): void {
  insertRows(
    db,
    NODE_INSERTS,
    "INSERT OR IGNORE INTO docs_graph_nodes (document_id, node_key, type, name, line, parent) VALUES ",
    6,
    nodes,
    (n, out) => out.push(documentId, n.node_key, n.type, n.name, n.line, n.parent ?? null),
  );
  insertRows(
    db,
    EDGE_INSERTS,
    "INSERT INTO docs_graph_edges (document_id, src, dst, relation, line) VALUES ",
    5,
    edges,
    (e, out) => out.push(documentId, e.src, e.dst, e.relation, e.line),
  );
}

/** The INSERT statement for each row count, made once. */
const NODE_INSERTS: string[] = [];
const EDGE_INSERTS: string[] = [];

/** Inserts rows of `columns` values each, in order, `ROWS_PER_INSERT` per statement. */
function insertRows<T>(
  db: DatabaseSync,
  statements: string[],
  head: string,
  columns: number,
  rows: readonly T[],
  values: (row: T, out: Array<string | number | null>) => void,
): void {
  const params: Array<string | number | null> = [];
  const row = `(${Array(columns).fill("?").join(", ")})`;
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
    const count = Math.min(ROWS_PER_INSERT, rows.length - at);
    params.length = 0;
    for (let i = at; i < at + count; i++) values(rows[i], params);
    const sql = statements[count] ??= head + `${row}, `.repeat(count - 1) + row;
    prepared(db, sql).run(...params);
  }
}

/** Removes a document's nodes and edges. */
export function deleteGraph(db: DatabaseSync, documentId: number): void {
  prepared(db, "DELETE FROM docs_graph_nodes WHERE document_id = ?").run(documentId);
  prepared(db, "DELETE FROM docs_graph_edges WHERE document_id = ?").run(documentId);
}

/**
 * Edges leaving (or, with `reverse`, entering) a node, optionally of one
 * relation, ordered by relation (DEFINES edges, read from the nodes, in
 * their place), then as stored.
 */
export function edgesOf(
  db: DatabaseSync,
  key: string,
  reverse: boolean,
  relation: string | undefined,
  limit: number,
): GraphEdgeRow[] {
  const column = reverse ? "dst" : "src";
  const stored = EDGE.all(
    relation === undefined
      ? prepared(
        db,
        `SELECT ${EDGE.columns} FROM docs_graph_edges WHERE ${column} = ?
       ORDER BY relation LIMIT ?`,
      ).all(key, limit)
      : prepared(
        db,
        `SELECT ${EDGE.columns} FROM docs_graph_edges
       WHERE ${column} = ? AND relation = ? LIMIT ?`,
      ).all(key, relation, limit),
  );
  if (relation !== undefined && relation !== "DEFINES") return stored;
  const defines = definesEdges(db, key, reverse, limit);
  if (defines.length === 0) return stored;
  return [
    ...stored.filter((edge) => edge.relation <= "DEFINES"),
    ...defines,
    ...stored.filter((edge) => edge.relation > "DEFINES"),
  ].slice(0, limit);
}

/** DEFINES edges from a node's definitions (or, with `reverse`, to a definition). */
function definesEdges(
  db: DatabaseSync,
  key: string,
  reverse: boolean,
  limit: number,
): GraphEdgeRow[] {
  return EDGE.all(
    prepared(
      db,
      `SELECT document_id, parent AS src, node_key AS dst, 'DEFINES' AS relation, line
     FROM docs_graph_nodes WHERE ${reverse ? "node_key = ? AND parent IS NOT NULL" : "parent = ?"}
     ORDER BY document_id, line, node_key LIMIT ?`,
    ).all(key, limit),
  );
}

/** Stored rows of a node key (one per document that mentions it). */
export function nodesByKey(db: DatabaseSync, key: string): GraphNodeRow[] {
  return NODE.all(
    prepared(db, `SELECT ${NODE.columns} FROM docs_graph_nodes WHERE node_key = ?`).all(key),
  );
}

/** Definition nodes (not references) carrying a name, for joining `ref:` nodes across files. */
export function definitionsNamed(db: DatabaseSync, name: string, limit: number): GraphNodeRow[] {
  return NODE.all(
    prepared(
      db,
      `SELECT ${NODE.columns} FROM docs_graph_nodes
     WHERE name = ? AND type NOT IN ('reference', 'module', 'url', 'wiki') LIMIT ?`,
    ).all(name, limit),
  );
}

/** Reads a node type with its count of distinct nodes. (Both backends read it with this reader.) */
export const TYPE_COUNT: RowReader<{ type: string; count: number }> = new RowReader<
  { type: string; count: number }
>(
  "node type count",
  {
    type: "text",
    count: "number",
  },
);

/** Node types with the number of distinct nodes of each. */
export function nodeTypeCounts(db: DatabaseSync): Array<{ type: string; count: number }> {
  return TYPE_COUNT.all(
    prepared(
      db,
      `SELECT type, count(DISTINCT node_key) AS count FROM docs_graph_nodes
     GROUP BY type ORDER BY count DESC, type`,
    ).all(),
  );
}

/** Distinct nodes of one type. */
export function nodesOfType(db: DatabaseSync, type: string, limit: number): GraphNodeRow[] {
  return NODE.all(
    prepared(
      db,
      `SELECT min(document_id) AS document_id, node_key, type, min(name) AS name, min(line) AS line
     FROM docs_graph_nodes WHERE type = ? GROUP BY node_key ORDER BY node_key LIMIT ?`,
    ).all(type, limit),
  );
}

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Counts edges, DEFINES edges (read from the nodes) included. */
export function edgeCount(db: DatabaseSync): number {
  return COUNT.one(
    prepared(
      db,
      `SELECT (SELECT count(*) FROM docs_graph_edges)
       + (SELECT count(*) FROM docs_graph_nodes WHERE parent IS NOT NULL) AS n`,
    ).get(),
  ).n;
}
