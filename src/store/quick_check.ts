/**
 * SQLite's structural check (`PRAGMA quick_check`) of the store and its
 * index files, run on a worker: it is one statement that reads every page
 * of a file, seconds on a large store, and cannot yield halfway, so on the
 * main thread it would stop every request for that long. Each file gets its
 * own read-only connection; a file SQLite cannot even open as a database
 * counts as damaged, one it cannot open for another reason (locked,
 * refused) as unchecked.
 *
 * @module
 */
import { type DatabaseSync, isCorruptionError } from "./database.ts";

/** What the check found in one file. */
export interface FileCheck {
  /** The file. */
  path: string;
  /** `ok`, `damaged`, `missing`, or `unchecked` (it could not be opened for another reason). */
  status: "ok" | "damaged" | "missing" | "unchecked";
  /** SQLite's words for each problem (empty when ok). */
  problems: string[];
}

/** Problems listed per file at most. */
export const QUICK_CHECK_MAX_ERRORS = 20;

const WORKER_SOURCE = `
import { DatabaseSync } from "node:sqlite";

const CORRUPT = /database disk image is malformed|file is not a database|malformed database schema/i;

function check(path, maxErrors) {
  try {
    Deno.statSync(path);
  } catch {
    return { path, status: "missing", problems: [] };
  }
  let db;
  try {
    db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
    const rows = db.prepare("PRAGMA quick_check(" + maxErrors + ")").all();
    const problems = rows.map((row) => String(Object.values(row)[0])).filter((text) => text !== "ok");
    return { path, status: problems.length === 0 ? "ok" : "damaged", problems };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { path, status: CORRUPT.test(message) ? "damaged" : "unchecked", problems: [message] };
  } finally {
    try {
      if (db !== undefined) db.close();
    } catch { /* closing a damaged file may fail too; the check said why */ }
  }
}

self.onmessage = (event) => {
  const { paths, maxErrors } = event.data;
  self.postMessage(paths.map((path) => check(path, maxErrors)));
};
`;

/**
 * Checks `paths` on a worker, in order; a file that does not exist is
 * `missing`. Aborting `signal` stops the worker and rejects with its reason.
 *
 * @example
 * ```ts ignore
 * const [store] = await quickCheckFiles(["/home/me/.vantage/vantage.db"]);
 * store.status; // "ok"
 * ```
 */
export function quickCheckFiles(
  paths: readonly string[],
  options: { signal?: AbortSignal; maxErrors?: number } = {},
): Promise<FileCheck[]> {
  if (paths.length === 0) return Promise.resolve([]);
  const signal = options.signal;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const url = `data:application/javascript;base64,${
    btoa(unescape(encodeURIComponent(WORKER_SOURCE)))
  }`;
  const worker = new Worker(url, { type: "module" });
  return new Promise<FileCheck[]>((resolve, reject) => {
    const finish = () => {
      signal?.removeEventListener("abort", onAbort);
      worker.terminate();
    };
    const onAbort = () => {
      finish();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.onmessage = (event: MessageEvent<FileCheck[]>) => {
      finish();
      resolve(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      finish();
      reject(new Error(`the structural check's worker failed: ${event.message}`));
    };
    worker.postMessage({
      paths: [...paths],
      maxErrors: options.maxErrors ?? QUICK_CHECK_MAX_ERRORS,
    });
  });
}

/**
 * Runs the check on an open connection, on this thread (for an in-memory
 * store, which no other connection can reach).
 */
export function quickCheckConnection(
  db: DatabaseSync,
  maxErrors = QUICK_CHECK_MAX_ERRORS,
): string[] {
  try {
    const rows = db.prepare(`PRAGMA quick_check(${maxErrors})`).all();
    return rows.map((row) => String(Object.values(row)[0])).filter((text) => text !== "ok");
  } catch (error) {
    if (!isCorruptionError(error)) throw error;
    return [error instanceof Error ? error.message : String(error)];
  }
}
