/**
 * OpenClaw: the MCP server `vantage` under `mcp.servers` in
 * `~/.openclaw/openclaw.json` (`OPENCLAW_STATE_DIR` moves it). The file is
 * JSON5 (comments, trailing commas, unquoted keys), and edits keep it so.
 * With `--otel` the same file gets the `diagnostics-otel` plugin's entry and
 * its `diagnostics.otel` settings.
 * OpenClaw has no command hooks (its hooks are in-process plugins), so
 * Vantage reaches it through MCP and transcripts only.
 *
 * @module
 */
import { join } from "node:path";
import { type AgentAdapter, type InstallOptions, serverLaunch, toServerEntry } from "./agent.ts";
import { agentFolder, type InstallEnvironment } from "./environment.ts";
import { readTextIfExists } from "./file_io.ts";
import { getJsonValue } from "./json_edit.ts";
import { jsonEntryFile, layeredFile, type ManagedFile } from "./managed_file.ts";
import { OPENCLAW_OTEL, openclawOtelPlan, telemetrySettingsIn } from "./otel_settings.ts";
import { otelTarget } from "./otel_target.ts";
import { settingsFile } from "./settings_file.ts";

const SERVER_PATH = ["mcp", "servers", "vantage"];

/** OpenClaw's folder (`OPENCLAW_STATE_DIR`, default `~/.openclaw`). */
export function openclawFolder(environment: InstallEnvironment): string {
  return agentFolder(environment, "OPENCLAW_STATE_DIR", ".openclaw");
}

function configPath(environment: InstallEnvironment): string {
  return join(openclawFolder(environment), "openclaw.json");
}

function configFile(environment: InstallEnvironment, options: InstallOptions): ManagedFile {
  const path = configPath(environment);
  const server = jsonEntryFile(path, "json5", SERVER_PATH, () => {
    const entry = serverLaunch(environment, options, "openclaw");
    // OpenClaw refuses DENO_DIR in a server's env (it could redirect code loading) and says so
    // on every start; without it Deno uses its default cache under the user's home.
    const { DENO_DIR: _ignored, ...env } = entry.env;
    return { command: entry.command, args: entry.args, env, enabled: true };
  }, "MCP server");
  const telemetry = settingsFile(
    path,
    "json5",
    "telemetry settings",
    (removing) => openclawOtelPlan(otelTarget(environment, removing)),
    options.otel === true,
  );
  const both = layeredFile(server, telemetry);
  return options.otel === true ? { ...both, purpose: "MCP server and telemetry settings" } : both;
}

/** The OpenClaw adapter. */
export const openclawAdapter: AgentAdapter = {
  name: "openclaw",
  title: "OpenClaw",
  caller: "openclaw",
  files(environment, options) {
    return [configFile(environment, options)];
  },
  notes(environment, options) {
    const notes = [
      "Check it: `openclaw mcp list` should list vantage (`openclaw mcp probe vantage` starts it).",
      "A running OpenClaw gateway picks the server up on its next turn after " +
      "`openclaw mcp reload`.",
      "OpenClaw takes no command hooks; Vantage follows it through MCP and its transcripts.",
    ];
    if (options.otel === true) {
      notes.push(
        `Telemetry: the diagnostics-otel plugin exports traces, metrics and logs to ${
          otelTarget(environment).endpoint
        } once it is installed: \`openclaw plugins install clawhub:@openclaw/diagnostics-otel\` ` +
          "(OpenClaw does not ship it). If your config has a plugins.allow list, add " +
          "diagnostics-otel to it; the gateway applies diagnostics.otel without a restart.",
      );
    }
    return notes;
  },
  telemetrySettings: (environment) =>
    telemetrySettingsIn(environment, configPath(environment), "json5", OPENCLAW_OTEL),
  async readServer(environment) {
    const file = configPath(environment);
    const text = await readTextIfExists(file);
    if (text === undefined) return { file, entry: undefined };
    return { file, entry: toServerEntry(getJsonValue(text, "json5", SERVER_PATH, file)) };
  },
};
