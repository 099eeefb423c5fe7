/**
 * Read-only SQL on a PostgreSQL store: the counterpart of SQLite's query
 * processes (readonly_query.ts), with the same limits, answers and refusals.
 *
 * Each query takes a connection of its own small pool (three, as SQLite
 * runs three query processes), so a slow query never holds a connection
 * the store's writes need, and runs in a `READ ONLY` transaction with
 * `SET LOCAL statement_timeout` at the runner's limit and `SET LOCAL ROLE`
 * to the role of the caller's scopes (query_roles.ts), inside that role's
 * SECURITY DEFINER function, where PostgreSQL refuses to change the role
 * back. The server enforces everything that matters: the role reads only
 * the tables its scopes open, the transaction writes nothing, the timeout
 * cancels the statement. The transaction always rolls back (so not even a
 * `pg_notify` leaves it), and `DISCARD ALL` afterwards clears whatever a
 * query left on its connection (a session setting, an advisory lock).
 *
 * A statement past its limit is cancelled by the server; if the server does
 * not answer, the runner cancels it a second later, and drops the pool when
 * even that goes unanswered. Refusals read as SQLite's do: `forbidden`
 * naming the table, `invalid_arguments` for a write, a second statement, a
 * function no query may call, `timeout` at the limit.
 *
 * @module
 */
import type postgres from "postgres";
import { VantageError } from "../../../core/errors.ts";
import type { QueryLimits, ReadOnlyQueries } from "../../query/readonly_query.ts";
import { DEFAULT_QUERY_TIMEOUT_MS } from "../../query/readonly_query.ts";
import type { QueryResult } from "../../query/readonly_query_process.ts";
import { openPgPool, pgFailure, type PgPool } from "../connection.ts";
import type { PostgresLocation } from "../store_url.ts";
import { type QueryRole, quoteIdent, roleFor } from "./query_roles.ts";
import { leadingKeyword, splitFirstStatement, writeKeyword } from "./statement_text.ts";

/** Options of a {@linkcode PgQueryRunner}. */
export interface PgQueryRunnerOptions {
  /** The store. */
  location: PostgresLocation;
  /** The roles queries run as (from `prepareQueryRoles`). */
  roles: readonly QueryRole[];
  /** Deadline of a query, ms (default {@linkcode DEFAULT_QUERY_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Connections for queries at most (default 3). */
  maxConnections?: number;
  /** Largest answer, characters of JSON (default 64 Mi, as SQLite's). */
  maxAnswerChars?: number;
  /** Longest to wait for the server when connecting, s (default the URL's, or 5). */
  connectTimeoutS?: number;
}

/** PostgreSQL's type id of `bytea`: such a cell answers its size, as a SQLite blob does. */
const BYTEA = 17;

/** How long past its limit a query may stay unanswered before the runner cancels it, ms. */
const CANCEL_GRACE_MS = 1000;

/** How long a cancelled query may stay unanswered before its pool is dropped, ms. */
const DROP_GRACE_MS = 3000;

/** Error classes that are the store's trouble, not the statement's (resources, system, internal). */
const STORE_TROUBLE = /^(53|58|XX)/;

function refused(message: string): VantageError {
  return new VantageError("invalid_arguments", `query refused: ${message}`);
}

function timedOut(timeoutMs: number): VantageError {
  return new VantageError(
    "timeout",
    `the query did not finish within ${timeoutMs} ms and was stopped`,
    { dispatched: true, details: { timeout_ms: timeoutMs } },
  );
}

/** Numbers past 2^53 as their digits (as SQLite's runner answers its big integers). */
function parseRow(text: string): unknown[] {
  const row = JSON.parse(
    text,
    (_key, value, context?: { source?: string }) =>
      typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)
        ? context?.source ?? value
        : value,
  );
  return Array.isArray(row) ? row : [];
}

/**
 * A server error as the refusal a caller sees, in SQLite's runner's words where the two say
 * the same thing, and PostgreSQL's own otherwise.
 */
function refusalOf(
  error: unknown,
  statement: string,
  role: QueryRole,
  redacted: string,
): VantageError {
  const code = typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : "";
  const message = error instanceof Error ? error.message : String(error);
  if (!/^[0-9A-Z]{5}$/.test(code) || STORE_TROUBLE.test(code) || /^(08|28|3D|57P)/.test(code)) {
    return pgFailure(error, redacted);
  }
  const relation =
    /^permission denied for (?:table|view|materialized view|foreign table|sequence|relation) (.+)$/
      .exec(message);
  if (code === "42501" && relation !== null) {
    const table = relation[1].toLowerCase();
    if (role.tables.includes(table)) {
      // The role reads it: what was refused is more than reading (a row lock).
      return refused(
        `it asks for more than reading ${table} (a row lock: FOR UPDATE or FOR SHARE); a query may only read`,
      );
    }
    return new VantageError(
      "forbidden",
      `query refused: it reads ${table}, and ${table} is not a table this query may read`,
      { details: { table } },
    );
  }
  const fn = /^permission denied for function (.+)$/.exec(message);
  if (code === "42501" && fn !== null) {
    return refused(`the function ${fn[1]}() is not available to queries`);
  }
  const setting = /^cannot set parameter "(.+)" within security-definer function$/.exec(message);
  if (code === "42501" && setting !== null) {
    return refused(
      `a query may not change ${setting[1]}; it runs as a read-only role and stays one`,
    );
  }
  const write = /^cannot execute (.+) in a read-only transaction$/.exec(message);
  if (code === "25006" && write !== null) {
    return refused(`${write[1]} is not allowed in a query; it may only read`);
  }
  if (code === "42601" && /multiple commands/.test(message)) {
    return refused("only one statement is accepted; remove everything after the first ';'");
  }
  // A statement that parsed on its own but not as a subquery is a write behind WITH, or
  // SELECT … INTO: say which, as SQLite does, rather than "syntax error" in the wrapper.
  if (
    (code === "42601" && /INTO is not allowed|syntax error/.test(message)) ||
    (code === "0A000" && /data-modifying/.test(message))
  ) {
    const keyword = writeKeyword(statement);
    if (keyword !== undefined) {
      return refused(`${keyword} is not allowed in a query; it may only read`);
    }
  }
  return refused(message);
}

/**
 * Runs read-only SQL on a PostgreSQL store, as the role of the caller's scopes.
 *
 * @example
 * ```ts ignore
 * const runner = new PgQueryRunner({ location, roles: state.roles, timeoutMs: 5000 });
 * const grid = await runner.run("SELECT count(*) FROM sessions", {
 *   tables: readableTables((scope) => scope === "agent:read"),
 *   rowLimit: 10,
 *   cellChars: 200,
 * });
 * await runner.close();
 * ```
 */
export class PgQueryRunner implements ReadOnlyQueries {
  /** Deadline of a query when the call names none, ms. */
  readonly timeoutMs: number;
  readonly #location: PostgresLocation;
  readonly #roles: readonly QueryRole[];
  readonly #maxConnections: number;
  readonly #maxAnswerChars: number;
  readonly #connectTimeoutS: number | undefined;
  #pool: PgPool | undefined;
  #closed = false;

  /** A runner; no connection is made before the first query. */
  constructor(options: PgQueryRunnerOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.#location = options.location;
    this.#roles = options.roles;
    this.#maxConnections = Math.max(1, options.maxConnections ?? 3);
    this.#maxAnswerChars = options.maxAnswerChars ?? 64 * 1024 * 1024;
    this.#connectTimeoutS = options.connectTimeoutS;
  }

  /**
   * Runs `sql` as the role whose tables are `limits.tables`. A write, a second statement or
   * a refused function is `invalid_arguments`; a read of a table the role may not read is
   * `forbidden` with the table in `details.table`; a query still running at its deadline is
   * cancelled and reported as `timeout`. `signal` stops it the same way.
   */
  async run(sql: string, limits: QueryLimits, signal?: AbortSignal): Promise<QueryResult> {
    if (this.#closed) throw new VantageError("unavailable", "the query runner has been closed");
    const timeoutMs = limits.timeoutMs ?? this.timeoutMs;
    const keyword = leadingKeyword(sql);
    if (keyword !== "SELECT" && keyword !== "WITH" && keyword !== "VALUES") {
      throw refused(
        `only one SELECT statement is accepted; this one starts with '${keyword || "nothing"}'`,
      );
    }
    const { statement, more } = splitFirstStatement(sql);
    if (more) {
      throw refused("only one statement is accepted; remove everything after the first ';'");
    }
    const role = roleFor(this.#roles, limits.tables);
    if (role === undefined) {
      throw new VantageError(
        "internal_error",
        `no query role reads exactly the tables given (${limits.tables.join(", ")})`,
      );
    }

    const stop = new AbortController();
    // The server cancels the statement at the limit; this cancels it if the server did not.
    const timer = setTimeout(() => stop.abort(timedOut(timeoutMs)), timeoutMs + CANCEL_GRACE_MS);
    const onCancel = () => stop.abort(signal?.reason);
    if (signal?.aborted) onCancel();
    signal?.addEventListener("abort", onCancel, { once: true });
    let current: { cancel(): unknown } | undefined;
    let dropTimer: ReturnType<typeof setTimeout> | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      const onStop = () => {
        current?.cancel();
        dropTimer = setTimeout(() => reject(stop.signal.reason), DROP_GRACE_MS);
      };
      if (stop.signal.aborted) onStop();
      else stop.signal.addEventListener("abort", onStop, { once: true });
    });
    abandoned.catch(() => {});
    /** Waits for one step, cancellable by `query`; a step the server never answers is abandoned. */
    const step = <T>(query: { cancel(): unknown }, answer: PromiseLike<T>): Promise<T> => {
      current = query;
      if (stop.signal.aborted) query.cancel();
      return Promise.race([answer, abandoned]);
    };

    const pool = this.#openPool();
    let reserved: postgres.ReservedSql | undefined;
    let clean = false;
    try {
      const reserving = pool.sql.reserve();
      // Waiting for a connection ends at once when the query is stopped: nothing runs yet.
      const stopped = new Promise<never>((_, reject) => {
        const fail = () => reject(stop.signal.reason);
        if (stop.signal.aborted) fail();
        else stop.signal.addEventListener("abort", fail, { once: true });
      });
      stopped.catch(() => {});
      reserved = await Promise.race([reserving, stopped]).catch((error) => {
        // A connection that arrives after the query gave up goes back to the pool.
        reserving.then((late) => late.release(), () => {});
        throw stop.signal.aborted ? stop.signal.reason : pgFailure(error, pool.redacted);
      });
      const r = reserved;
      const started = performance.now();
      const begin = r.unsafe(
        `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, timeoutMs)}; ` +
          `SET LOCAL ROLE ${quoteIdent(role.name)}`,
      );
      await step(begin, begin);
      // Parsed as the role, alone: the server says whether it is one statement, and its columns.
      const describing = r.unsafe(statement);
      const described = describing.describe();
      const { columns } = await step(describing, described) as unknown as {
        columns: Array<{ name: string; type: number }> | null;
      };
      const names = (columns ?? []).map((column) => column.name);
      const blobs = (columns ?? []).flatMap((column, at) => column.type === BYTEA ? [at + 1] : []);
      const query = r.unsafe(
        `SELECT row FROM ${role.runFunction}($1, $2, $3, $4) AS row`,
        [statement, limits.rowLimit, limits.cellChars, `{${blobs.join(",")}}`],
        // Unnamed: DISCARD ALL drops named statements, which the client would think still there.
        { prepare: false },
      );
      const found: unknown[][] = [];
      let chars = 0;
      await step(
        query,
        (async () => {
          for await (const batch of query.cursor(100)) {
            for (const { row } of batch) {
              const text = typeof row === "string" ? row : "[]";
              chars += text.length + 1;
              if (chars > this.#maxAnswerChars) {
                throw new VantageError(
                  "result_too_large",
                  `the query's result is more than the ${this.#maxAnswerChars} characters of JSON a query may return; ask for fewer rows or shorter cells (row_limit, cell_chars)`,
                );
              }
              found.push(parseRow(text));
            }
          }
        })(),
      );
      const rollback = r.unsafe("ROLLBACK");
      await step(rollback, rollback);
      clean = true;
      let cellsTruncated = false;
      const rows = found.slice(0, limits.rowLimit).map((row) =>
        row.map((cell) => {
          if (typeof cell !== "string") return cell;
          // Counted in code points, as the server's left() cut them.
          const chars = [...cell];
          if (chars.length <= limits.cellChars) return cell;
          cellsTruncated = true;
          return chars.slice(0, limits.cellChars).join("") + "…";
        })
      );
      return {
        columns: names,
        rows,
        row_count: rows.length,
        truncated: found.length > limits.rowLimit,
        cells_truncated: cellsTruncated,
        execution_ms: Math.round(performance.now() - started),
      };
    } catch (error) {
      if (stop.signal.aborted) throw stop.signal.reason;
      if (error instanceof VantageError) throw error;
      const code = (error as { code?: unknown })?.code;
      // The server's own limit: the statement was cancelled at statement_timeout.
      if (code === "57014") throw timedOut(timeoutMs);
      throw refusalOf(error, statement, role, pool.redacted);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCancel);
      await this.#settle(reserved, clean, stop.signal, pool);
      clearTimeout(dropTimer);
    }
  }

  /**
   * Ends the query's transaction and clears its connection for the next query; a connection
   * the server stopped answering takes its pool with it.
   */
  async #settle(
    reserved: postgres.ReservedSql | undefined,
    clean: boolean,
    stopped: AbortSignal,
    pool: PgPool,
  ): Promise<void> {
    if (reserved === undefined) return;
    const settle = async () => {
      if (!clean) await reserved.unsafe("ROLLBACK").catch(() => {});
      await reserved.unsafe("DISCARD ALL");
    };
    try {
      await Promise.race([
        settle(),
        new Promise((_, reject) => {
          const wait = stopped.aborted ? DROP_GRACE_MS : DROP_GRACE_MS + this.timeoutMs;
          const timer = setTimeout(() => reject(new Error("no answer")), wait);
          Deno.unrefTimer(timer);
        }),
      ]);
      reserved.release();
    } catch {
      // A connection that cannot be cleared must not serve another query.
      if (this.#pool === pool) this.#pool = undefined;
      await pool.close(0).catch(() => {});
    }
  }

  #openPool(): PgPool {
    this.#pool ??= openPgPool(this.#location, {
      max: this.#maxConnections,
      ...(this.#connectTimeoutS !== undefined ? { connectTimeoutS: this.#connectTimeoutS } : {}),
    });
    return this.#pool;
  }

  /** Closes the runner's connections; later queries fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.close(1);
  }
}

/**
 * Read-only SQL where it cannot run (the connecting user may not make the query roles): every
 * query is refused `unavailable` with the reason, never run unconfined.
 */
export function unavailableQueries(reason: string, timeoutMs?: number): ReadOnlyQueries {
  return {
    timeoutMs: timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    run: () =>
      Promise.reject(
        new VantageError("unavailable", reason, {
          details: { store: "postgres", part: "read-only SQL" },
        }),
      ),
    close: () => Promise.resolve(),
  };
}
