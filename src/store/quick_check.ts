/**
 * SQLite's structural check (`PRAGMA quick_check`) of the store and its
 * index files, run on a worker: it is one statement that reads every page
 * of a file, seconds on a large store, and cannot yield halfway, so on the
 * main thread it would stop every request for that long. Each file gets its
 * own read-only connection; a file SQLite cannot even open as a database
 * counts as damaged, one it cannot open for another reason (locked,
 * refused) as unchecked. The worker (quick_check_worker.ts) runs
 * {@linkcode checkFile} for each file.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { startModuleWorker } from "../core/module_worker.ts";
import { isCorruptionError } from "./sqlite_errors.ts";
import type { QuickCheckReply, QuickCheckRequest } from "./quick_check_worker.ts";

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

/**
 * Checks one file on a connection of its own, read-only: `missing` when
 * there is no such file, `damaged` when SQLite finds problems or cannot
 * read it as a database, `unchecked` when it cannot open it for another
 * reason. The structural check's worker runs this for each file.
 *
 * @example
 * ```ts ignore
 * checkFile("/home/me/.vantage/search.db").status; // "ok"
 * ```
 */
export function checkFile(path: string, maxErrors = QUICK_CHECK_MAX_ERRORS): FileCheck {
  try {
    Deno.statSync(path);
  } catch {
    return { path, status: "missing", problems: [] };
  }
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
    const problems = quickCheckConnection(db, maxErrors);
    return { path, status: problems.length === 0 ? "ok" : "damaged", problems };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      path,
      status: isCorruptionError(error) ? "damaged" : "unchecked",
      problems: [message],
    };
  } finally {
    try {
      db?.close();
    } catch { /* closing a damaged file may fail too; the check said why */ }
  }
}

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
  let worker: Worker;
  try {
    worker = startModuleWorker(new URL("./quick_check_worker.ts", import.meta.url), "quick check");
  } catch (error) {
    return Promise.reject(error);
  }
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
    worker.onmessage = (event: MessageEvent<QuickCheckReply>) => {
      finish();
      resolve(event.data);
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      finish();
      reject(new Error(`the structural check's worker failed: ${event.message}`));
    };
    const request: QuickCheckRequest = {
      paths: [...paths],
      maxErrors: options.maxErrors ?? QUICK_CHECK_MAX_ERRORS,
    };
    worker.postMessage(request);
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
