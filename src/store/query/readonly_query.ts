/**
 * Read-only SELECTs against the store, with row and cell caps and a time
 * limit that really stops them. Each query runs in a query process
 * (`readonly_query_process.ts`) on a read-only connection, so no text can
 * make it write; a query past its deadline is stopped by killing its process
 * with SIGKILL, the only stop native `sqlite3_step` cannot outlive. A small
 * pool keeps one process warm and starts more when queries overlap, so a
 * runaway query holds one process while the others keep answering; a killed
 * process is replaced when the next query needs one.
 *
 * @module
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { isPermissionRefusal } from "../../core/permissions.ts";
import { VantageError } from "../../core/errors.ts";
import {
  type QueryAnswer,
  type QueryRequest,
  type QueryResult,
  readLines,
} from "./readonly_query_process.ts";

export type { QueryResult } from "./readonly_query_process.ts";

/** The time limit of a query when none is configured, ms. */
export const DEFAULT_QUERY_TIMEOUT_MS = 20_000;

/** Caps of one query, and what it may read. */
export interface QueryLimits {
  /**
   * The tables the query may read (see `readableTables` in
   * `query_tables.ts`); SQLite refuses a statement that reads any other.
   */
  tables: readonly string[];
  /** Most rows returned. */
  rowLimit: number;
  /** Most characters per cell. */
  cellChars: number;
  /** Deadline, ms, counted from the call (default: the runner's). */
  timeoutMs?: number;
}

/**
 * What runs read-only SQL for the operations, on whichever backend the process serves from:
 * SQLite's {@linkcode QueryRunner}, or PostgreSQL's runner (store/postgres/query). Both take
 * the same limits and answer the same grid, and refuse in the same words.
 */
export interface ReadOnlyQueries {
  /** Deadline of a query when the call names none, ms. */
  readonly timeoutMs: number;
  /**
   * Runs one SELECT reading only `limits.tables`. A write, a syntax error or a second
   * statement is `invalid_arguments`; a read of another table is `forbidden` with the table
   * in `details.table`; a query past its deadline is stopped and reported as `timeout`.
   */
  run(sql: string, limits: QueryLimits, signal?: AbortSignal): Promise<QueryResult>;
  /** Stops every query and frees what the runner holds; later queries fail. */
  close(): Promise<void>;
}

/** How to start one query process. */
export interface QueryProcessCommand {
  /** The executable. */
  program: string;
  /** Its arguments. */
  args: string[];
  /** Variables added to the inherited environment. */
  env?: Record<string, string>;
  /** The folder it runs in (default: the parent's). */
  cwd?: string;
}

/** Options of a {@linkcode QueryRunner}. */
export interface QueryRunnerOptions {
  /** The store to query. */
  databasePath: string;
  /** Deadline of a query, ms (default {@linkcode DEFAULT_QUERY_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Most query processes at once (default 3). */
  maxProcesses?: number;
  /** How long a process beyond the one kept warm stays idle before it is stopped, ms (default 10 s). */
  idleMs?: number;
  /** Largest answer a process may send, characters of JSON (default 64 Mi). */
  maxAnswerChars?: number;
  /** How to start a process (default {@linkcode queryProcessCommand}). */
  command?: QueryProcessCommand;
}

/**
 * The command that starts a query process for `databasePath`. Run from
 * source, it is Deno running the process module with read access to the
 * database folder and the watchdog's module, and nothing else; inside a compiled `vantage` (which
 * cannot take permission flags) it is the executable itself with the hidden
 * `query-worker` command. Either way the parent needs only
 * `--allow-run=<Deno.execPath()>`.
 *
 * @example
 * ```ts
 * import { queryProcessCommand } from "./readonly_query.ts";
 * queryProcessCommand("/tmp/vantage/vantage.db").program === Deno.execPath(); // true
 * ```
 */
export function queryProcessCommand(databasePath: string): QueryProcessCommand {
  const program = Deno.execPath();
  // The caller's folder may be gone or hold a deno.json; the data home is neither.
  const cwd = dirname(databasePath);
  if (Deno.build.standalone === true) {
    return { program, args: ["query-worker", databasePath], cwd };
  }
  const module = new URL("./readonly_query_process.ts", import.meta.url);
  const watchdog = new URL("./query_watchdog_worker.ts", import.meta.url);
  // A worker's module is read under the process's permissions; the process module itself is not.
  const read = watchdog.protocol === "file:" ? `${cwd},${fileURLToPath(watchdog)}` : cwd;
  return {
    program,
    args: [
      "run",
      // No deno.json or lock file applies: the module imports nothing but node:sqlite.
      "--no-config",
      "--no-prompt",
      `--allow-read=${read}`,
      module.protocol === "file:" ? fileURLToPath(module) : module.href,
      databasePath,
    ],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    cwd,
  };
}

/** What became of one request sent to a process. */
type Outcome = { answer: QueryAnswer } | { gone: string };

/** One query process: one request at a time, answered by one line. */
class QueryProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending: ((outcome: Outcome) => void) | undefined;
  #stderr = "";
  #gone: string | undefined;
  /** Stops an idle process beyond the warm one; set while it waits in the pool. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Resolves once the process has exited and its output is read. */
  readonly finished: Promise<void>;

  constructor(command: QueryProcessCommand, onGone: (process: QueryProcess) => void) {
    this.#child = new Deno.Command(command.program, {
      args: command.args,
      env: command.env,
      cwd: command.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    const answers = this.#readAnswers();
    const errors = this.#readErrors();
    this.finished = Promise.all([this.#child.status, answers, errors]).then(([status]) => {
      const how = status.signal !== null
        ? `killed by ${status.signal}`
        : `exit code ${status.code}`;
      const said = this.#stderr.trim().split("\n").slice(-3).join(" ").trim();
      this.#gone = said === "" ? how : `${how}: ${said}`;
      this.#settle({ gone: this.#gone });
      onGone(this);
    });
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Sends `request`; resolves with its answer, or how the process ended before answering. */
  ask(request: QueryRequest): Promise<Outcome> {
    if (this.#gone !== undefined) return Promise.resolve({ gone: this.#gone });
    const outcome = new Promise<Outcome>((resolve) => this.#pending = resolve);
    this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n")).catch(() => {
      // A process that died takes its pipe with it; `finished` reports how it ended.
    });
    return outcome;
  }

  /** Stops the process at once, in the middle of a query or not. */
  kill(): void {
    if (this.#gone !== undefined) return;
    // Whoever killed it may wait for `finished`: an unref'd process would let the event loop end first.
    this.ref();
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
  }

  /** Lets the parent exit while this process waits (an idle process must not keep it alive). */
  unref(): void {
    this.#child.unref();
  }

  /** Keeps the parent alive while this process works for it. */
  ref(): void {
    this.#child.ref();
  }

  #settle(outcome: Outcome): void {
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.(outcome);
  }

  async #readAnswers(): Promise<void> {
    try {
      for await (const line of readLines(this.#child.stdout)) {
        if (line.trim() === "") continue;
        let answer: QueryAnswer;
        try {
          answer = JSON.parse(line) as QueryAnswer;
        } catch {
          // Not ours (a runtime warning on stdout): a process that says it cannot be trusted.
          this.#stderr += `unreadable answer: ${line.slice(0, 200)}\n`;
          this.kill();
          return;
        }
        this.#settle({ answer });
      }
    } catch {
      // The pipe broke because the process was killed.
    }
  }

  async #readErrors(): Promise<void> {
    try {
      for await (const line of readLines(this.#child.stderr)) {
        // Only the end matters: it says why the process stopped.
        this.#stderr = (this.#stderr + line + "\n").slice(-2000);
      }
    } catch {
      // As above.
    }
  }
}

/** A query waiting for a process. */
interface Waiter {
  resolve(process: QueryProcess): void;
  reject(error: unknown): void;
}

/**
 * A pool of query processes for one store.
 *
 * @example
 * ```ts ignore
 * const runner = new QueryRunner({ databasePath: "/home/me/.vantage/vantage.db", timeoutMs: 5000 });
 * const grid = await runner.run("SELECT count(*) FROM sessions", {
 *   tables: ["sessions"],
 *   rowLimit: 10,
 *   cellChars: 200,
 * });
 * await runner.close();
 * ```
 */
export class QueryRunner implements ReadOnlyQueries {
  /** Deadline of a query when the call names none, ms. */
  readonly timeoutMs: number;
  readonly #command: QueryProcessCommand;
  readonly #maxProcesses: number;
  readonly #idleMs: number;
  readonly #maxAnswerChars: number;
  readonly #processes = new Set<QueryProcess>();
  readonly #idle: QueryProcess[] = [];
  readonly #waiters: Waiter[] = [];
  #nextId = 1;
  #closed = false;

  /** A runner; no process starts before the first query. */
  constructor(options: QueryRunnerOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.#command = options.command ?? queryProcessCommand(options.databasePath);
    this.#maxProcesses = Math.max(1, options.maxProcesses ?? 3);
    this.#idleMs = options.idleMs ?? 10_000;
    this.#maxAnswerChars = options.maxAnswerChars ?? 64 * 1024 * 1024;
  }

  /** The ids of the processes running now, busy or idle. */
  get pids(): number[] {
    return [...this.#processes].map((process) => process.pid);
  }

  /**
   * Runs `sql` in a query process. A write attempt, a syntax error or a
   * second statement is `invalid_arguments` with SQLite's own words; a read
   * of a table not in `limits.tables` is `forbidden` with the table in
   * `details.table`; a query still running at its deadline is killed with
   * its process and reported as `timeout`. `signal` stops it the same way.
   */
  async run(sql: string, limits: QueryLimits, signal?: AbortSignal): Promise<QueryResult> {
    if (this.#closed) throw new VantageError("unavailable", "the query runner has been closed");
    const timeoutMs = limits.timeoutMs ?? this.timeoutMs;
    const stop = new AbortController();
    const timer = setTimeout(() =>
      stop.abort(
        new VantageError(
          "timeout",
          `the query did not finish within ${timeoutMs} ms and was stopped`,
          { dispatched: true, details: { timeout_ms: timeoutMs } },
        ),
      ), timeoutMs);
    const onCancel = () => stop.abort(signal?.reason);
    if (signal?.aborted) onCancel();
    signal?.addEventListener("abort", onCancel, { once: true });
    const stopped = new Promise<never>((_, reject) => {
      const fail = () => reject(stop.signal.reason);
      if (stop.signal.aborted) fail();
      else stop.signal.addEventListener("abort", fail, { once: true });
    });
    stopped.catch(() => {});
    let busy: QueryProcess | undefined;
    try {
      busy = await this.#acquire(stop.signal);
      const outcome = await Promise.race([
        busy.ask({
          id: this.#nextId++,
          sql,
          tables: limits.tables,
          rowLimit: limits.rowLimit,
          cellChars: limits.cellChars,
          maxAnswerChars: this.#maxAnswerChars,
        }),
        stopped,
      ]);
      if ("gone" in outcome) {
        throw new VantageError(
          "internal_error",
          `the query process stopped before answering (${outcome.gone})`,
        );
      }
      this.#release(busy);
      busy = undefined;
      if ("error" in outcome.answer) {
        const { kind, message, table } = outcome.answer.error;
        throw new VantageError(kind, message, table === undefined ? {} : { details: { table } });
      }
      return outcome.answer.result;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCancel);
      // Still held here only when the query did not come back: its process cannot be trusted.
      if (busy !== undefined) this.#discard(busy);
    }
  }

  /** Kills every process; later queries fail. Resolves once they have exited. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new VantageError("unavailable", "the query runner has been closed");
    for (const waiter of this.#waiters.splice(0)) waiter.reject(closed);
    const processes = [...this.#processes];
    for (const process of processes) this.#discard(process);
    await Promise.all(processes.map((process) => process.finished));
  }

  #acquire(signal: AbortSignal): Promise<QueryProcess> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const idle = this.#idle.pop();
    if (idle !== undefined) {
      clearTimeout(idle.idleTimer);
      idle.idleTimer = undefined;
      idle.ref();
      return Promise.resolve(idle);
    }
    if (this.#processes.size < this.#maxProcesses) {
      try {
        return Promise.resolve(this.#spawn());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (process) => {
          signal.removeEventListener("abort", onAbort);
          resolve(process);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #spawn(): QueryProcess {
    let process: QueryProcess;
    try {
      process = new QueryProcess(this.#command, (gone) => this.#forget(gone));
    } catch (error) {
      const program = this.#command.program;
      if (isPermissionRefusal(error)) {
        throw new VantageError(
          "unavailable",
          `queries run in a separate process (so one past its time limit can be stopped), and starting ${program} was refused: allow it with --allow-run=${program}`,
          { cause: error },
        );
      }
      throw new VantageError(
        "unavailable",
        `the query process could not be started (${program}): ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
    this.#processes.add(process);
    return process;
  }

  /** Hands a process that answered to the next waiting query, or keeps it warm. */
  #release(process: QueryProcess): void {
    if (this.#closed || !this.#processes.has(process)) {
      process.kill();
      return;
    }
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      waiter.resolve(process);
      return;
    }
    process.unref();
    this.#idle.push(process);
    if (this.#idle.length > 1) {
      // One warm process answers the usual single query; the rest were for a burst.
      const timer = setTimeout(() => {
        if (this.#idle.includes(process) && this.#idle.length > 1) this.#discard(process);
      }, this.#idleMs);
      Deno.unrefTimer(timer);
      process.idleTimer = timer;
    }
  }

  /** Kills a process and takes it out of the pool at once. */
  #discard(process: QueryProcess): void {
    process.kill();
    this.#forget(process);
  }

  /** Takes a process that is gone (or going) out of the pool, and starts one for a waiting query. */
  #forget(process: QueryProcess): void {
    clearTimeout(process.idleTimer);
    process.idleTimer = undefined;
    const index = this.#idle.indexOf(process);
    if (index !== -1) this.#idle.splice(index, 1);
    if (!this.#processes.delete(process)) return;
    const waiter = this.#closed ? undefined : this.#waiters.shift();
    if (waiter === undefined) return;
    try {
      waiter.resolve(this.#spawn());
    } catch (error) {
      waiter.reject(error);
    }
  }
}
