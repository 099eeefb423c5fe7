/**
 * GitHub Copilot CLI: the MCP server `vantage` in `~/.copilot/mcp-config.json`
 * and a hooks file of Vantage's own, `~/.copilot/hooks/vantage.json`, with the
 * camelCase event names that give Copilot's native payloads (`COPILOT_HOME`
 * moves both).
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
import { getJsonValue } from "./json_edit.ts";
import { jsonEntryFile, type ManagedFile, ownedFile } from "./managed_file.ts";

/** The Copilot CLI events Vantage hooks. */
export const COPILOT_EVENTS: readonly string[] = [
  "sessionStart",
  "userPromptSubmitted",
  "preToolUse",
  "postToolUse",
  "postToolUseFailure",
  "agentStop",
  "preCompact",
  "sessionEnd",
];

const SERVER_PATH = ["mcpServers", "vantage"];

/**
 * What `--otel` can do for Copilot CLI: nothing in a file. Its OpenTelemetry
 * settings are environment variables only (its settings file knows
 * `telemetry.capture*` and `telemetry.headersProvider`, no exporter or path),
 * and a variable must be set by the user's shell. Its file export is
 * Copilot's own (`COPILOT_OTEL_*`, no other program reads it) and `serve`
 * tails `~/.copilot/otel/*.jsonl`.
 */
const COPILOT_OTEL_NOTE = "Telemetry: Copilot CLI reads its OpenTelemetry settings only from " +
  "environment variables, so Vantage cannot write them. Add this line to your shell profile; " +
  "serve tails what it writes (token usage, latency, tools): " +
  'export COPILOT_OTEL_FILE_EXPORTER_PATH="$HOME/.copilot/otel/copilot-otel.jsonl"';

/** Copilot CLI's folder (`COPILOT_HOME`, default `~/.copilot`). */
export function copilotFolder(environment: InstallEnvironment): string {
  return agentFolder(environment, "COPILOT_HOME", ".copilot");
}

function hooksPath(environment: InstallEnvironment): string {
  return join(copilotFolder(environment), "hooks", "vantage.json");
}

function mcpConfig(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  const path = join(copilotFolder(environment), "mcp-config.json");
  return jsonEntryFile(path, "json", SERVER_PATH, () => {
    const entry = serverLaunch(environment, options, "copilot_cli");
    return {
      type: "local",
      command: entry.command,
      args: entry.args,
      env: entry.env,
      tools: ["*"],
    };
  }, "MCP server");
}

function hooksJson(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  return ownedFile(
    hooksPath(environment),
    () => {
      if (!options.hooks) return undefined;
      const bash = hookCommandLine(environment, "copilot-cli");
      const hooks: Record<string, unknown[]> = {};
      for (const event of COPILOT_EVENTS) hooks[event] = [{ type: "command", bash, timeoutSec: 5 }];
      return JSON.stringify({ version: 1, hooks }, null, 2) + "\n";
    },
    "hooks",
    (text) => text.includes("hook --agent copilot-cli"),
    true,
  );
}

/** The Copilot CLI adapter. */
export const copilotCliAdapter: AgentAdapter = {
  name: "copilot-cli",
  title: "GitHub Copilot CLI",
  caller: "copilot_cli",
  files(environment, options) {
    return [mcpConfig(environment, options), hooksJson(environment, options)];
  },
  notes(_environment, options) {
    const notes = [
      "Check it: `copilot mcp list` should list vantage under User servers.",
      "Copilot ignores what sessionStart and userPromptSubmitted hooks print, so Vantage's " +
      "context reaches Copilot through the MCP tools rather than through its prompt.",
    ];
    if (options.otel === true) notes.push(COPILOT_OTEL_NOTE);
    return notes;
  },
  async readServer(environment) {
    const file = join(copilotFolder(environment), "mcp-config.json");
    const text = await readTextIfExists(file);
    if (text === undefined) return { file, entry: undefined };
    return { file, entry: toServerEntry(getJsonValue(text, "json", SERVER_PATH, file)) };
  },
  async readHooks(environment) {
    const file = hooksPath(environment);
    const text = await readTextIfExists(file);
    const found: Record<string, string[]> = {};
    if (text !== undefined && text.trim() !== "") {
      const hooks = getJsonValue(text, "json", ["hooks"], file);
      if (hooks !== null && typeof hooks === "object") {
        for (const [event, list] of Object.entries(hooks as Record<string, unknown>)) {
          if (!Array.isArray(list)) continue;
          const lines = list.map((handler) => (handler as { bash?: unknown })?.bash)
            .filter((line) => isVantageHookLine(line, "copilot-cli")) as string[];
          if (lines.length > 0) found[event] = lines;
        }
      }
    }
    return { file, expected: [...COPILOT_EVENTS], found };
  },
};
