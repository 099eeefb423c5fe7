/**
 * `vantage doctor`'s checks: for each agent Vantage is installed in, that
 * its config parses, holds the `vantage` server, that the command exists and
 * the server answers `initialize` and `tools/list`, and that the hooks are
 * registered, and that the telemetry settings an `--otel` install wrote
 * still point at `serve` and are accepted there; and whether the Vantage
 * server answers at `VANTAGE_URL`. Each failed check says how to fix it.
 *
 * A `deno run` command is started with `--cached-only` added, so the check
 * downloads nothing and tells a cold cache (the command would start, but
 * only after downloading its dependencies, past an agent's start-up limit)
 * from a broken command.
 *
 * @module
 */
import { delimiter, isAbsolute, join } from "node:path";
import { serverUrl } from "../core/config.ts";
import { adapterFor } from "./adapters.ts";
import { ADAPTER_NAMES, type AdapterName, type ServerEntry } from "./agent.ts";
import { autostartPath } from "./autostart.ts";
import type { DoctorCheck } from "./doctor_check.ts";
import type { InstallEnvironment } from "./environment.ts";
import { readInstallRecord } from "./install_record.ts";
import { shellWords } from "./launch_command.ts";
import { probeMcpServer } from "./mcp_probe.ts";
import { checkTelemetrySettings } from "./otel_check.ts";

export type { CheckStatus, DoctorCheck } from "./doctor_check.ts";

/** The checks of one agent. */
export interface AdapterReport {
  /** The adapter. */
  adapter: AdapterName;
  /** The agent's name. */
  title: string;
  /** Whether Vantage is installed in it (an entry in its config, or an install record). */
  installed: boolean;
  /** The checks, in order. */
  checks: DoctorCheck[];
}

/** Everything `doctor` found. */
export interface DoctorReport {
  /** True when at least one agent has Vantage installed and no check failed. */
  ok: boolean;
  /** The Vantage server's health endpoint. */
  server: DoctorCheck & { url: string };
  /** The autostart service file, when there is one. */
  autostart?: string;
  /** One report per agent. */
  adapters: AdapterReport[];
}

/** What `doctor` checks. */
export interface DoctorOptions {
  /** Only these agents (default: all four). */
  adapters?: AdapterName[];
  /** Time budget for each MCP server to answer `initialize` (default 10 s). */
  probeTimeoutMs?: number;
  /** Time budget for the health request (default 2 s). */
  healthTimeoutMs?: number;
}

/**
 * Runs every check. Agents run in parallel, so the whole report takes about
 * as long as the slowest server takes to start.
 *
 * @example
 * ```ts
 * import { currentEnvironment } from "./environment.ts";
 * import { runDoctor } from "./doctor.ts";
 * const report = await runDoctor(currentEnvironment());
 * report.adapters.length; // 4
 * ```
 */
export async function runDoctor(
  environment: InstallEnvironment,
  options: DoctorOptions = {},
): Promise<DoctorReport> {
  const names = options.adapters ?? [...ADAPTER_NAMES];
  const [server, ...adapters] = await Promise.all([
    checkServer(options.healthTimeoutMs ?? 2_000),
    ...names.map((name) => checkAdapter(environment, name, options.probeTimeoutMs ?? 10_000)),
  ]);
  const installed = adapters.filter((report) => report.installed);
  const ok = installed.length > 0 &&
    installed.every((report) => report.checks.every((check) => check.status !== "fail"));
  const report: DoctorReport = { ok, server, adapters };
  const unit = autostartPath(environment);
  if (unit !== undefined && await exists(unit)) report.autostart = unit;
  return report;
}

async function checkAdapter(
  environment: InstallEnvironment,
  name: AdapterName,
  probeTimeoutMs: number,
): Promise<AdapterReport> {
  const adapter = adapterFor(name);
  const report: AdapterReport = {
    adapter: name,
    title: adapter.title,
    installed: false,
    checks: [],
  };
  const record = await readInstallRecord(environment, name);
  const project = record?.files.map((file) => file.path).find((path) =>
    path.endsWith("/.mcp.json")
  );
  const options = {
    hooks: true,
    ...(project === undefined ? {} : { project: project.slice(0, -"/.mcp.json".length) }),
  };
  let file: string;
  let entry: ServerEntry | undefined;
  try {
    ({ file, entry } = await adapter.readServer(environment, options));
  } catch (error) {
    report.installed = true;
    report.checks.push({
      name: "config",
      status: "fail",
      detail: error instanceof Error ? error.message : String(error),
      fix: "fix the file at that line, then run `vantage doctor` again",
    });
    return report;
  }
  report.installed = entry !== undefined || record !== undefined;
  if (!report.installed) return report;
  report.checks.push({ name: "config", status: "ok", detail: `${file} parses` });
  if (entry === undefined) {
    report.checks.push({
      name: "mcp entry",
      status: "fail",
      detail: `no 'vantage' MCP server in ${file}`,
      fix: `vantage install --adapter ${name}`,
    });
  } else {
    report.checks.push({
      name: "mcp entry",
      status: "ok",
      detail: `'vantage' runs ${
        entry.args.length > 3
          ? `${entry.command} ${entry.args[0]} … ${entry.args.slice(-2).join(" ")}`
          : [entry.command, ...entry.args].join(" ")
      }`,
    });
    const command = await checkCommand(entry.command, entry.args, name);
    report.checks.push(command);
    if (command.status !== "fail") {
      report.checks.push(await checkStart(entry, name, probeTimeoutMs));
    }
  }
  if (adapter.readHooks !== undefined) report.checks.push(await checkHooks(environment, name));
  const telemetry = await checkTelemetrySettings(environment, adapter, 2_000);
  if (telemetry !== undefined) report.checks.push(telemetry);
  return report;
}

/**
 * Starts the registered MCP server as the agent would, from Deno's cache
 * only when it is a `deno run` command, and classifies what happened.
 */
async function checkStart(
  entry: ServerEntry,
  name: AdapterName,
  timeoutMs: number,
): Promise<DoctorCheck> {
  const cachedOnly = withCachedOnly(entry);
  const probe = await probeMcpServer(cachedOnly ?? entry, { timeoutMs, listTools: true });
  if (probe.ok) {
    return {
      name: "mcp initialize",
      status: "ok",
      detail:
        `${probe.detail} in ${probe.elapsedMs} ms and tools/list (${probe.tools} tools) in ${probe.listedMs} ms${
          cachedOnly === undefined ? "" : ", all from Deno's cache"
        }`,
    };
  }
  if (cachedOnly !== undefined && isColdCache(probe.detail)) {
    const cache = entry.env.DENO_DIR ?? "Deno's default cache";
    return {
      name: "mcp initialize",
      status: "fail",
      detail: `cold cache, not a broken command: ${cache} lacks what the command needs ` +
        `(${
          probe.stderr.split("\n").find((line) => /cache/i.test(line))?.trim() ?? probe.detail
        }), ` +
        "so the agent's first start would download it, past its start-up limit",
      fix:
        `\`vantage install --adapter ${name}\` again: it runs the command once to fill the cache`,
    };
  }
  return {
    name: "mcp initialize",
    status: "fail",
    detail: `the command does not start: ${probe.detail}`,
    fix: "run the command above by hand to see why it does not start, then " +
      `\`vantage install --adapter ${name}\` again`,
  };
}

/**
 * The same command with `--cached-only` after `deno run`, so it fails at once
 * on anything it would have to download; undefined for any other command.
 */
export function withCachedOnly(entry: ServerEntry): ServerEntry | undefined {
  const program = entry.command.split(/[\\/]/).pop()?.toLowerCase();
  if ((program !== "deno" && program !== "deno.exe") || entry.args[0] !== "run") return undefined;
  if (entry.args.includes("--cached-only")) return entry;
  return { ...entry, args: ["run", "--cached-only", ...entry.args.slice(1)] };
}

/** Whether a failed start says a module or npm package was not in Deno's cache. */
export function isColdCache(detail: string): boolean {
  return /not found in cache|not in cache|--cached-only/i.test(detail);
}

async function checkHooks(
  environment: InstallEnvironment,
  name: AdapterName,
): Promise<DoctorCheck> {
  const adapter = adapterFor(name);
  let hooks;
  try {
    hooks = await adapter.readHooks!(environment);
  } catch (error) {
    return {
      name: "hooks",
      status: "fail",
      detail: error instanceof Error ? error.message : String(error),
      fix: "fix the file at that line, then run `vantage install --adapter " + name + "` again",
    };
  }
  const present = hooks.expected.filter((event) => (hooks.found[event] ?? []).length > 0);
  const missing = hooks.expected.filter((event) => !present.includes(event));
  if (present.length === 0) {
    return {
      name: "hooks",
      status: "warn",
      detail: `no Vantage hooks in ${hooks.file} (installed with --no-hooks?)`,
      fix: `vantage install --adapter ${name} (without --no-hooks) to add them`,
    };
  }
  if (missing.length > 0) {
    return {
      name: "hooks",
      status: "fail",
      detail: `Vantage hooks missing in ${hooks.file} for: ${missing.join(", ")}`,
      fix: `vantage install --adapter ${name}`,
    };
  }
  const line = hooks.found[present[0]][0];
  const program = shellWords(line).find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  if (program === undefined || await findExecutable(program) === undefined) {
    return {
      name: "hooks",
      status: "fail",
      detail: `the hook command's program ${program ?? "(none)"} does not exist`,
      fix: `vantage install --adapter ${name} from the Vantage you use now`,
    };
  }
  const check: DoctorCheck = {
    name: "hooks",
    status: "ok",
    detail: `${present.length} events hooked in ${hooks.file}`,
  };
  if (name === "codex") {
    check.detail += "; Codex runs them only once trusted";
    check.fix = "if not done yet: start `codex`, type /hooks and trust the Vantage hooks";
  }
  return check;
}

async function checkCommand(
  command: string,
  args: string[],
  name: AdapterName,
): Promise<DoctorCheck> {
  const found = await findExecutable(command);
  if (found === undefined) {
    return {
      name: "command",
      status: "fail",
      detail: `${command} is not an executable file${isAbsolute(command) ? "" : " on PATH"}`,
      fix: `vantage install --adapter ${name} from the Vantage you use now`,
    };
  }
  const script = args.find((arg) => /\.(ts|js|mjs)$/.test(arg) && isAbsolute(arg));
  if (script !== undefined && !await exists(script)) {
    return {
      name: "command",
      status: "fail",
      detail: `${script} does not exist (was the checkout moved?)`,
      fix: `vantage install --adapter ${name} from the checkout you use now`,
    };
  }
  return { name: "command", status: "ok", detail: `${found} exists` };
}

async function checkServer(timeoutMs: number): Promise<DoctorCheck & { url: string }> {
  const url = `${serverUrl()}/api/health`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.ok) return { name: "server", status: "ok", detail: `${url} answered`, url };
    return {
      name: "server",
      status: "warn",
      detail: `${url} answered HTTP ${response.status}`,
      fix: "check `vantage serve`'s log; is another program using that port?",
      url,
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return {
      name: "server",
      status: "warn",
      detail: `${url} is not reachable (${reason})`,
      fix: "it starts with the agent's next SessionStart hook; or run `vantage serve` " +
        "(or install with --autostart); set VANTAGE_URL / VANTAGE_PORT if it listens elsewhere",
      url,
    };
  }
}

/** The absolute path of `command` (itself when absolute, else found on PATH), if executable. */
export async function findExecutable(command: string): Promise<string | undefined> {
  const candidates = isAbsolute(command) || command.includes("/")
    ? [command]
    : (Deno.env.get("PATH") ?? "").split(delimiter).filter((dir) => dir !== "").map((dir) =>
      join(dir, command)
    );
  for (const candidate of candidates) {
    try {
      const info = await Deno.stat(candidate);
      if (info.isFile && (info.mode === null || (info.mode & 0o111) !== 0)) return candidate;
    } catch {
      // Missing or unreadable: try the next PATH entry.
    }
  }
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
