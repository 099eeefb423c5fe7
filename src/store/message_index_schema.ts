/**
 * The message search index lives in its own SQLite file beside the store
 * (`search.db`), so a worker can build it while the main thread stores
 * messages: SQLite allows one writer per file, not per process. It is a
 * contentless FTS5 index of message ids (the text stays in the store) and a
 * cursor: the highest message id indexed, committed with the index rows.
 *
 * @module
 */
/**
 * The index file for a store file: `search.db` in the store's folder.
 *
 * @example
 * ```ts
 * import { messageIndexPath } from "./message_index_schema.ts";
 * messageIndexPath("/home/me/.vantage/vantage.db"); // "/home/me/.vantage/search.db"
 * ```
 */
export function messageIndexPath(storePath: string): string {
  if (storePath === ":memory:") return ":memory:";
  // The file name replaced by hand: node:path would slow the start of the message index worker, which
  // imports this module (see module_worker.ts).
  return storePath.replace(/[^/\\]*$/, "search.db");
}

/**
 * The index schema. Tool inputs and outputs (file dumps, command logs) are
 * indexed by their first 2,000 characters: enough to find the session, at a
 * fraction of the cost; the full text stays in the store for transcripts and
 * the substring pass. `detail=none` keeps only which messages hold a word —
 * all a newest-first session search needs.
 */
export const MESSAGE_INDEX_SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    text, content = '', tokenize = 'unicode61 remove_diacritics 2', detail = none, columnsize = 0
  );
  CREATE TABLE IF NOT EXISTS index_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
`;

/** Characters of a tool message that are indexed. */
export const TOOL_TEXT_INDEXED = 2000;

/**
 * Messages read and indexed per transaction. FTS5 writes a segment per transaction and merges
 * segments later: a backfill indexed in few large transactions writes and merges less.
 */
export const INDEX_BATCH = 2000;
