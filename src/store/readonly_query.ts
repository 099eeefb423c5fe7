/**
 * One read-only SELECT against the store, with row and cell caps and a time
 * limit. The query runs in a worker on a read-only connection, so no text
 * can make it write, and a query past its deadline is stopped by
 * terminating the worker.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { QUERY_WORKER_SOURCE } from "./readonly_query_worker.ts";

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

/** Caps of one query. */
export interface QueryLimits {
  /** Most rows returned. */
  rowLimit: number;
  /** Most characters per cell. */
  cellChars: number;
  /** Deadline, ms. */
  timeoutMs: number;
}

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, (message: Record<string, unknown>) => void>();

function ensureWorker(): Worker {
  if (worker === undefined) {
    const url = `data:application/javascript;base64,${
      btoa(unescape(encodeURIComponent(QUERY_WORKER_SOURCE)))
    }`;
    worker = new Worker(url, { type: "module" });
    worker.onmessage = (event: MessageEvent<Record<string, unknown>>) => {
      const resolve = waiting.get(event.data.id as number);
      waiting.delete(event.data.id as number);
      resolve?.(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      // A crashed worker fails its queries; it must not take the server down with it.
      event.preventDefault();
      // The first line only: the rest is a stack through the worker's data URL.
      const message = `the query worker failed: ${String(event.message).split("\n")[0]}`;
      worker?.terminate();
      worker = undefined;
      for (const resolve of waiting.values()) resolve({ error: message });
      waiting.clear();
    };
  }
  return worker;
}

/** Stops the query worker (it starts again on the next query). */
export function stopQueryWorker(): void {
  worker?.terminate();
  worker = undefined;
  for (const resolve of waiting.values()) resolve({ error: "the query worker was stopped" });
  waiting.clear();
}

/**
 * Runs `sql` on a read-only connection to `databasePath`. Errors (a write
 * attempt, a syntax error, a second statement) come back as
 * `invalid_arguments` with SQLite's own words; the deadline as `timeout`.
 */
export async function runReadOnlyQuery(
  databasePath: string,
  sql: string,
  limits: QueryLimits,
): Promise<QueryResult> {
  const id = nextId++;
  const target = ensureWorker();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stopQueryWorker();
      reject(
        new VantageError(
          "timeout",
          `the query did not finish within ${limits.timeoutMs} ms and was stopped`,
        ),
      );
    }, limits.timeoutMs);
  });
  target.postMessage({
    id,
    path: databasePath,
    sql,
    rowLimit: limits.rowLimit,
    cellChars: limits.cellChars,
  });
  try {
    const message = await Promise.race([answer, deadline]);
    if (typeof message.error === "string") {
      throw new VantageError("invalid_arguments", `query refused: ${message.error}`);
    }
    const { id: _id, ...result } = message;
    return result as unknown as QueryResult;
  } finally {
    clearTimeout(timer);
    if (waiting.size === 0) {
      // An idle worker must not keep the process alive.
      (worker as unknown as { unref?: () => void } | undefined)?.unref?.();
    }
  }
}
