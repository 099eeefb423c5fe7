/**
 * Warming what an install registered. An agent starts Vantage's MCP server
 * (and runs its hook) with the command written in its config; the first time
 * that command runs, Deno downloads the npm packages it needs and compiles
 * every module, which took 10 s on a fresh machine (at Codex's start-up
 * limit). So the install runs each registered command once, exactly as the
 * config has it (program, arguments, environment — permissions and data home
 * included): the MCP server answers `initialize` and `tools/list` (which
 * loads the whole catalog), the hook gets an empty payload (a no-op it
 * reports on stderr). Each run's time is the first start, reported.
 *
 * @module
 */
import { adapterFor } from "./adapters.ts";
import type { AdapterName, InstallOptions } from "./agent.ts";
import type { InstallEnvironment } from "./environment.ts";
import { shellWords } from "./launch_command.ts";
import { probeMcpServer } from "./mcp_probe.ts";

/** How one registered command's first start went. */
export interface WarmStart {
  /** Which command. */
  command: "mcp server" | "hook";
  /** Whether it started and answered (the server) or exited 0 (the hook). */
  ok: boolean;
  /** Milliseconds from start to its answer (the server's `initialize`) or its exit (the hook). */
  ms: number;
  /** One line: what it answered, or what went wrong. */
  detail: string;
}

/** A run longer than this is given up on: a download on a very slow network. */
export const WARM_TIMEOUT_MS = 180_000;

/**
 * Runs the MCP server and hook commands now registered for `adapter` once
 * each, in the user's home folder.
 *
 * @example
 * ```ts ignore
 * const starts = await warmRegisteredCommands(currentEnvironment(), "codex", { hooks: true });
 * starts[0].ms; // the MCP server's first start
 * ```
 */
export async function warmRegisteredCommands(
  environment: InstallEnvironment,
  adapter: AdapterName,
  options: InstallOptions,
  timeoutMs = WARM_TIMEOUT_MS,
): Promise<WarmStart[]> {
  const agent = adapterFor(adapter);
  const starts: WarmStart[] = [];
  const { entry } = await agent.readServer(environment, options);
  if (entry !== undefined) {
    const probe = await probeMcpServer(entry, {
      timeoutMs,
      listTools: true,
      cwd: environment.userHome,
    });
    starts.push({
      command: "mcp server",
      ok: probe.ok,
      ms: probe.elapsedMs,
      detail: probe.ok
        ? `answered initialize in ${
          seconds(probe.elapsedMs)
        } and tools/list (${probe.tools} tools) in ${seconds(probe.listedMs ?? 0)}`
        : probe.detail,
    });
  }
  if (options.hooks && agent.readHooks !== undefined) {
    const hooks = await agent.readHooks(environment);
    const line = hooks.expected.map((event) => hooks.found[event]?.[0]).find((found) =>
      found !== undefined
    );
    if (line !== undefined) starts.push(await runHookOnce(line, environment.userHome, timeoutMs));
  }
  return starts;
}

/**
 * Runs a registered hook command line (`NAME=value … program args…`) with an
 * empty payload, which the hook takes as a no-op.
 */
async function runHookOnce(line: string, cwd: string, timeoutMs: number): Promise<WarmStart> {
  const words = shellWords(line);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    const word = words.shift()!;
    const at = word.indexOf("=");
    env[word.slice(0, at)] = word.slice(at + 1);
  }
  const [program, ...args] = words;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (program === undefined) {
    return { command: "hook", ok: false, ms: 0, detail: `the hook line '${line}' runs nothing` };
  }
  try {
    const output = await new Deno.Command(program, {
      args,
      env: { ...Deno.env.toObject(), ...env },
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(timeoutMs),
    }).output();
    const ms = elapsed();
    if (output.success) return { command: "hook", ok: true, ms, detail: `ran in ${seconds(ms)}` };
    if (ms >= timeoutMs) {
      return {
        command: "hook",
        ok: false,
        ms,
        detail: `did not finish within ${seconds(timeoutMs)}`,
      };
    }
    const stderr = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-2).join(" | ");
    return {
      command: "hook",
      ok: false,
      ms,
      detail: `exited with code ${output.code}${stderr === "" ? "" : `: ${stderr.slice(0, 300)}`}`,
    };
  } catch (error) {
    return {
      command: "hook",
      ok: false,
      ms: elapsed(),
      detail: error instanceof DOMException && error.name === "AbortError"
        ? `did not finish within ${seconds(timeoutMs)}`
        : `could not start ${program}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** `850 ms` or `10.4 s`. */
function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
