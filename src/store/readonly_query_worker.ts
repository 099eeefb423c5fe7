/**
 * The source of the worker that runs one agent-written SELECT, so a runaway
 * query can be stopped by terminating the worker without stalling the
 * server. The connection is read-only and `query_only`: SQLite itself
 * refuses writes. The worker is started from a data URL, which needs no
 * read permission on Vantage's own files (a compiled or sandboxed process
 * may not have it).
 *
 * @module
 */

/** The worker's JavaScript source. */
export const QUERY_WORKER_SOURCE: string = `
import { DatabaseSync } from "node:sqlite";

const connections = new Map();

function connection(path) {
  let db = connections.get(path);
  if (db === undefined) {
    db = new DatabaseSync(path, { readOnly: true, timeout: 2000 });
    db.exec("PRAGMA query_only = 1");
    connections.set(path, db);
  }
  return db;
}

// Comments and whitespace only: nothing follows the statement.
function onlyTrivia(text) {
  return text.replace(/--[^\\n]*|\\/\\*[\\s\\S]*?\\*\\/|[\\s;]/g, "") === "";
}

function firstKeyword(sql) {
  const body = sql.replace(/^(\\s+|--[^\\n]*\\n?|\\/\\*[\\s\\S]*?\\*\\/)+/, "");
  return ((/^[A-Za-z]+/.exec(body) || [""])[0]).toUpperCase();
}

function cap(value, cellChars) {
  if (typeof value === "string") {
    const chars = [...value];
    return chars.length > cellChars ? [chars.slice(0, cellChars).join("") + "…", true] : [value, false];
  }
  if (value instanceof Uint8Array) return ["<blob " + value.length + " bytes>", false];
  if (typeof value === "bigint") return [value.toString(), false];
  return [value, false];
}

function run(request) {
  const keyword = firstKeyword(request.sql);
  if (keyword !== "SELECT" && keyword !== "WITH" && keyword !== "VALUES") {
    return { error: "only one SELECT statement is accepted; this one starts with '" + (keyword || "nothing") + "'" };
  }
  const started = performance.now();
  const db = connection(request.path);
  const statement = db.prepare(request.sql);
  const rest = request.sql.slice(statement.sourceSQL.length);
  if (!onlyTrivia(rest)) {
    return { error: "only one statement is accepted; remove everything after the first ';'" };
  }
  // Wrapped as a subquery, so only a query can run (a write, even behind WITH or with RETURNING, is
  // a syntax error there) and SQLite itself applies the row cap; the extra row reveals truncation.
  const body = statement.sourceSQL.replace(/;\\s*$/, "");
  const wrapped = db.prepare("SELECT * FROM (\\n" + body + "\\n) LIMIT " + (request.rowLimit + 1));
  wrapped.setReturnArrays(true);
  const columns = wrapped.columns().map((column) => column.name);
  const all = wrapped.all();
  const truncated = all.length > request.rowLimit;
  let cellsCut = false;
  const rows = all.slice(0, request.rowLimit).map((row) =>
    row.map((value) => {
      const [capped, cut] = cap(value, request.cellChars);
      if (cut) cellsCut = true;
      return capped;
    })
  );
  return {
    columns,
    rows,
    row_count: rows.length,
    truncated,
    cells_truncated: cellsCut,
    execution_ms: Math.round(performance.now() - started),
  };
}

self.onmessage = (event) => {
  const request = event.data;
  try {
    self.postMessage({ id: request.id, ...run(request) });
  } catch (error) {
    self.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
};
`;
