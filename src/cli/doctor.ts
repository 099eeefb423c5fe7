/**
 * `vantage doctor`: checks every agent Vantage is installed in and the
 * server, and prints what to fix (or the whole report as JSON).
 *
 * @module
 */
import { parseAdapterName } from "../install/agent.ts";
import { type CheckStatus, type DoctorReport, runDoctor } from "../install/doctor.ts";
import {
  currentEnvironment,
  displayPath,
  type InstallEnvironment,
} from "../install/environment.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";

/** The `doctor` command. */
export const command: Command = {
  name: "doctor",
  summary: "Check each agent's Vantage setup and the server; say what to fix",
  usage: `Usage: vantage doctor [--adapter NAME] [--json]

For each agent Vantage is installed in: the config file parses, it holds the
'vantage' MCP server, its command exists, the server answers 'initialize'
when started (10 s budget), and the hooks are registered. Also whether the
Vantage server answers at VANTAGE_URL (default http://127.0.0.1:14300); it
may be down, which is reported but is not an error.
Exits 0 when nothing failed, 1 otherwise.

Options:
  --adapter NAME   Check only this agent
  --json           Print the report as JSON
  -h, --help       Show this help`,
  async run(args) {
    const { values } = parseFlags("doctor", args, {
      adapter: { type: "string" },
      json: { type: "boolean" },
    });
    const environment = currentEnvironment();
    const adapters = typeof values.adapter === "string"
      ? [parseAdapterName(values.adapter)]
      : undefined;
    const report = await runDoctor(environment, adapters === undefined ? {} : { adapters });
    if (values.json === true) writeStdout(JSON.stringify(report, null, 2) + "\n");
    else writeStdout(render(environment, report));
    return report.ok ? 0 : 1;
  },
};

const MARK: Record<CheckStatus, string> = { ok: "✔", warn: "⚠", fail: "✘" };

function render(environment: InstallEnvironment, report: DoctorReport): string {
  const short = (text: string): string =>
    environment.userHome.length > 1 ? text.replaceAll(environment.userHome + "/", "~/") : text;
  const lines: string[] = [];
  const server = report.server;
  lines.push(`${MARK[server.status]} server: ${short(server.detail)}`);
  if (server.fix !== undefined) lines.push(`    fix: ${server.fix}`);
  if (report.autostart !== undefined) {
    lines.push(`  autostart service: ${displayPath(environment, report.autostart)}`);
  }
  for (const adapter of report.adapters) {
    if (!adapter.installed) {
      lines.push(
        `- ${adapter.title}: not installed (vantage install --adapter ${adapter.adapter})`,
      );
      continue;
    }
    lines.push(`${adapter.title}:`);
    for (const check of adapter.checks) {
      lines.push(`  ${MARK[check.status]} ${check.name}: ${short(check.detail)}`);
      if (check.fix !== undefined) lines.push(`      fix: ${check.fix}`);
    }
  }
  if (report.adapters.every((adapter) => !adapter.installed)) {
    lines.push("Vantage is not installed in any agent: run vantage install --adapter <agent>.");
  } else {
    lines.push(report.ok ? "All checks passed." : "Some checks failed: see 'fix' above.");
  }
  return lines.join("\n") + "\n";
}
