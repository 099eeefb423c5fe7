/**
 * The worker that keeps the message index up to date (started by
 * `MessageIndexer` in message_index.ts): it reads messages past its cursor
 * from the store (read-only) and indexes them in the index file, committing
 * rows and cursor together so a crash never indexes a message twice or
 * skips one.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { workerScope } from "../../core/module_worker.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { INDEX_BATCH, MESSAGE_INDEX_SCHEMA, TOOL_TEXT_INDEXED } from "./schema.ts";

/** What the indexer asks: open the two files once, then index what is new on each kick. */
export type MessageIndexRequest =
  | { type: "open"; storePath: string; indexPath: string }
  | { type: "kick" };

/** What the worker answers. */
export type MessageIndexReply =
  | { type: "opened" }
  | { type: "indexed"; to: number }
  | { type: "error"; message: string };

/**
 * Bytes of pending index data FTS5 holds in memory before it writes a segment (its default is
 * 1 MiB): enough for one batch, so a transaction writes one segment.
 */
const PENDING_BYTES = 32 * 1024 * 1024;

interface Files {
  store: DatabaseSync;
  index: DatabaseSync;
}

function open(storePath: string, indexPath: string): Files {
  const store = new DatabaseSync(storePath, { readOnly: true, timeout: 5000 });
  const index = new DatabaseSync(indexPath, { timeout: 5000 });
  index.exec("PRAGMA journal_mode = WAL");
  index.exec("PRAGMA synchronous = NORMAL");
  index.exec(MESSAGE_INDEX_SCHEMA);
  // A setting of the index file, kept in its config table: written once, not on every open.
  const pending = FTS_SETTING.optional(
    index.prepare("SELECT v FROM messages_fts_config WHERE k = 'hashsize'").get(),
  );
  if (pending?.v !== PENDING_BYTES) {
    // A literal: FTS5 takes only an integer, and a bound number would arrive as a real.
    index.exec(
      `INSERT INTO messages_fts (messages_fts, rank) VALUES ('hashsize', ${PENDING_BYTES})`,
    );
  }
  return { store, index };
}

const FTS_SETTING = new RowReader<{ v: number }>("message index setting", { v: "number" });

const CURSOR = new RowReader<{ value: number }>("message index cursor", { value: "number" });

/** A message as it is indexed: a tool call's text already cut to its indexed head. */
interface IndexedMessage {
  id: number;
  /** 1 for a tool call or result. */
  tool: number;
  tool_name: string | null;
  text: string;
}

const INDEXED_MESSAGE = new RowReader<IndexedMessage>("message", {
  id: "number",
  tool: "number",
  tool_name: "text?",
  text: "text",
});

function cursor(index: DatabaseSync): number {
  return CURSOR.optional(
    prepared(index, "SELECT value FROM index_state WHERE key = 'indexed_to'").get(),
  )?.value ?? 0;
}

/** Indexes everything past the cursor in bounded transactions; returns the new cursor. */
function catchUp({ store, index }: Files): number {
  // A tool message's text comes out of the store cut to its indexed head (a file dump may be
  // 30,000 characters): `substr` counts code points and `slice` UTF-16 units, so the head holds
  // at least the characters the slice below keeps, and the slice decides.
  const read = prepared(
    store,
    `SELECT id, message_type IN ('tool_use', 'tool_result') AS tool, tool_name,
       CASE WHEN message_type IN ('tool_use', 'tool_result')
         THEN substr(text, 1, ${TOOL_TEXT_INDEXED}) ELSE text END AS text
     FROM messages WHERE id > ? ORDER BY id LIMIT ?`,
  );
  const insert = prepared(index, "INSERT INTO messages_fts (rowid, text) VALUES (?, ?)");
  const save = prepared(
    index,
    "INSERT INTO index_state (key, value) VALUES ('indexed_to', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  for (;;) {
    index.exec("BEGIN IMMEDIATE");
    try {
      // Read the cursor under the write lock: another process may be indexing the same store.
      const from = cursor(index);
      const rows = INDEXED_MESSAGE.all(read.all(from, INDEX_BATCH));
      for (const row of rows) {
        // A tool call is also found by its tool's name ("Bash", "Edit", an MCP tool).
        const text = row.tool === 1
          ? (row.tool_name ? row.tool_name + " " : "") + row.text.slice(0, TOOL_TEXT_INDEXED)
          : row.text;
        insert.run(row.id, text);
      }
      const last = rows.length === 0 ? from : rows[rows.length - 1].id;
      if (rows.length > 0) save.run(last);
      index.exec("COMMIT");
      if (rows.length < INDEX_BATCH) return last;
    } catch (error) {
      // SQLite may have rolled back by itself; the error that caused it is the one to report.
      if (index.isTransaction) {
        try {
          index.exec("ROLLBACK");
        } catch { /* the cause below is reported */ }
      }
      throw error;
    }
  }
}

const scope = workerScope<MessageIndexRequest, MessageIndexReply>();
let files: Files | undefined;

scope.onmessage = (event) => {
  const message = event.data;
  try {
    if (message.type === "open") {
      files = open(message.storePath, message.indexPath);
      scope.postMessage({ type: "opened" });
    } else if (files === undefined) {
      throw new Error("the message index worker was asked to index before opening its files");
    } else {
      scope.postMessage({ type: "indexed", to: catchUp(files) });
    }
  } catch (error) {
    scope.postMessage({
      type: "error",
      message: error instanceof Error ? error.message : String(error),
    });
  }
};
