/**
 * Claude Code: the MCP server `vantage` in `~/.claude.json` (user scope) or
 * `<project>/.mcp.json` (project scope), hooks (and with `--otel` the
 * telemetry variables of its `env` block) in `~/.claude/settings.json`, and
 * the skill `~/.claude/skills/vantage/SKILL.md`. `CLAUDE_CONFIG_DIR` moves
 * all three, as it does for Claude Code itself.
 *
 * @module
 */
import { basename, join, resolve } from "node:path";
import {
  type AgentAdapter,
  hookCommandLine,
  type InstallOptions,
  isVantageHookLine,
  serverLaunch,
  toServerEntry,
} from "./agent.ts";
import type { InstallEnvironment } from "./environment.ts";
import { readTextIfExists } from "./file_io.ts";
import { getJsonValue } from "./json_edit.ts";
import { type HookGroup, ourHandlers } from "./json_hooks.ts";
import {
  hooksFile,
  jsonEntryFile,
  layeredFile,
  type ManagedFile,
  ownedFile,
} from "./managed_file.ts";
import { CLAUDE_CODE_OTEL, claudeCodeOtelPlan, telemetrySettingsIn } from "./otel_settings.ts";
import { otelTarget } from "./otel_target.ts";
import { settingsFile as settingsPart } from "./settings_file.ts";
import { skillMarkdown } from "./skill.ts";

/** The events Vantage hooks, and whether the event takes a matcher. */
export const CLAUDE_CODE_EVENTS: ReadonlyArray<readonly [string, boolean]> = [
  ["SessionStart", true],
  ["UserPromptSubmit", false],
  ["PreToolUse", true],
  ["PostToolUse", true],
  ["PostToolUseFailure", true],
  ["Stop", false],
  ["PreCompact", true],
  ["SessionEnd", true],
];

const SERVER_PATH = ["mcpServers", "vantage"];

/** Claude Code's config folder (`CLAUDE_CONFIG_DIR`, default `~/.claude`). */
export function claudeFolder(environment: InstallEnvironment): string {
  return environment.variables.CLAUDE_CONFIG_DIR ?? join(environment.userHome, ".claude");
}

/** Where user-scope MCP servers live: `~/.claude.json` (inside `CLAUDE_CONFIG_DIR` when set). */
export function claudeUserConfig(environment: InstallEnvironment): string {
  const folder = environment.variables.CLAUDE_CONFIG_DIR;
  return folder !== undefined
    ? join(folder, ".claude.json")
    : join(environment.userHome, ".claude.json");
}

function serverFile(environment: InstallEnvironment, options: InstallOptions): string {
  return options.project === undefined
    ? claudeUserConfig(environment)
    : join(resolve(options.project), ".mcp.json");
}

function isOurs(handler: unknown): boolean {
  return handler !== null && typeof handler === "object" &&
    (handler as Record<string, unknown>).type === "command" &&
    isVantageHookLine((handler as Record<string, unknown>).command, "claude-code");
}

function mcpFile(
  environment: InstallEnvironment,
  options: InstallOptions,
  path: string,
): ManagedFile {
  return jsonEntryFile(
    path,
    "json",
    SERVER_PATH,
    () => {
      const entry = serverLaunch(environment, options, "claude_code");
      return { type: "stdio", command: entry.command, args: entry.args, env: entry.env };
    },
    path === claudeUserConfig(environment)
      ? "MCP server (user scope)"
      : "MCP server (project scope)",
  );
}

function settingsPath(environment: InstallEnvironment): string {
  return join(claudeFolder(environment), "settings.json");
}

function settingsFile(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  const path = settingsPath(environment);
  const hooks = hooksFile(path, "json", () => {
    if (!options.hooks) return {};
    const command = hookCommandLine(environment, "claude-code");
    const groups: Record<string, HookGroup> = {};
    for (const [event, matcher] of CLAUDE_CODE_EVENTS) {
      const handler = { type: "command", command, timeout: 5 };
      groups[event] = matcher ? { matcher: "*", hooks: [handler] } : { hooks: [handler] };
    }
    return groups;
  }, isOurs);
  const telemetry = settingsPart(
    path,
    "json",
    "telemetry settings",
    (removing) => claudeCodeOtelPlan(otelTarget(environment, removing)),
    options.otel === true,
  );
  const both = layeredFile(hooks, telemetry);
  return options.otel === true ? { ...both, purpose: "hooks and telemetry settings" } : both;
}

function skillFile(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  return ownedFile(
    join(claudeFolder(environment), "skills", "vantage", "SKILL.md"),
    () => skillMarkdown(options.surface),
    "skill",
    (text) => /^name: vantage$/m.test(text),
  );
}

/** The Claude Code adapter. */
export const claudeCodeAdapter: AgentAdapter = {
  name: "claude-code",
  title: "Claude Code",
  caller: "claude_code",
  files(environment, options) {
    return [
      mcpFile(environment, options, serverFile(environment, options)),
      settingsFile(environment, options),
      skillFile(environment, options),
    ];
  },
  uninstallFiles(environment, options, recorded) {
    const servers = new Set([claudeUserConfig(environment), serverFile(environment, options)]);
    for (const path of recorded) if (basename(path) === ".mcp.json") servers.add(path);
    return [
      ...[...servers].map((path) => mcpFile(environment, options, path)),
      settingsFile(environment, { ...options, hooks: false, otel: false }),
      skillFile(environment, options),
    ];
  },
  notes(environment, options) {
    const notes = ["Check it: `claude mcp list` should show vantage ✔ Connected."];
    if (options.otel === true) {
      notes.push(
        `Telemetry: sessions started from now on export to ${
          otelTarget(environment).endpoint
        } (OTLP logs, metrics and traces, binary protobuf).`,
      );
    }
    if (options.project !== undefined) {
      notes.push(
        "Project-scope servers need approval: start `claude` in that folder and accept " +
          "'vantage' when asked (or run `claude mcp list` there to see it pending).",
      );
    }
    return notes;
  },
  async readServer(environment, options) {
    const file = serverFile(environment, options);
    const text = await readTextIfExists(file);
    if (text === undefined) return { file, entry: undefined };
    return { file, entry: toServerEntry(getJsonValue(text, "json", SERVER_PATH, file)) };
  },
  telemetrySettings: (environment) =>
    telemetrySettingsIn(environment, settingsPath(environment), "json", CLAUDE_CODE_OTEL),
  async readHooks(environment) {
    const file = settingsPath(environment);
    const text = await readTextIfExists(file);
    const expected = CLAUDE_CODE_EVENTS.map(([event]) => event);
    if (text === undefined || text.trim() === "") return { file, expected, found: {} };
    const handlers = ourHandlers(text, "json", file, isOurs);
    const found: Record<string, string[]> = {};
    for (const [event, list] of Object.entries(handlers)) {
      found[event] = list.map((handler) => String(handler.command));
    }
    return { file, expected, found };
  },
};
