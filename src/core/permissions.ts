/**
 * The Deno permission set each Vantage command runs with. One function
 * computes it, so the shipped tasks, the command an installer registers, the
 * compiled executable and the tests all agree — and none of them is `-A`.
 *
 * @module
 */
import { delimiter, join } from "node:path";
import { readEnv, type VantagePaths } from "./config.ts";

/** The commands that run with their own permission set. */
export type PermissionProfile = "serve" | "mcp-serve" | "hook" | "cli";

/** The agent folders the server reads (transcripts, configs). */
export function agentFolders(userHome: string): string[] {
  return [".claude", ".codex", ".copilot", ".openclaw"].map((name) => join(userHome, name));
}

/**
 * Document roots the user opted into with `VANTAGE_ROOTS` (a path list
 * separated like `PATH`): folders whose files may be added to memory or
 * restored into.
 */
export function documentRoots(): string[] {
  const raw = readEnv("VANTAGE_ROOTS");
  if (raw === undefined) return [];
  return raw.split(delimiter).map((entry) => entry.trim()).filter((entry) => entry !== "");
}

/**
 * The folder holding Vantage's own modules, when they are local files: the
 * CLI imports each command module only when it runs (so the hook, started
 * on every agent tool call, loads almost nothing), and Deno asks for read
 * permission on modules loaded that way, as it does for the modules of
 * Vantage's workers (see `startModuleWorker`).
 */
export function programRoot(): string | undefined {
  const url = new URL("../..", import.meta.url);
  if (url.protocol !== "file:") return undefined;
  return decodeURIComponent(url.pathname).replace(/\/$/, "");
}

/**
 * The heap settings `serve` runs with: a small young generation and an old
 * generation limit make V8 collect the garbage of a large backfill promptly
 * instead of growing the heap (peak resident memory on a 200 MB backfill
 * drops from about 300-400 MB to about 200 MB, at the same speed).
 */
export const SERVE_V8_FLAGS = "--v8-flags=--max-semi-space-size=4,--max-old-space-size=512";

/**
 * The `deno run` permission flags for one command (for `serve` also its
 * heap settings, {@linkcode SERVE_V8_FLAGS}), scoped to the data home,
 * the agents' folders, the document roots, Vantage's own modules (read),
 * loopback, and starting this same Deno: the hook starts the server with it,
 * and the others run each SQL query in a child process of it, so a query
 * past its time limit can be killed.
 *
 * @example
 * ```ts
 * import { permissionFlags } from "./permissions.ts";
 * import { resolvePaths } from "./config.ts";
 * permissionFlags("mcp-serve", resolvePaths("/tmp/vantage"))[0]; // "--allow-read=<program>,/tmp/vantage"
 * ```
 */
export function permissionFlags(
  profile: PermissionProfile,
  paths: VantagePaths,
  roots: readonly string[] = documentRoots(),
  store: string | undefined = readEnv("VANTAGE_STORE"),
): string[] {
  const agents = agentFolders(paths.userHome);
  const program = programRoot();
  const read = program === undefined ? [paths.home] : [program, paths.home];
  const write = [paths.home];
  const flags: string[] = [];
  if (profile === "serve" || profile === "cli") read.push(...agents);
  if (profile !== "hook") {
    read.push(...roots);
    write.push(...roots);
  }
  flags.push(`--allow-read=${unique(read).join(",")}`);
  flags.push(`--allow-write=${unique(write).join(",")}`);
  // A PostgreSQL store (team mode): serve and the CLI (`vantage team`) may reach its server, and
  // read the PG* variables its client reads as libpq does (PGPASSWORD, PGSSLMODE, …).
  const database = profile === "serve" || profile === "cli" ? postgresTarget(store) : undefined;
  if (profile === "serve" || profile === "hook" || profile === "cli") {
    // A team server: `vantage sync` pushes to it, `serve --upstream` forwards hooks to it.
    const team = profile === "hook" ? [] : teamHosts();
    const net = ["127.0.0.1", "localhost", ...team];
    if (database !== undefined) net.push(database);
    flags.push(`--allow-net=${unique(net).join(",")}`);
  }
  flags.push(
    database === undefined ? "--allow-env=HOME,VANTAGE_*" : "--allow-env=HOME,VANTAGE_*,PG*",
  );
  // The hook names the machine it runs on to the server, which records it with each event, and
  // so does `vantage sync` with what it pushes.
  if (profile === "hook" || profile === "cli") flags.push("--allow-sys=hostname");
  // git for the server's sensors; the runtime itself for the hook (which starts the server when
  // none answers) and for exec_query (whose query processes are this runtime).
  const self = Deno.execPath();
  flags.push(`--allow-run=${profile === "serve" ? `git,${self}` : self}`);
  if (profile === "serve") flags.push(SERVE_V8_FLAGS);
  return flags;
}

/**
 * The `host:port` of a PostgreSQL store URL (`postgres://…`), for `--allow-net`; undefined for
 * SQLite or a value that is not such a URL (serve itself says what is wrong with it).
 *
 * @example
 * ```ts
 * import { postgresTarget } from "./permissions.ts";
 * postgresTarget("postgres://me@db.internal/team"); // "db.internal:5432"
 * postgresTarget(undefined); // undefined
 * ```
 */
export function postgresTarget(store: string | undefined): string | undefined {
  if (store === undefined) return undefined;
  try {
    const url = new URL(store);
    if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") return undefined;
    if (url.hostname === "") return undefined;
    return `${url.hostname}:${url.port === "" ? "5432" : url.port}`;
  } catch {
    return undefined;
  }
}

/**
 * The hosts (with their ports, when given) of the team server named by `VANTAGE_TEAM_URL` and
 * of the upstream named by `VANTAGE_UPSTREAM`: a team member's `vantage sync` and `serve
 * --upstream` connect to them. A value that is not a URL adds nothing (the command says why).
 */
export function teamHosts(): string[] {
  const hosts: string[] = [];
  for (const name of ["VANTAGE_TEAM_URL", "VANTAGE_UPSTREAM"]) {
    const value = readEnv(name);
    if (value === undefined) continue;
    try {
      const url = new URL(value.trim());
      if (url.protocol === "http:" || url.protocol === "https:") hosts.push(url.host);
    } catch {
      // Not a URL: nothing to allow.
    }
  }
  return hosts;
}

/**
 * A clear message for a Deno permission refusal on `path`, naming what the
 * process may read and how to widen it.
 */
export function describeRefusedPath(path: string, access: "read" | "write"): string {
  return `${access} access to ${path} was refused: it is outside the folders Vantage may ${access} ` +
    `(the data home, the agents' folders and VANTAGE_ROOTS); add its folder to VANTAGE_ROOTS and restart`;
}

/** Whether an error is Deno's permission refusal. */
export function isPermissionRefusal(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
