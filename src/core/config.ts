/**
 * Where Vantage keeps its data and where its server listens, resolved from
 * the environment once per call so tests can point each process elsewhere.
 *
 * @module
 */

/** Joins path parts with the platform's separator (no node:path: this module is on the hook's hot path). */
export function joinPath(...parts: string[]): string {
  const separator = Deno.build.os === "windows" ? "\\" : "/";
  return parts
    .map((
      part,
      index,
    ) => (index === 0 ? part.replace(/[\\/]+$/, "") : part.replace(/^[\\/]+|[\\/]+$/g, "")))
    .filter((part, index) => part !== "" || index === 0)
    .join(separator);
}

/** The default port of `vantage serve`. */
export const DEFAULT_PORT = 14300;

/** The default bind address: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";

/** Resolved locations and addresses. */
export interface VantagePaths {
  /** The data home (`VANTAGE_HOME`, default `~/.vantage`). */
  home: string;
  /** The SQLite database file. */
  database: string;
  /** Where hook payloads wait when the server cannot take them. */
  spool: string;
  /** File-backed prompt templates (`PROMPT-*.md`; `VANTAGE_PROMPTS` overrides). */
  prompts: string;
  /** The user's home directory (agent config lives below it). */
  userHome: string;
}

/** Reads one environment variable, treating a missing permission as unset. */
export function readEnv(name: string): string | undefined {
  try {
    const value = Deno.env.get(name);
    return value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}

/** The user's home directory, or the system temp folder when HOME is unset. */
export function userHomeDirectory(): string {
  return readEnv("HOME") ?? readEnv("USERPROFILE") ?? "/tmp";
}

/**
 * Resolves the data home and the files inside it.
 *
 * @example
 * ```ts
 * import { resolvePaths } from "./config.ts";
 * const paths = resolvePaths();
 * paths.database.endsWith("vantage.db"); // true
 * ```
 */
export function resolvePaths(homeOverride?: string): VantagePaths {
  const userHome = userHomeDirectory();
  const home = homeOverride ?? readEnv("VANTAGE_HOME") ?? joinPath(userHome, ".vantage");
  return {
    home,
    database: joinPath(home, "vantage.db"),
    spool: joinPath(home, "spool", "hooks.jsonl"),
    prompts: readEnv("VANTAGE_PROMPTS") ?? joinPath(home, "prompts"),
    userHome,
  };
}

/**
 * The server's base URL for clients (hooks, doctor): `VANTAGE_URL`, else
 * `http://127.0.0.1:<VANTAGE_PORT|14300>`.
 */
export function serverUrl(): string {
  const explicit = readEnv("VANTAGE_URL");
  if (explicit !== undefined) return explicit.replace(/\/+$/, "");
  return `http://${DEFAULT_HOST}:${configuredPort()}`;
}

/** The port from `VANTAGE_PORT`, or the default when unset or not a port number. */
export function configuredPort(): number {
  const raw = readEnv("VANTAGE_PORT");
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_PORT;
}
