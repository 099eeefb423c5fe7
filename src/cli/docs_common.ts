/**
 * What the friendly document commands (`add`, `search`, `grep`, `get`,
 * `ls`, `restore`, `rm`) share: running one `docs` operation through the
 * same executor as every other surface, and reading common flags.
 *
 * @module
 */
import { writeStdout } from "./output.ts";
import { VantageError } from "../core/errors.ts";
import { catalogForOperation } from "../ops/builtin_index.ts";
import { executeOperation, failureOf } from "../ops/executor.ts";
import { readEnv } from "../core/config.ts";
import { providePostgresStore } from "../ops/postgres_services.ts";
import { queryTimeoutMs, vantageServices } from "../ops/runtime.ts";
import { parseStoreLocation } from "../store/postgres/store_url.ts";
import { callerFromFlags } from "./caller.ts";

/**
 * Runs `operationId` with `args` for the CLI caller and returns its result;
 * any failure becomes a thrown error the CLI turns into one line and an
 * exit code. The store is the data home's SQLite file, or the PostgreSQL
 * server `store` (a `--store` flag) or `VANTAGE_STORE` names.
 */
export async function runDocsOperation(
  operationId: string,
  args: Record<string, unknown>,
  scopes: string | boolean | undefined,
  store?: string,
): Promise<Record<string, unknown>> {
  const location = parseStoreLocation(
    store ?? readEnv("VANTAGE_STORE"),
    store === undefined ? "VANTAGE_STORE" : "--store",
  );
  const services = vantageServices();
  // Loaded only for a PostgreSQL store: the client is no part of a SQLite command.
  const opened = location.kind === "postgres"
    ? await (await import("../store/postgres/postgres_store.ts")).openPostgresStore(location, {
      max: 2,
      queryTimeoutMs: queryTimeoutMs(),
    })
    : undefined;
  if (opened !== undefined) providePostgresStore(services, opened);
  try {
    const response = await executeOperation(
      await catalogForOperation(operationId),
      operationId,
      args,
      callerFromFlags(scopes),
      { services },
    );
    const failure = failureOf(response);
    if (failure === undefined) return (response as { result: Record<string, unknown> }).result;
    throw new VantageError(failure.kind, failure.message);
  } finally {
    services.close();
    await opened?.close();
  }
}

/** The flags every document command takes: the scopes it acts with, and JSON output. */
export const OUTPUT_FLAGS = {
  scopes: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The flags of the commands that can keep to a document session (`search`, `grep`, `ls`). */
export const SESSION_FLAGS = {
  session: { type: "string" },
  "use-session": { type: "boolean" },
} as const;

/**
 * The `--help` lines of the shared flags (the session ones when `session`),
 * each description starting at `column` as the command's own lines do;
 * `json` words what `--json` prints when it is more than the result.
 */
export function sharedFlagsHelp(
  column: number,
  options: { session?: boolean; json?: string } = {},
): string {
  const lines: Array<[string, string]> = [];
  if (options.session === true) {
    lines.push(["--session NAME", "Only documents of this session"]);
    lines.push(["--use-session", "Only documents of the current session"]);
  }
  lines.push(["--scopes LIST", "Act with these scopes (default: all local scopes)"]);
  lines.push(["--json", options.json ?? "Print the operation's result as JSON"]);
  lines.push(["-h, --help", "Show this help"]);
  return lines.map(([flag, text]) => `  ${flag.padEnd(column - 2)}${text}`).join("\n");
}

/** Sets an operation's document-session scope from `--session` and `--use-session`. */
export function setSessionScope(
  params: Record<string, unknown>,
  values: Record<string, string | boolean | undefined>,
): void {
  setDefined(params, "session", stringFlag(values.session));
  if (values["use-session"] === true) params.use_session = true;
}

/** Reads a positive integer flag, naming the flag when the value is not one. */
export function integerFlag(
  name: string,
  value: string | boolean | undefined,
  min = 0,
): number | undefined {
  if (value === undefined || typeof value === "boolean") return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) {
    throw new VantageError(
      "invalid_arguments",
      `--${name} must be an integer of at least ${min}; got '${value}'`,
    );
  }
  return number;
}

/** Reads a string flag (undefined when absent). */
export function stringFlag(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Splits a comma-separated flag into a list (undefined when absent). */
export function listFlag(value: string | boolean | undefined): string[] | undefined {
  if (typeof value !== "string") return undefined;
  return value.split(",").map((item) => item.trim()).filter((item) => item !== "");
}

/** Sets `key` on `target` only when `value` is defined (so the operation's defaults apply). */
export function setDefined(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}

/** Human-readable byte count. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/**
 * Prints an operation's result the way `--json` and `--paths-only` ask for:
 * the whole result as JSON, or one stored path per line. Returns whether it
 * printed, so the command prints its own table otherwise.
 */
export function printJsonOrPaths(result: Record<string, unknown>, json: boolean): boolean {
  if (json) {
    writeStdout(JSON.stringify(result, null, 2) + "\n");
    return true;
  }
  if (Array.isArray(result.paths)) {
    for (const path of result.paths as string[]) writeStdout(path + "\n");
    return true;
  }
  return false;
}
