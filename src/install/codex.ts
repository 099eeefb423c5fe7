/**
 * Codex CLI: the table `[mcp_servers.vantage]` (and with `--otel` the
 * exporters of `[otel]`) in `~/.codex/config.toml` and hooks in
 * `~/.codex/hooks.json` (`CODEX_HOME` moves both). Codex runs a
 * hook only after the user trusted it in `/hooks`, and skips untrusted ones
 * silently, so the install says how.
 *
 * @module
 */
import { join } from "node:path";
import {
  type AgentAdapter,
  hookCommandLine,
  type InstallOptions,
  isVantageHookLine,
  serverLaunch,
  toServerEntry,
} from "./agent.ts";
import { agentFolder, type InstallEnvironment } from "./environment.ts";
import { readTextIfExists } from "./file_io.ts";
import { type HookGroup, ourHandlers } from "./json_hooks.ts";
import { hooksFile, layeredFile, type ManagedFile, tomlTableFile } from "./managed_file.ts";
import { CODEX_OTEL, codexOtelPlan, telemetrySettingsIn } from "./otel_settings.ts";
import { otelTarget } from "./otel_target.ts";
import { settingsFile } from "./settings_file.ts";
import { readTomlTable, renderTomlTable } from "./toml_edit.ts";

/**
 * The events Vantage hooks in Codex, whether each takes a matcher, and its
 * timeout. Codex has no PostToolUseFailure; a matcher on UserPromptSubmit or
 * Stop is dropped from Codex's trust hash, which would ask for review forever.
 */
export const CODEX_EVENTS: ReadonlyArray<readonly [string, boolean, number]> = [
  ["SessionStart", true, 5],
  ["UserPromptSubmit", false, 5],
  ["PreToolUse", true, 5],
  ["PostToolUse", true, 5],
  ["Stop", false, 5],
  ["PreCompact", true, 5],
  // Codex caps SessionEnd hooks at 3 seconds.
  ["SessionEnd", true, 3],
];

const TABLE = ["mcp_servers", "vantage"];

/** Codex's folder (`CODEX_HOME`, default `~/.codex`). */
export function codexFolder(environment: InstallEnvironment): string {
  return agentFolder(environment, "CODEX_HOME", ".codex");
}

function isOurs(handler: unknown): boolean {
  return handler !== null && typeof handler === "object" &&
    (handler as Record<string, unknown>).type === "command" &&
    isVantageHookLine((handler as Record<string, unknown>).command, "codex");
}

function configPath(environment: InstallEnvironment): string {
  return join(codexFolder(environment), "config.toml");
}

function configFile(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  const path = configPath(environment);
  const server = tomlTableFile(path, TABLE, () => {
    const entry = serverLaunch(environment, options, "codex");
    return renderTomlTable(TABLE, {
      command: entry.command,
      args: entry.args,
      startup_timeout_sec: 10,
      env: entry.env,
    });
  }, "MCP server");
  const telemetry = settingsFile(
    path,
    "toml",
    "telemetry settings",
    (removing) => codexOtelPlan(otelTarget(environment, removing)),
    options.otel === true,
  );
  const both = layeredFile(server, telemetry);
  return options.otel === true ? { ...both, purpose: "MCP server and telemetry settings" } : both;
}

function hooksJson(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  return hooksFile(join(codexFolder(environment), "hooks.json"), "json", () => {
    if (!options.hooks) return {};
    const command = hookCommandLine(environment, "codex");
    const groups: Record<string, HookGroup> = {};
    for (const [event, matcher, timeout] of CODEX_EVENTS) {
      const handler = { type: "command", command, timeout };
      groups[event] = matcher ? { matcher: "*", hooks: [handler] } : { hooks: [handler] };
    }
    return groups;
  }, isOurs);
}

/** The Codex adapter. */
export const codexAdapter: AgentAdapter = {
  name: "codex",
  title: "Codex CLI",
  caller: "codex",
  files(environment, options) {
    return [configFile(environment, options), hooksJson(environment, options)];
  },
  notes(environment, options) {
    const notes = ["Check it: `codex mcp list` should show vantage as enabled."];
    if (options.otel === true) {
      notes.push(
        `Telemetry: Codex sessions started from now on export logs, traces and metrics to ${
          otelTarget(environment).endpoint
        } (the [otel] exporters in config.toml).`,
      );
    }
    if (options.hooks) {
      notes.push(
        "Approve the hooks: Codex runs a hook only after you trust it and skips untrusted " +
          "hooks without a word. Start `codex`, type `/hooks`, review the Vantage hooks " +
          "(`… hook --agent codex`) and trust them. Repeat after any reinstall that changes " +
          "the command. Headless runs can pass `codex exec --dangerously-bypass-hook-trust`.",
      );
    }
    return notes;
  },
  async readServer(environment) {
    const file = configPath(environment);
    const text = await readTextIfExists(file);
    if (text === undefined) return { file, entry: undefined };
    return { file, entry: toServerEntry(readTomlTable(text, file, TABLE)) };
  },
  telemetrySettings: (environment) =>
    telemetrySettingsIn(environment, configPath(environment), "toml", CODEX_OTEL),
  async readHooks(environment) {
    const file = join(codexFolder(environment), "hooks.json");
    const text = await readTextIfExists(file);
    const expected = CODEX_EVENTS.map(([event]) => event);
    if (text === undefined || text.trim() === "") return { file, expected, found: {} };
    const found: Record<string, string[]> = {};
    for (const [event, list] of Object.entries(ourHandlers(text, "json", file, isOurs))) {
      found[event] = list.map((handler) => String(handler.command));
    }
    return { file, expected, found };
  },
};
