/**
 * `vantage install --adapter <agent>`: registers Vantage's MCP server, hooks
 * and (for Claude Code) skill with one agent, touching only Vantage's own
 * entries, or prints the exact diff with `--dry-run`.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { parseSurfaceName } from "../mcp/surface.ts";
import { parseScopes } from "../ops/scopes.ts";
import { adapterFor } from "../install/adapters.ts";
import { ADAPTER_NAMES, parseAdapterName } from "../install/agent.ts";
import { autostartUnit } from "../install/autostart.ts";
import {
  currentEnvironment,
  displayPath,
  type InstallEnvironment,
} from "../install/environment.ts";
import {
  applyPlan,
  type InstallRequest,
  type Outcome,
  type Plan,
  planChangesNothing,
  planDiff,
  planInstall,
} from "../install/installer.ts";
import { warmRegisteredCommands, type WarmStart } from "../install/warm_up.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";

/** The `install` command. */
export const command: Command = {
  name: "install",
  summary: "Register Vantage with an agent (MCP server, hooks, skill, telemetry)",
  usage: `Usage: vantage install --adapter ${ADAPTER_NAMES.join("|")} [options]

Registers Vantage with a coding agent: its MCP server (so the agent can call
Vantage's operations), its hooks (so Vantage sees what the agent does) and,
for Claude Code, a skill that says when to use which operation. Only
Vantage's own entries change; every other byte of each file stays as it was.
Each file changed is backed up once to <file>.vantage-backup. Running the
same install again changes nothing; 'vantage uninstall' undoes it.

Then it runs the registered MCP server and hook commands once, exactly as
the agent will (so Deno caches their modules and npm packages now, not
during the agent's first start), and reports how long each first start took.

Options:
  --adapter NAME   claude-code, codex, copilot-cli or openclaw
  --project DIR    Claude Code only: register the server in DIR/.mcp.json
                   (project scope) instead of ~/.claude.json
  --surface NAME   MCP surface the agent gets: dex (default), composite, full
  --scopes LIST    Scopes granted to the agent (comma-separated)
  --no-hooks       Register no hooks (removes hooks an earlier install added)
  --otel           Also point the agent's own OpenTelemetry export at serve
                   (Claude Code: settings.json env; Codex: [otel] in
                   config.toml; OpenClaw: diagnostics.otel; Copilot CLI:
                   prints the variable to set). Without it, telemetry
                   settings an earlier --otel install wrote are taken out;
                   your own telemetry settings are never changed
  --autostart      Also write a per-user service running 'vantage serve'
                   (systemd user unit on Linux, launchd agent on macOS)
  --no-warm        Do not run the registered commands once after writing them
  --dry-run        Print the exact diff of every file; write nothing
  -h, --help       Show this help

The agent runs the command that runs this install: the compiled executable,
or 'deno run' with scoped permissions and this checkout's main.ts.
Environment: VANTAGE_HOME and VANTAGE_ROOTS (passed on to the agent when
set), CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME, OPENCLAW_STATE_DIR;
VANTAGE_URL or VANTAGE_PORT (where --otel points, default
http://127.0.0.1:14300) and VANTAGE_TOKEN (sent when that is not loopback).

Examples:
  vantage install --adapter claude-code --dry-run
  vantage install --adapter codex --surface full
  vantage install --adapter claude-code --otel
  vantage install --adapter claude-code --project . --no-hooks`,
  async run(args) {
    const { values } = parseFlags("install", args, {
      adapter: { type: "string" },
      project: { type: "string" },
      surface: { type: "string" },
      scopes: { type: "string" },
      "dry-run": { type: "boolean" },
      "no-hooks": { type: "boolean" },
      otel: { type: "boolean" },
      autostart: { type: "boolean" },
      "no-warm": { type: "boolean" },
    });
    const adapter = parseAdapterName(values.adapter as string | undefined);
    const request: InstallRequest = {
      hooks: values["no-hooks"] !== true,
      otel: values.otel === true,
    };
    if (typeof values.project === "string") {
      if (adapter !== "claude-code") {
        throw new VantageError(
          "invalid_arguments",
          `--project applies to claude-code only (${adapter} is registered for the user)`,
        );
      }
      request.project = values.project;
    }
    if (typeof values.surface === "string") request.surface = parseSurfaceName(values.surface);
    if (typeof values.scopes === "string") request.scopes = parseScopes(values.scopes);
    if (values.autostart === true) request.autostart = true;
    const environment = currentEnvironment();
    const plan = await planInstall(environment, adapter, request);
    const title = adapterFor(adapter).title;
    if (values["dry-run"] === true) {
      writeStdout(
        planChangesNothing(plan)
          ? `Vantage is already installed for ${title} as asked; nothing would change.\n`
          : `${planDiff(plan)}(dry run: nothing was written)\n`,
      );
      return 0;
    }
    const outcome = await applyPlan(environment, plan);
    writeStdout(report(environment, plan, outcome, title, request));
    if (values["no-warm"] !== true) {
      writeStdout(warmReport(await warmRegisteredCommands(environment, adapter, request), adapter));
    }
    return 0;
  },
};

/** The first starts of the registered commands, and what to do when one failed. */
function warmReport(starts: WarmStart[], adapter: string): string {
  if (starts.length === 0) return "";
  const lines = ["First start of what the agent runs (its next start is as fast):"];
  for (const start of starts) {
    lines.push(`  ${start.command}: ${start.ok ? "" : "FAILED: "}${start.detail}`);
  }
  if (starts.some((start) => !start.ok)) {
    lines.push(
      `  The agent will not reach Vantage until this works: run \`vantage doctor --adapter ${adapter}\` ` +
        "to see why.",
    );
  }
  return lines.join("\n") + "\n";
}

function report(
  environment: InstallEnvironment,
  plan: Plan,
  outcome: Outcome,
  title: string,
  request: InstallRequest,
): string {
  const lines: string[] = [];
  if (planChangesNothing(plan)) {
    lines.push(`Vantage is already installed for ${title} as asked; nothing changed.`);
  } else {
    lines.push(`Installed Vantage for ${title}:`);
    for (const change of plan.groups.flatMap((group) => group.changes)) {
      const verb = change.after === undefined
        ? "removed"
        : change.before === undefined
        ? "created"
        : "updated";
      const backup = outcome.backups.find((path) => path.startsWith(change.path + "."));
      lines.push(
        `  ${verb.padEnd(8)}${displayPath(environment, change.path)}  (${change.purpose}` +
          `${
            backup === undefined ? "" : `; original saved as ${displayPath(environment, backup)}`
          })`,
      );
    }
  }
  for (const warning of outcome.warnings) lines.push(`  note: ${warning}`);
  const adapterName = plan.groups[0].record as Parameters<typeof adapterFor>[0];
  const notes = adapterFor(adapterName).notes(environment, request);
  if (request.autostart === true) {
    const unit = autostartUnit(environment);
    if (unit === undefined) {
      notes.push(
        `No autostart service exists for ${environment.platform}; the SessionStart hook ` +
          "starts `vantage serve` when it is not running.",
      );
    } else {
      notes.push(
        `Turn the autostart service on: ${unit.enable.join(" && ")}`,
      );
    }
  } else if (request.hooks && adapterName !== "openclaw") {
    notes.push(
      "The server: the SessionStart hook starts `vantage serve` when it is not running " +
        "(or install with --autostart to keep it running).",
    );
  }
  lines.push("Next:", ...notes.map((note) => `  - ${note}`));
  return lines.join("\n") + "\n";
}
