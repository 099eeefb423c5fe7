/**
 * Which tables read-only SQL (`exec_query`, `/api/query`) may read, and
 * which scope opens each. Every query needs `sql:read`; a table about what
 * agents did needs `agent:read` as well, and a table that holds documents or
 * anything about them needs `docs:read` as well, and the people of a team
 * server (`team_people`) need `admin` — the scopes the operations that serve
 * those rows ask for, so SQL is never a way around them. The
 * query process refuses every table this list does not name, so a table a
 * migration adds stays unreadable until it is classified here (a test reads
 * the migrated schema and fails until then).
 *
 * Only the schema and migration bookkeeping need nothing more than
 * `sql:read`: they say which tables and columns exist, never what is in
 * them.
 *
 * @module
 */

/** One table open to queries, and the scopes it needs besides `sql:read`. */
export interface QueryTable {
  /** The table's name, lower case, as SQLite reports it when a query reads it. */
  readonly name: string;
  /** Every scope a caller needs to read it, besides `sql:read` (empty: none). */
  readonly scopes: readonly string[];
  /** What its rows are, said once so the scope's reason stays next to it. */
  readonly holds: string;
  /** Set for a table only PostgreSQL's schema has (SQLite keeps the same rows elsewhere). */
  readonly postgresOnly?: true;
}

const AGENT = ["agent:read"] as const;
const DOCS = ["docs:read"] as const;

/** Every table a query may read, with the scopes that open it. */
export const QUERY_TABLES: readonly QueryTable[] = [
  // The catalog: table and index definitions only. Agents read it to find their way.
  { name: "sqlite_master", scopes: [], holds: "the schema: table and index definitions" },
  { name: "sqlite_schema", scopes: [], holds: "the schema, under its newer name" },
  { name: "schema_migrations", scopes: [], holds: "which migrations ran, and when" },
  { name: "store_meta", scopes: [], holds: "store-wide settings (no agent or document data)" },
  // Counters of AUTOINCREMENT tables of either family: how many rows each ever had.
  {
    name: "sqlite_sequence",
    scopes: ["agent:read", "docs:read"],
    holds: "the highest id each AUTOINCREMENT table handed out",
  },

  { name: "sessions", scopes: AGENT, holds: "agent sessions and their totals" },
  { name: "events", scopes: AGENT, holds: "hook events with their payloads" },
  { name: "messages", scopes: AGENT, holds: "transcript messages" },
  { name: "usage", scopes: AGENT, holds: "token usage and cost per turn" },
  { name: "transcript_files", scopes: AGENT, holds: "transcript files and how far they were read" },
  { name: "build_runs", scopes: AGENT, holds: "builds and tests observed" },
  { name: "file_changes", scopes: AGENT, holds: "files changed outside the agent" },
  { name: "git_moves", scopes: AGENT, holds: "branch switches, commits, pulls" },
  { name: "anomalies", scopes: AGENT, holds: "anomalies noticed in sessions" },
  { name: "anomaly_emissions", scopes: AGENT, holds: "when each anomaly was shown" },
  { name: "project_state", scopes: AGENT, holds: "each project's sensed state" },
  { name: "injections", scopes: AGENT, holds: "the context last injected into each session" },
  { name: "tool_outcomes", scopes: AGENT, holds: "how tool calls ended, read from transcripts" },
  { name: "telemetry_spans", scopes: AGENT, holds: "OpenTelemetry spans agents and apps sent" },
  { name: "telemetry_logs", scopes: AGENT, holds: "OpenTelemetry log records (agent events)" },
  { name: "telemetry_metric_points", scopes: AGENT, holds: "OpenTelemetry metric data points" },
  { name: "telemetry_sessions", scopes: AGENT, holds: "the user and host of each session" },
  { name: "telemetry_model_calls", scopes: AGENT, holds: "model calls: latency, tokens, cost" },
  { name: "telemetry_tool_calls", scopes: AGENT, holds: "tool calls: duration, outcome, decision" },
  { name: "telemetry_api_errors", scopes: AGENT, holds: "model API errors agents reported" },

  { name: "docs_state", scopes: DOCS, holds: "document memory bookkeeping" },
  { name: "docs_chunks", scopes: DOCS, holds: "document bytes, in chunks" },
  { name: "docs_contents", scopes: DOCS, holds: "stored contents by hash" },
  { name: "docs_content_chunks", scopes: DOCS, holds: "which chunks make each content" },
  { name: "docs_documents", scopes: DOCS, holds: "documents: paths, names, titles" },
  { name: "docs_tags", scopes: DOCS, holds: "document tags" },
  { name: "docs_metadata", scopes: DOCS, holds: "document metadata" },
  { name: "docs_collection_members", scopes: DOCS, holds: "the collections each document is in" },
  { name: "docs_snapshots", scopes: DOCS, holds: "snapshots of added folders" },
  { name: "docs_snapshot_members", scopes: DOCS, holds: "the documents of each snapshot" },
  { name: "docs_vectors", scopes: DOCS, holds: "document embeddings" },
  { name: "docs_vector_segments", scopes: DOCS, holds: "sealed files of document embeddings" },
  { name: "docs_vector_removed", scopes: DOCS, holds: "embeddings removed from sealed files" },
  { name: "docs_graph_nodes", scopes: DOCS, holds: "symbols found in documents" },
  { name: "docs_graph_edges", scopes: DOCS, holds: "relations between those symbols" },
  { name: "docs_sessions", scopes: DOCS, holds: "document sessions" },
  { name: "docs_session_pins", scopes: DOCS, holds: "documents pinned to a session" },
  { name: "docs_suggestions_served", scopes: DOCS, holds: "documents already suggested" },
  { name: "docs_index_queue", scopes: DOCS, holds: "documents waiting for the search index" },
  {
    name: "docs_search",
    scopes: DOCS,
    holds: "the words of each document (SQLite's are in docs-index.db)",
    postgresOnly: true,
  },
  // Who holds a token: only the scope that manages people reads it (the hashes included).
  { name: "team_people", scopes: ["admin"], holds: "a team server's people, roles, token hashes" },
];

const BY_NAME: ReadonlyMap<string, QueryTable> = new Map(
  QUERY_TABLES.map((table) => [table.name, table]),
);

/**
 * The scopes besides `sql:read` that reading `table` needs, or `undefined`
 * when no scope opens it to queries.
 *
 * @example
 * ```ts
 * import { queryTableScopes } from "./query_tables.ts";
 * queryTableScopes("docs_chunks"); // ["docs:read"]
 * queryTableScopes("dbstat"); // undefined
 * ```
 */
export function queryTableScopes(table: string): readonly string[] | undefined {
  return BY_NAME.get(table.toLowerCase())?.scopes;
}

/**
 * The tables a caller may read, given whether it holds each scope.
 *
 * @example
 * ```ts
 * import { readableTables } from "./query_tables.ts";
 * readableTables((scope) => scope === "agent:read").includes("sessions"); // true
 * readableTables(() => false).includes("docs_chunks"); // false
 * ```
 */
export function readableTables(granted: (scope: string) => boolean): string[] {
  return QUERY_TABLES.filter((table) => table.scopes.every(granted)).map((table) => table.name);
}
