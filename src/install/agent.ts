/**
 * What every agent adapter provides, and the pieces they share: the adapter
 * names, the install options, the MCP server command and the hook command.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { SurfaceName } from "../mcp/surface.ts";
import type { InstallEnvironment } from "./environment.ts";
import type { JsonFlavor } from "./json_syntax.ts";
import { type LaunchCommand, shellCommandLine, vantageCommand } from "./launch_command.ts";
import type { ManagedFile } from "./managed_file.ts";
import type { OtelTarget } from "./otel_target.ts";
import type { SettingsPlan } from "./settings_part.ts";

/** The agents Vantage installs into. */
export type AdapterName = "claude-code" | "codex" | "copilot-cli" | "openclaw";

/** Every adapter name, in help order. */
export const ADAPTER_NAMES: readonly AdapterName[] = [
  "claude-code",
  "codex",
  "copilot-cli",
  "openclaw",
];

/**
 * Checks an `--adapter` value.
 *
 * @example
 * ```ts
 * import { parseAdapterName } from "./agent.ts";
 * parseAdapterName("codex"); // "codex"
 * ```
 */
export function parseAdapterName(text: string | undefined): AdapterName {
  if (text !== undefined && (ADAPTER_NAMES as readonly string[]).includes(text)) {
    return text as AdapterName;
  }
  throw new VantageError(
    "invalid_arguments",
    text === undefined
      ? `missing --adapter; choose one of: ${ADAPTER_NAMES.join(", ")}`
      : `unknown adapter '${text}'; choose one of: ${ADAPTER_NAMES.join(", ")}`,
  );
}

/** What `vantage install` was asked for. */
export interface InstallOptions {
  /** Claude Code only: register the MCP server in `<project>/.mcp.json` instead of the user config. */
  project?: string;
  /** The MCP surface the agent gets (default: the server's default, `dex`). */
  surface?: SurfaceName;
  /** The scopes granted to the agent (default: the server's default). */
  scopes?: string[];
  /** Whether to register hooks (`--no-hooks` turns them off, removing earlier ones). */
  hooks: boolean;
  /**
   * Whether to point the agent's own telemetry at `serve` (`--otel`); an
   * install without it takes out the telemetry settings an earlier one wrote.
   */
  otel?: boolean;
}

/** An MCP server registration as an agent's config stores it. */
export interface ServerEntry {
  /** The program. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Extra environment. */
  env: Record<string, string>;
}

/** The hook registrations found in an agent's config, for `doctor`. */
export interface HookReport {
  /** The file holding them. */
  file: string;
  /** The events Vantage registers. */
  expected: string[];
  /** The hook command lines found for each event. */
  found: Record<string, string[]>;
}

/** Where an agent keeps the telemetry settings `install --otel` writes, and what they are. */
export interface TelemetrySettings {
  /** The agent's config file that holds them. */
  file: string;
  /** Its format. */
  format: JsonFlavor | "toml";
  /** Where they send the telemetry: `serve` as this environment finds it. */
  target: OtelTarget;
  /** The settings themselves, as an install would write them now. */
  plan: SettingsPlan;
  /**
   * The `Authorization` header the agent will send with its exports, found through `read`
   * (a key path's value in the file), or undefined when it sends none.
   */
  sentHeader(read: (path: readonly string[]) => unknown): string | undefined;
}

/** One agent: where its config lives and how Vantage registers with it. */
export interface AgentAdapter {
  /** The `--adapter` name. */
  name: AdapterName;
  /** The agent's product name. */
  title: string;
  /** The `VANTAGE_MCP_CALLER` value its MCP server runs with. */
  caller: string;
  /** The files an install writes. */
  files(environment: InstallEnvironment, options: InstallOptions): ManagedFile[];
  /**
   * The files an uninstall cleans, when more than the install's own (those
   * recorded elsewhere, `recorded`); without it an uninstall cleans `files`.
   */
  uninstallFiles?(
    environment: InstallEnvironment,
    options: InstallOptions,
    recorded: readonly string[],
  ): ManagedFile[];
  /** What to tell the user after an install (steps only they can take). */
  notes(environment: InstallEnvironment, options: InstallOptions): string[];
  /** The MCP server registration now in the agent's config (throws when the config does not parse). */
  readServer(
    environment: InstallEnvironment,
    options: InstallOptions,
  ): Promise<{ file: string; entry: ServerEntry | undefined }>;
  /** The hooks now registered, when the agent takes hooks. */
  readHooks?(environment: InstallEnvironment): Promise<HookReport>;
  /**
   * The telemetry settings `--otel` writes, for an agent that keeps them in a file; built
   * leniently (without a token when none is known), since `doctor` only compares them.
   */
  telemetrySettings?(environment: InstallEnvironment): TelemetrySettings;
}

/** The arguments after the executable for `mcp-serve` with the chosen surface and scopes. */
export function mcpServeArguments(options: InstallOptions): string[] {
  const args = ["mcp-serve"];
  if (options.surface !== undefined) args.push("--surface", options.surface);
  if (options.scopes !== undefined) args.push("--scopes", options.scopes.join(","));
  return args;
}

/** The MCP server command for an agent, with its caller name in the environment. */
export function serverLaunch(
  environment: InstallEnvironment,
  options: InstallOptions,
  caller: string,
): ServerEntry {
  const launch: LaunchCommand = vantageCommand(
    environment,
    "mcp-serve",
    mcpServeArguments(options),
  );
  return {
    command: launch.command,
    args: launch.args,
    env: { VANTAGE_MCP_CALLER: caller, ...launch.env },
  };
}

/** The shell command an agent's hook runs: `vantage hook --agent <name>`. */
export function hookCommandLine(environment: InstallEnvironment, agent: AdapterName): string {
  return shellCommandLine(vantageCommand(environment, "hook", ["hook", "--agent", agent]));
}

/**
 * Whether a hook command line is Vantage's hook for `agent`: every one ends
 * with `hook --agent <agent>`, whatever the executable's path, so an install
 * from another checkout or binary still finds (and replaces) its hooks.
 */
export function isVantageHookLine(line: unknown, agent: AdapterName): boolean {
  return typeof line === "string" && line.endsWith(` hook --agent ${agent}`);
}

/** Reads a server entry's fields defensively (they come from a user-editable file). */
export function toServerEntry(value: unknown): ServerEntry | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const record = value as Record<string, unknown>;
  const command = typeof record.command === "string" ? record.command : "";
  const args = Array.isArray(record.args) ? record.args.map(String) : [];
  const env: Record<string, string> = {};
  if (record.env !== null && typeof record.env === "object") {
    for (const [key, item] of Object.entries(record.env as Record<string, unknown>)) {
      env[key] = String(item);
    }
  }
  return { command, args, env };
}
