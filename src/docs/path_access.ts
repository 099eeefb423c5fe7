/**
 * Checks a path a caller gave (to add, restore into, write a document to, or
 * watch) against what this process may touch, before touching it. Deno's
 * permission set is the single source of truth: the shipped tasks grant only
 * the data home and `VANTAGE_ROOTS`, so anything else is refused with a
 * message naming the path and how to allow it.
 *
 * @module
 */
import { resolve } from "node:path";
import { VantageError } from "../core/errors.ts";
import { describeRefusedPath } from "../core/permissions.ts";

/**
 * Resolves `path` to an absolute path and throws `forbidden` unless this
 * process may `access` it. When the path exists and is a symbolic link, its
 * target is checked as well, so a link inside a root cannot reach outside.
 *
 * @example
 * ```ts ignore
 * const absolute = requirePathAccess("notes/todo.md", "read");
 * ```
 */
export function requirePathAccess(path: string, access: "read" | "write"): string {
  if (path.trim() === "") {
    throw new VantageError("invalid_arguments", `the ${access} path is empty`);
  }
  const absolute = resolve(path);
  assertGranted(absolute, access);
  let real: string | undefined;
  try {
    real = Deno.realPathSync(absolute);
  } catch {
    // A path that does not exist yet (an output folder) has nothing to resolve.
  }
  if (real !== undefined && real !== absolute) assertGranted(real, access);
  return absolute;
}

function assertGranted(path: string, access: "read" | "write"): void {
  const status = Deno.permissions.querySync({ name: access, path });
  if (status.state !== "granted") {
    throw new VantageError("forbidden", describeRefusedPath(path, access), {
      details: { path, access },
    });
  }
}

/** Whether this process may run `command` (e.g. `git`), without prompting. */
export function mayRun(command: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "run", command }).state === "granted";
  } catch {
    return false;
  }
}

/** Whether this process may connect to `host` (a host name, optionally with a port). */
export function mayConnect(host: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "net", host }).state === "granted";
  } catch {
    return false;
  }
}
