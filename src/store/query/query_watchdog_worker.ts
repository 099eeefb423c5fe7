/**
 * The query process's watchdog (started by `exitWithParent` in
 * readonly_query_process.ts): a worker thread that kills its process once
 * the parent is gone, which it can do while the process's main thread is
 * stuck inside SQLite. Like the query process it imports nothing, so the
 * process needs read access to this one file and no other of Vantage's.
 *
 * @module
 */

/** The one message the watchdog takes: start watching, looking this often. */
export interface WatchdogStart {
  /** Milliseconds between looks at the parent process. */
  intervalMs: number;
}

// module_worker.ts's `workerScope` types this, but importing it would widen the process's reads.
const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<WatchdogStart>) => void) | null;
};
const parent = Deno.ppid;

scope.onmessage = (event) => {
  scope.onmessage = null;
  setInterval(() => {
    if (Deno.ppid !== parent) Deno.kill(Deno.pid, "SIGKILL");
  }, event.data.intervalMs);
};
