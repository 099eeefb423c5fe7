/**
 * The connection to a PostgreSQL store: a pool of the npm `postgres`
 * client's connections, and the small surface the store's modules use —
 * {@linkcode PgQueryable}: a prepared query, and a write that is one
 * transaction. A query run on the pool takes any free connection; inside a
 * write, every query runs on that write's connection.
 *
 * Numbers: PostgreSQL's `bigint` and `numeric` (what `count` and `sum`
 * answer) arrive as JavaScript numbers, as SQLite's integers do, so both
 * backends answer rows of the same types (times in ms stay far below 2^53).
 *
 * @module
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import postgres from "postgres";
import { VantageError } from "../../core/errors.ts";
import type { Row } from "../rows.ts";
import type { PostgresLocation } from "./store_url.ts";

/**
 * A parameter of a query: a value, bytes (a `bytea`), or an array (for `= ANY($n)` and
 * `unnest`; its elements are of the type the statement casts it to).
 */
export type PgValue =
  | string
  | number
  | boolean
  | null
  | Uint8Array
  | ReadonlyArray<string | number | null>;

/**
 * PostgreSQL's text cannot hold NUL, which SQLite stores: a NUL in a parameter becomes U+FFFD,
 * the replacement character (so a transcript that holds one is stored, not refused).
 */
function withoutNul(params: readonly PgValue[]): PgValue[] {
  const clean = (value: string) =>
    value.includes("\u0000") ? value.replaceAll("\u0000", "\ufffd") : value;
  return params.map((value) => {
    if (typeof value === "string") return clean(value);
    if (Array.isArray(value)) {
      return value.map((item: unknown) => typeof item === "string" ? clean(item) : item);
    }
    return value;
  }) as PgValue[];
}

/** How one statement runs. */
export interface QueryOptions {
  /**
   * False: planned afresh for its parameters every time (an unnamed statement). A named
   * prepared statement gets a generic plan after five runs, which for a statement whose best
   * plan depends on its parameters (how common a searched word is) can be many times slower.
   */
  prepare?: boolean;
}

/** What the store's modules run queries on: the pool, or one write's connection. */
export interface PgQueryable {
  /**
   * Runs one statement (prepared once per connection, unless `options.prepare` is false) with
   * `$1…` parameters; answers its rows.
   */
  query(text: string, params?: readonly PgValue[], options?: QueryOptions): Promise<Row[]>;
  /** Runs a script of several statements without parameters (DDL: migrations). */
  exec(script: string): Promise<void>;
  /**
   * Runs `work` as one transaction (on the pool: a new one; inside a write: that write), so a
   * store write of several statements commits together or not at all.
   */
  write<T>(work: (q: PgQueryable) => Promise<T>): Promise<T>;
  /**
   * Runs a `COPY … FROM STDIN` statement, streaming `chunks` (COPY's text format: rows as
   * lines of tab-separated fields, see copy_rows.ts) to it; one chunk is taken at a time, so
   * a large load is never held whole in memory.
   */
  copyIn(statement: string, chunks: Iterable<string>): Promise<void>;
}

/** How a pool is sized and bounded. */
export interface PgPoolOptions {
  /** Connections at most (default 10, or the URL's `pool_size`). */
  max?: number;
  /** Longest a statement may run, ms (default 30 s, or the URL's `statement_timeout`). */
  statementTimeoutMs?: number;
  /** Longest to wait for a connection, s (default 5, or the URL's `connect_timeout`). */
  connectTimeoutS?: number;
}

/** An open pool. */
export interface PgPool extends PgQueryable {
  /** Where it connects (password redacted). */
  readonly redacted: string;
  /** Longest to wait for the server, s. */
  readonly connectTimeoutS: number;
  /** The client, for what the surface above does not cover (COPY, listen/notify). */
  readonly sql: postgres.Sql<Record<string, never>>;
  /** Closes every connection, waiting at most `timeoutS` for running queries. */
  close(timeoutS?: number): Promise<void>;
}

/** Parses `bigint` and `numeric` as numbers (see the module note). */
const NUMBER_TYPES = {
  bigint: {
    to: 20,
    from: [20, 1700],
    serialize: (value: number) => String(value),
    parse: (raw: string) => Number(raw),
  },
};

/** A query that ran on `run`, with the client's errors turned into store errors. */
function queryOn(
  run: (text: string, params: PgValue[], prepare: boolean) => Promise<Row[]>,
  redacted: string,
): PgQueryable["query"] {
  return async (text, params = [], options = {}) => {
    try {
      // A plain array: the client's result list carries its own prototype and fields.
      return [...await run(text, withoutNul(params), options.prepare ?? true)];
    } catch (error) {
      throw pgFailure(error, redacted);
    }
  };
}

/** A COPY FROM STDIN on `run`'s connection, with the client's errors turned into store errors. */
function copyOn(
  run: (statement: string) => postgres.PendingQuery<postgres.Row[]>,
  redacted: string,
): PgQueryable["copyIn"] {
  return async (statement, chunks) => {
    try {
      await pipeline(Readable.from(chunks), await run(statement).writable());
    } catch (error) {
      throw pgFailure(error, redacted);
    }
  };
}

/** A write's view: queries on its transaction, nested writes joining it. */
function transactionQueryable(tx: postgres.TransactionSql, redacted: string): PgQueryable {
  const q: PgQueryable = {
    // The client's parameter type is wider than PgValue; these are the values it serializes.
    query: queryOn(
      (text, params, prepare) => tx.unsafe(text, params as never[], { prepare }),
      redacted,
    ),
    exec: async (script) => {
      await queryOn((text) => tx.unsafe(text), redacted)(script);
    },
    write: (work) => work(q),
    copyIn: copyOn((statement) => tx.unsafe(statement), redacted),
  };
  return q;
}

/**
 * Opens a pool to a PostgreSQL store. No connection is made until the first query (see
 * {@linkcode checkReachable}).
 *
 * @example
 * ```ts ignore
 * import { openPgPool } from "./connection.ts";
 * import { parseStoreLocation } from "./store_url.ts";
 * const location = parseStoreLocation("postgres://vantage@127.0.0.1/team");
 * if (location.kind === "postgres") {
 *   const pool = openPgPool(location, { max: 4 });
 *   await pool.query("SELECT 1 AS one"); // [{ one: 1 }]
 *   await pool.close();
 * }
 * ```
 */
export function openPgPool(location: PostgresLocation, options: PgPoolOptions = {}): PgPool {
  const max = options.max ?? location.poolSize ?? 10;
  const statementTimeout = options.statementTimeoutMs ?? location.statementTimeoutMs ?? 30_000;
  const connectTimeout = options.connectTimeoutS ?? location.connectTimeoutS ?? 5;
  const url = new URL(location.url);
  for (const name of ["pool_size", "statement_timeout", "connect_timeout"]) {
    url.searchParams.delete(name);
  }
  const sql = postgres(url.toString(), {
    // Stated, not left to the client's defaults from PGHOST, PGPORT, … (the URL is the truth).
    host: location.host,
    port: location.port,
    database: location.database,
    user: location.user,
    max,
    connect_timeout: connectTimeout,
    idle_timeout: 60,
    types: NUMBER_TYPES,
    // Server notices (a table that already exists, …) are not Vantage's output.
    onnotice: () => {},
    connection: {
      application_name: url.searchParams.get("application_name") ?? "vantage",
      statement_timeout: statementTimeout,
    },
  });
  const redacted = location.redacted;
  const pool: PgPool = {
    redacted,
    connectTimeoutS: connectTimeout,
    // The pool's custom types only change how values are parsed; the store reads rows as Row.
    sql: sql as unknown as postgres.Sql<Record<string, never>>,
    query: queryOn(
      (text, params, prepare) => sql.unsafe(text, params as never[], { prepare }),
      redacted,
    ),
    exec: async (script) => {
      await queryOn((text) => sql.unsafe(text), redacted)(script);
    },
    copyIn: copyOn((statement) => sql.unsafe(statement), redacted),
    async write(work) {
      for (let attempt = 1;; attempt++) {
        try {
          return await sql.begin((tx) => work(transactionQueryable(tx, redacted))) as Awaited<
            ReturnType<typeof work>
          >;
        } catch (error) {
          if (writeToRunAgain(error) && attempt < 8) {
            // A short random pause, so the writers that collided do not collide again.
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
            continue;
          }
          throw pgFailure(error, redacted);
        }
      }
    },
    // A connection still being attempted may not end when asked (an address that never
    // answers): closing gives up waiting after the timeout plus a second.
    close: (timeoutS = 5) =>
      withDeadline(sql.end({ timeout: timeoutS }), (timeoutS + 1) * 1000, () => undefined),
  };
  return pool;
}

/**
 * Whether a failed write is run again, whole: the work reads what it writes afresh, and every
 * record it writes has a key that counts it once, so a second run never counts twice.
 *
 * - A deadlock (`40P01`) or serialization failure (`40001`): two writers moved the same
 *   sessions' totals in different orders, and the server cancelled one.
 * - `UNSAFE_TRANSACTION` from the npm `postgres` client (3.4.9): it can send a transaction's
 *   `BEGIN` on a connection it had not reserved for it (porsager/postgres#823, #1189), and then
 *   fails the transaction before its work has run; on a team server about one hook in 15,000
 *   answered 500 that way under 50 concurrent writers.
 *
 * @example
 * ```ts
 * import { writeToRunAgain } from "./connection.ts";
 * writeToRunAgain({ code: "40P01" }); // true
 * writeToRunAgain({ code: "23505" }); // false
 * ```
 */
export function writeToRunAgain(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code ??
    (error as { details?: { code?: unknown } } | null)?.details?.code;
  return code === "40P01" || code === "40001" || code === "UNSAFE_TRANSACTION";
}

/** SQLSTATE classes that mean the server or the database cannot be used (not a bad query). */
const UNAVAILABLE_CODES = new Set([
  "08000", // connection_exception
  "08001", // could not connect
  "08003", // connection does not exist
  "08004", // rejected
  "08006", // connection failure
  "28000", // invalid authorization
  "28P01", // invalid password
  "3D000", // invalid catalog name: no such database
  "57P01", // admin shutdown
  "57P02", // crash shutdown
  "57P03", // cannot connect now (starting up, shutting down)
  "53300", // too many connections
]);

/** Node-style network error codes the client passes on. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

/**
 * A client error as a store error: the server unreachable or refusing is `unavailable`, a
 * statement cut by the statement timeout is `timeout`, anything else `internal_error` — each
 * naming the server (password redacted) and the cause.
 */
export function pgFailure(error: unknown, redacted: string): VantageError {
  if (error instanceof VantageError) return error;
  const code = typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : "";
  const message = error instanceof Error ? error.message : String(error);
  const details = { store: redacted, code };
  if (code === "57014") {
    return new VantageError("timeout", `PostgreSQL at ${redacted}: ${message}`, { details });
  }
  if (UNAVAILABLE_CODES.has(code) || NETWORK_CODES.has(code)) {
    return new VantageError(
      "unavailable",
      `PostgreSQL at ${redacted} cannot be used: ${describeUnavailable(code, message)}`,
      { details },
    );
  }
  return new VantageError("internal_error", `PostgreSQL at ${redacted}: ${message}`, { details });
}

function describeUnavailable(code: string, message: string): string {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (is the server running, on that host and port?)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve";
    case "CONNECT_TIMEOUT":
    case "ETIMEDOUT":
      return "no answer within the connect timeout";
    case "3D000":
      return `${message} (create it, or name an existing database)`;
    default:
      return message;
  }
}

/** `work`'s answer, or `late()`'s once `ms` pass first (the timer never outlives the race). */
function withDeadline<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Connects once and runs a trivial query: answers the server's version, or throws the
 * `unavailable` error that says what failed — within the pool's connect timeout even where
 * the network swallows the connection attempt (the client's own timer does not always end
 * one: measured, an address that never answers took the kernel's two minutes).
 */
export async function checkReachable(pool: PgPool): Promise<string> {
  const rows = await withDeadline(
    pool.query("SELECT current_setting('server_version') AS version"),
    pool.connectTimeoutS * 1000,
    () => {
      throw new VantageError(
        "unavailable",
        `PostgreSQL at ${pool.redacted} cannot be used: no answer within ${pool.connectTimeoutS} s`,
        { details: { store: pool.redacted, code: "CONNECT_TIMEOUT" } },
      );
    },
  );
  return String(rows[0]?.version ?? "unknown");
}
