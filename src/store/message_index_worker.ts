/**
 * The source of the worker that keeps the message index up to date: it
 * reads messages past its cursor from the store (read-only) and indexes them
 * in the index file, committing rows and cursor together so a crash never
 * indexes a message twice or skips one. Started from a data URL, which needs
 * no read permission on Vantage's own files.
 *
 * @module
 */
import { MESSAGE_INDEX_SCHEMA, TOOL_TEXT_INDEXED } from "./message_index_schema.ts";

/** The worker's JavaScript source. */
export const MESSAGE_INDEX_WORKER_SOURCE: string = `
import { DatabaseSync } from "node:sqlite";

let store;
let index;

function open(storePath, indexPath) {
  store = new DatabaseSync(storePath, { readOnly: true, timeout: 5000 });
  index = new DatabaseSync(indexPath, { timeout: 5000 });
  index.exec("PRAGMA journal_mode = WAL");
  index.exec("PRAGMA synchronous = NORMAL");
  index.exec(${JSON.stringify(MESSAGE_INDEX_SCHEMA)});
}

function cursor() {
  const row = index.prepare("SELECT value FROM index_state WHERE key = 'indexed_to'").get();
  return row === undefined ? 0 : row.value;
}

// Indexes everything past the cursor in bounded transactions; returns the new cursor.
function catchUp() {
  const read = store.prepare(
    "SELECT id, message_type, tool_name, text FROM messages WHERE id > ? ORDER BY id LIMIT 500",
  );
  const insert = index.prepare("INSERT INTO messages_fts (rowid, text) VALUES (?, ?)");
  const save = index.prepare(
    "INSERT INTO index_state (key, value) VALUES ('indexed_to', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  for (;;) {
    index.exec("BEGIN IMMEDIATE");
    let last;
    try {
      // Read the cursor under the write lock: another process may be indexing the same store.
      const from = cursor();
      const rows = read.all(from);
      for (const row of rows) {
        const tool = row.message_type === "tool_use" || row.message_type === "tool_result";
        // A tool call is also found by its tool's name ("Bash", "Edit", an MCP tool).
        const text = tool ? (row.tool_name ? row.tool_name + " " : "") + row.text.slice(0, ${TOOL_TEXT_INDEXED}) : row.text;
        insert.run(row.id, text);
      }
      last = rows.length === 0 ? from : rows[rows.length - 1].id;
      if (rows.length > 0) save.run(last);
      index.exec("COMMIT");
      if (rows.length < 500) return last;
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

self.onmessage = (event) => {
  const message = event.data;
  try {
    if (message.type === "open") {
      open(message.storePath, message.indexPath);
      self.postMessage({ type: "opened" });
      return;
    }
    if (message.type === "kick") self.postMessage({ type: "indexed", to: catchUp() });
  } catch (error) {
    self.postMessage({ type: "error", message: error instanceof Error ? error.message : String(error) });
  }
};
`;
