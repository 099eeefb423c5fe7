/**
 * The query process: the program a `QueryRunner` starts to run agent-written
 * SELECTs away from the server. SQLite's `sqlite3_step` cannot be interrupted
 * from JavaScript (Deno's `node:sqlite` offers neither `sqlite3_interrupt`
 * nor a progress handler, and terminating a worker does not stop native
 * code), so a query past its time limit is stopped by killing the process
 * that runs it.
 *
 * The process opens the store read-only and `query_only`, so SQLite itself
 * refuses any write; it reads one JSON request per line on its input and
 * answers each with one JSON line. Each request names the tables its caller
 * may read, and an authorizer installed for it makes SQLite refuse, while it
 * compiles the statement, any read of another table — through a view, a
 * subquery or a CTE alike, since SQLite asks about the tables underneath —
 * and anything but reading (ATTACH, most pragmas, loading code). It imports
 * nothing but `node:sqlite`, so it starts quickly and needs no permission
 * beyond reading the database folder and its watchdog's module
 * (query_watchdog_worker.ts, which imports nothing either).
 *
 * Run from source as `deno run --allow-read=<database folder>,<watchdog
 * module> <this module> <database>`, or inside a compiled `vantage` as
 * `vantage query-worker <database>`.
 *
 * @module
 */
import { constants, DatabaseSync } from "node:sqlite";
import type { WatchdogStart } from "./query_watchdog_worker.ts";

/**
 * One query to run. Options a later caller needs are added here as
 * optional fields.
 */
export interface QueryRequest {
  /** Echoed in the answer. */
  id: number;
  /** The statement, as the caller wrote it. */
  sql: string;
  /** The tables the statement may read, lower case; every other table is refused. */
  tables: readonly string[];
  /** Most rows returned. */
  rowLimit: number;
  /** Most characters per cell. */
  cellChars: number;
  /** Most characters of the answer's JSON line; a larger result is refused. */
  maxAnswerChars: number;
}

/** The result grid. */
export interface QueryResult {
  /** Column names. */
  columns: string[];
  /** Rows, as arrays in column order. */
  rows: unknown[][];
  /** Rows returned. */
  row_count: number;
  /** More rows existed than the limit. */
  truncated: boolean;
  /** Some cells were cut to the character cap. */
  cells_truncated: boolean;
  /** Time spent in SQLite, ms. */
  execution_ms: number;
}

/** Why a query was not run or its result not sent. */
export interface QueryRefusal {
  /** An error kind of `VantageError` (kept as a string: this module imports nothing). */
  kind: "invalid_arguments" | "result_too_large" | "forbidden";
  /** What was wrong, in SQLite's own words where SQLite refused. */
  message: string;
  /** For `forbidden`: the table the statement may not read. */
  table?: string;
}

/** One answer line. */
export type QueryAnswer = { id: number; result: QueryResult } | { id: number; error: QueryRefusal };

/**
 * Opens `path` for queries: read-only and `query_only`, so no statement can
 * write through this connection whatever its text.
 *
 * @example
 * ```ts ignore
 * const db = openQueryConnection("/home/me/.vantage/vantage.db");
 * ```
 */
export function openQueryConnection(path: string): DatabaseSync {
  const db = new DatabaseSync(path, { readOnly: true, timeout: 2000 });
  db.exec("PRAGMA query_only = 1");
  return db;
}

/** What the authorizer refused first while a statement was compiled. */
export type QueryDenial =
  | {
    /** A table (or table-valued function) the request does not name. */
    what: "table";
    /** Its name, lower case. */
    table: string;
    /** The column read, empty when the whole row counts (`count(*)`, `EXISTS`). */
    column: string;
    /** The view or pragma the read went through, when not the statement itself. */
    via?: string;
  }
  | {
    /** A pragma, a function or a kind of statement no query may use. */
    what: "pragma" | "function" | "action";
    /** Its name. */
    name: string;
  };

/**
 * The pragmas a query may use, as table-valued functions on a table it may
 * read (`SELECT * FROM pragma_table_info('sessions')`): each describes one
 * table's columns, indexes or keys, never its rows.
 */
export const TABLE_PRAGMAS: readonly string[] = [
  "table_info",
  "table_xinfo",
  "index_list",
  "foreign_key_list",
];

// Table-valued functions that read nothing but their own arguments.
const ARGUMENT_TABLES: ReadonlySet<string> = new Set([
  "json_each",
  "json_tree",
  "jsonb_each",
  "jsonb_tree",
]);

// Functions that load code or touch files where a build has them (node:sqlite refuses
// load_extension already; the file functions belong to SQLite's shell and extensions).
const REFUSED_FUNCTIONS: ReadonlySet<string> = new Set([
  "load_extension",
  "readfile",
  "writefile",
  "edit",
  "lsdir",
  "sqlite_dbdata",
  "sqlite_dbptr",
]);

// The authorizer's codes, from node:sqlite at run time (its typings lag behind it).
const SQLITE = constants as unknown as Record<string, number>;
const OK = SQLITE.SQLITE_OK;
const DENY = SQLITE.SQLITE_DENY;
// Every other SQLITE_ constant but the changeset ones is an action code: name them for messages.
const ACTION_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(SQLITE)
    .filter(([key]) =>
      key.startsWith("SQLITE_") && !key.startsWith("SQLITE_CHANGESET_") &&
      !["SQLITE_OK", "SQLITE_DENY", "SQLITE_IGNORE"].includes(key)
    )
    .map(([key, code]) => [code, key.slice("SQLITE_".length).replaceAll("_", " ")]),
);

/** The authorizer callback as `node:sqlite` calls it. */
type Authorizer = (
  action: number,
  first: string | null,
  second: string | null,
  database: string | null,
  inner: string | null,
) => number;

/**
 * The names a query's FROM could mean as stored things: tables, views and
 * virtual table modules (`dbstat`, …), lower case. Anything else it names
 * is a CTE of its own.
 */
function storedNames(db: DatabaseSync): Set<string> {
  const names = new Set([
    "sqlite_master",
    "sqlite_schema",
    "sqlite_temp_master",
    "sqlite_temp_schema",
  ]);
  const rows = db.prepare(
    "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') UNION SELECT name FROM pragma_module_list",
  ).all();
  for (const { name } of rows) if (typeof name === "string") names.add(name.toLowerCase());
  return names;
}

/**
 * Lets statements prepared on `db` from now on read only `tables` (lower
 * case), the few pragmas' worth of schema on those tables, and the
 * table-valued functions that read only their arguments; any other table,
 * pragma, refused function or statement other than a SELECT makes SQLite
 * refuse the statement while compiling it. SQLite asks about every table a
 * view, subquery, CTE or trigger reads underneath, so none is a way around.
 * Returns what was refused first since, if anything.
 *
 * @example
 * ```ts ignore
 * const refused = restrictQuery(db, ["sessions"]);
 * try { db.prepare("SELECT data FROM docs_chunks"); } catch { refused(); } // { what: "table", table: "docs_chunks", column: "data" }
 * ```
 */
export function restrictQuery(
  db: DatabaseSync,
  tables: readonly string[],
): () => QueryDenial | undefined {
  const allowed = new Set(tables.map((table) => table.toLowerCase()));
  // Read with no authorizer: the previous request's would refuse the catalog it needs.
  setAuthorizer(db, null);
  const stored = storedNames(db);
  let denial: QueryDenial | undefined;
  const deny = (refused: QueryDenial): number => {
    denial ??= refused;
    return DENY;
  };
  const authorize: Authorizer = (action, first, second, database, inner) => {
    switch (action) {
      case SQLITE.SQLITE_SELECT:
      case SQLITE.SQLITE_RECURSIVE:
        return OK;
      case SQLITE.SQLITE_READ: {
        const table = (first ?? "").toLowerCase();
        const column = second ?? "";
        // Only the store itself: an attached file (were ATTACH ever let through) or temp is not it.
        if (database !== null && database !== "main") {
          return deny({ what: "table", table: `${database}.${table}`, column });
        }
        if (allowed.has(table) || ARGUMENT_TABLES.has(table)) return OK;
        // A FROM item none of whose columns is used (`count(*) FROM x`) is asked about with no
        // column and no database; when it names no stored thing it is the statement's own CTE,
        // whose reads were asked about on their own. (A CTE named like a table is refused.)
        if (
          column === "" && database === null && !stored.has(table) && !table.startsWith("pragma_")
        ) {
          return OK;
        }
        if (table.startsWith("pragma_")) {
          const pragma = table.slice("pragma_".length);
          // The pragma's own check below asks about the table it describes.
          return TABLE_PRAGMAS.includes(pragma) ? OK : deny({ what: "pragma", name: pragma });
        }
        return deny(
          inner === null
            ? { what: "table", table, column }
            : { what: "table", table, column, via: inner },
        );
      }
      case SQLITE.SQLITE_PRAGMA: {
        const pragma = (first ?? "").toLowerCase();
        if (!TABLE_PRAGMAS.includes(pragma)) return deny({ what: "pragma", name: pragma });
        const table = (second ?? "").toLowerCase();
        if (allowed.has(table)) return OK;
        return deny({ what: "table", table, column: "", via: `pragma_${pragma}` });
      }
      case SQLITE.SQLITE_FUNCTION: {
        const name = (second ?? "").toLowerCase();
        return REFUSED_FUNCTIONS.has(name) ? deny({ what: "function", name }) : OK;
      }
      default:
        return deny({ what: "action", name: ACTION_NAMES.get(action) ?? `action ${action}` });
    }
  };
  setAuthorizer(db, authorize);
  return () => denial;
}

function setAuthorizer(db: DatabaseSync, callback: Authorizer | null): void {
  (db as unknown as { setAuthorizer(callback: Authorizer | null): void }).setAuthorizer(callback);
}

function refusalOf(denial: QueryDenial): QueryRefusal {
  switch (denial.what) {
    case "table": {
      const read = denial.column === "" ? denial.table : `${denial.table}.${denial.column}`;
      const via = denial.via === undefined ? "" : ` (through ${denial.via})`;
      return {
        kind: "forbidden",
        message:
          `query refused: it reads ${read}${via}, and ${denial.table} is not a table this query may read`,
        table: denial.table,
      };
    }
    case "pragma":
      return {
        kind: "invalid_arguments",
        message: `query refused: the pragma ${denial.name} is not available to queries; ${
          TABLE_PRAGMAS.map((name) => `pragma_${name}('<table>')`).join(", ")
        } are, on the tables the query may read`,
      };
    case "function":
      return {
        kind: "invalid_arguments",
        message: `query refused: the function ${denial.name}() is not available to queries`,
      };
    case "action":
      return {
        kind: "invalid_arguments",
        message: `query refused: ${denial.name} is not allowed in a query; it may only read`,
      };
  }
}

const LEADING_TRIVIA = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;
const TRIVIA = /--[^\n]*|\/\*[\s\S]*?\*\/|[\s;]/g;

function leadingKeyword(sql: string): string {
  const body = sql.replace(LEADING_TRIVIA, "");
  return (/^[A-Za-z]+/.exec(body)?.[0] ?? "").toUpperCase();
}

function capCell(value: unknown, cellChars: number): { value: unknown; cut: boolean } {
  if (typeof value === "string") {
    // Counted in code points, so a cut never splits a surrogate pair.
    const chars = [...value];
    if (chars.length <= cellChars) return { value, cut: false };
    return { value: chars.slice(0, cellChars).join("") + "…", cut: true };
  }
  if (value instanceof Uint8Array) return { value: `<blob ${value.length} bytes>`, cut: false };
  if (typeof value === "bigint") return { value: value.toString(), cut: false };
  return { value, cut: false };
}

function refuse(id: number, message: string): QueryAnswer {
  return { id, error: { kind: "invalid_arguments", message: `query refused: ${message}` } };
}

function runQuery(db: DatabaseSync, request: QueryRequest): QueryResult | string {
  const keyword = leadingKeyword(request.sql);
  if (keyword !== "SELECT" && keyword !== "WITH" && keyword !== "VALUES") {
    return `only one SELECT statement is accepted; this one starts with '${keyword || "nothing"}'`;
  }
  const started = performance.now();
  // Prepared as written first: SQLite reports syntax errors in the caller's own text, and says
  // where the first statement ends.
  const statement = db.prepare(request.sql);
  const first = statement.sourceSQL;
  if (request.sql.slice(first.length).replace(TRIVIA, "") !== "") {
    return "only one statement is accepted; remove everything after the first ';'";
  }
  // Run as a subquery: only a query can stand there (a write, even behind WITH or with
  // RETURNING, is a syntax error), and SQLite applies the row cap; the extra row shows truncation.
  // The newlines end a trailing `--` comment before the closing parenthesis.
  const body = first.replace(/;\s*$/, "");
  const wrapped = db.prepare(`SELECT * FROM (\n${body}\n) LIMIT ${request.rowLimit + 1}`);
  // Arrays keep every column, even two with the same name; the typings lag behind the runtime.
  (wrapped as unknown as { setReturnArrays(enabled: boolean): void }).setReturnArrays(true);
  const columns = wrapped.columns().map((column) => column.name);
  const found = wrapped.all() as unknown as unknown[][];
  let cellsTruncated = false;
  const rows = found.slice(0, request.rowLimit).map((row) =>
    row.map((cell) => {
      const capped = capCell(cell, request.cellChars);
      if (capped.cut) cellsTruncated = true;
      return capped.value;
    })
  );
  return {
    columns,
    rows,
    row_count: rows.length,
    truncated: found.length > request.rowLimit,
    cells_truncated: cellsTruncated,
    execution_ms: Math.round(performance.now() - started),
  };
}

/**
 * Runs one request on `db` and returns its answer line (without the
 * newline). A statement SQLite refuses, or that is not one SELECT, is an
 * `invalid_arguments` refusal carrying SQLite's message; one that reads a
 * table the request does not name is a `forbidden` refusal naming it.
 *
 * @example
 * ```ts ignore
 * const db = openQueryConnection(path);
 * answerQuery(db, {
 *   id: 1, sql: "SELECT 1", tables: ["sessions"], rowLimit: 10, cellChars: 100, maxAnswerChars: 1e6,
 * });
 * ```
 */
export function answerQuery(db: DatabaseSync, request: QueryRequest): string {
  let answer: QueryAnswer;
  let refused: (() => QueryDenial | undefined) | undefined;
  try {
    // Installed before anything is prepared: SQLite asks it while compiling each statement.
    refused = restrictQuery(db, request.tables ?? []);
    const outcome = runQuery(db, request);
    answer = typeof outcome === "string"
      ? refuse(request.id, outcome)
      : { id: request.id, result: outcome };
  } catch (error) {
    // SQLite's own words ("not authorized") do not say what was refused; the authorizer knows.
    const denial = refused?.();
    answer = denial !== undefined
      ? { id: request.id, error: refusalOf(denial) }
      : refuse(request.id, error instanceof Error ? error.message : String(error));
  }
  const line = JSON.stringify(answer);
  if (line.length <= request.maxAnswerChars) return line;
  // The parent would have to hold all of it: refuse here, where only this process pays.
  return JSON.stringify(
    {
      id: request.id,
      error: {
        kind: "result_too_large",
        message:
          `the query's result is ${line.length} characters of JSON, more than the ${request.maxAnswerChars} a query may return; ask for fewer rows or shorter cells (row_limit, cell_chars)`,
      },
    } satisfies QueryAnswer,
  );
}

/**
 * The lines of a byte stream, without their newlines; a last line without
 * a newline is yielded too. Long lines are joined once, not grown chunk by
 * chunk.
 *
 * @example
 * ```ts ignore
 * for await (const line of readLines(Deno.stdin.readable)) console.error(line);
 * ```
 */
export async function* readLines(input: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let parts: string[] = [];
  for await (const chunk of input.pipeThrough(new TextDecoderStream())) {
    let start = 0;
    let end = chunk.indexOf("\n");
    while (end !== -1) {
      parts.push(chunk.slice(start, end));
      yield parts.join("");
      parts = [];
      start = end + 1;
      end = chunk.indexOf("\n", start);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  }
  if (parts.length > 0) yield parts.join("");
}

/**
 * Serves requests read from `input` on a read-only connection to
 * `databasePath`, one at a time, writing one answer line each to `output`,
 * until `input` ends.
 *
 * @example
 * ```ts ignore
 * await serveQueryProcess(Deno.args[0], Deno.stdin.readable, Deno.stdout.writable);
 * ```
 */
export async function serveQueryProcess(
  databasePath: string,
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): Promise<void> {
  const db = openQueryConnection(databasePath);
  const writer = output.getWriter();
  const encoder = new TextEncoder();
  try {
    for await (const line of readLines(input)) {
      if (line.trim() === "") continue;
      const request = JSON.parse(line) as QueryRequest;
      await writer.write(encoder.encode(answerQuery(db, request) + "\n"));
    }
  } finally {
    writer.releaseLock();
    db.close();
  }
}

/** How often the watchdog looks whether the parent is still there, ms. */
const WATCHDOG_INTERVAL_MS = 500;

/**
 * Kills this process once its parent is gone. The parent kills a query past
 * its deadline, but a parent that crashed or was killed cannot, and a
 * runaway query would then spin on with nobody to answer; a worker thread
 * still runs while the main thread is inside SQLite. Returns the function
 * that stops watching (so the process can end when its input does).
 *
 * @example
 * ```ts ignore
 * const stopWatching = exitWithParent();
 * await serveQueryProcess(path, Deno.stdin.readable, Deno.stdout.writable);
 * stopWatching();
 * ```
 */
export function exitWithParent(): () => void {
  // Not startModuleWorker: this module imports nothing. A watchdog that cannot start (its
  // module unreadable) fails the process loudly rather than leaving it unwatched.
  const watchdog = new Worker(new URL("./query_watchdog_worker.ts", import.meta.url), {
    type: "module",
    name: "query watchdog",
  });
  const start: WatchdogStart = { intervalMs: WATCHDOG_INTERVAL_MS };
  watchdog.postMessage(start);
  return () => watchdog.terminate();
}

if (import.meta.main) {
  const databasePath = Deno.args[0];
  if (databasePath === undefined) throw new Error("usage: readonly_query_process.ts <database>");
  const stopWatching = exitWithParent();
  try {
    await serveQueryProcess(databasePath, Deno.stdin.readable, Deno.stdout.writable);
  } finally {
    stopWatching();
  }
}
