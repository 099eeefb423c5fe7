/**
 * Workers that are Vantage's own module files. Each worker is a module
 * named `*_worker.ts` that imports the very functions the main thread uses
 * (so `deno check` and `deno lint` see its code like any other), started
 * with `new URL("./x_worker.ts", import.meta.url)`. Deno loads a worker's
 * modules under the permissions of the thread that starts it, so the
 * process needs read access to Vantage's program folder (every shipped
 * permission set has it, see `programRoot`); a compiled `vantage` carries
 * the worker modules inside (`deno task compile` includes them) and needs
 * none.
 *
 * A worker loads its whole import graph when it starts, and Node's built-in
 * modules are slow to load there: `node:fs` adds about 30-50 ms to a
 * worker's start, `node:path` and `node:url` about 10 ms each (`node:sqlite`
 * next to nothing). So worker modules, and what they import, use none of
 * them (a test checks), and this module imports only errors.ts.
 *
 * @module
 */
import { VantageError } from "./errors.ts";

/**
 * The worker's side of its messages, as a module started by
 * {@linkcode startModuleWorker} sees its global scope. Deno type-checks
 * Vantage's modules with the window's types, which lack a worker's
 * `onmessage` and `postMessage`; this names the two a worker uses, typed
 * by what it receives (`In`) and sends (`Out`).
 */
export interface WorkerScope<In, Out> {
  /** Called with each message the starting thread posts. */
  onmessage: ((event: MessageEvent<In>) => void) | null;
  /** Sends a message to the starting thread, moving the `transfer` buffers. */
  postMessage(message: Out, transfer?: Transferable[]): void;
}

/**
 * The global scope of the worker this module runs in, typed by its
 * messages. Call it only from a worker module: on the main thread there is
 * no one to post to.
 *
 * @example
 * ```ts ignore
 * const scope = workerScope<{ n: number }, number>();
 * scope.onmessage = (event) => scope.postMessage(event.data.n + 1);
 * ```
 */
export function workerScope<In, Out>(): WorkerScope<In, Out> {
  return globalThis as unknown as WorkerScope<In, Out>;
}

/**
 * Starts the worker module at `module` (a `file:` URL beside the caller,
 * written `new URL("./x_worker.ts", import.meta.url)`), named `name` in
 * Deno's error messages. Throws a `VantageError` of kind `unavailable` at
 * once when this process may not read the module, instead of a worker that
 * fails later: callers that can do without the worker then carry on
 * without it.
 *
 * @example
 * ```ts ignore
 * const worker = startModuleWorker(new URL("./checkpoint_worker.ts", import.meta.url), "checkpoint");
 * ```
 */
export function startModuleWorker(module: URL, name: string): Worker {
  // A compiled executable loads its embedded modules without asking for permission.
  if (module.protocol === "file:" && Deno.build.standalone !== true) {
    if (Deno.permissions.querySync({ name: "read", path: module }).state !== "granted") {
      throw new VantageError(
        "unavailable",
        `the ${name} worker cannot start: this process may not read its module ` +
          `${decodeURIComponent(module.pathname)} (grant read access to Vantage's program folder)`,
      );
    }
  }
  return new Worker(module, { type: "module", name });
}
