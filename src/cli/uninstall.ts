/**
 * `vantage uninstall --adapter <agent>`: takes Vantage out of one agent's
 * config, restoring each file's original bytes when nothing else changed it,
 * and with `--purge-data` deletes the data home too.
 *
 * @module
 */
import { adapterFor } from "../install/adapters.ts";
import { ADAPTER_NAMES, type InstallOptions, parseAdapterName } from "../install/agent.ts";
import { autostartUnit } from "../install/autostart.ts";
import { currentEnvironment, displayPath } from "../install/environment.ts";
import {
  applyPlan,
  AUTOSTART_RECORD,
  planChangesNothing,
  planDiff,
  planUninstall,
  purgeDataHome,
} from "../install/installer.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";

/** The `uninstall` command. */
export const command: Command = {
  name: "uninstall",
  summary: "Remove Vantage from an agent (MCP server, hooks, skill)",
  usage: `Usage: vantage uninstall --adapter ${ADAPTER_NAMES.join("|")} [options]

Removes Vantage's MCP server, hooks and skill from an agent. A file that
still holds exactly what 'vantage install' wrote gets its original bytes back
(or is deleted, with the folders Vantage created, if it did not exist);
otherwise only Vantage's entries are taken out and your later edits stay.

Options:
  --adapter NAME   claude-code, codex, copilot-cli or openclaw
  --project DIR    Claude Code: also clean DIR/.mcp.json
  --purge-data     Also delete Vantage's data home (~/.vantage, VANTAGE_HOME)
  --dry-run        Print the exact diff of every file; write nothing
  -h, --help       Show this help`,
  async run(args) {
    const { values } = parseFlags("uninstall", args, {
      adapter: { type: "string" },
      project: { type: "string" },
      "purge-data": { type: "boolean" },
      "dry-run": { type: "boolean" },
    });
    const adapter = parseAdapterName(values.adapter as string | undefined);
    const options: InstallOptions = { hooks: true };
    if (typeof values.project === "string") options.project = values.project;
    const environment = currentEnvironment();
    const plan = await planUninstall(environment, adapter, options);
    const title = adapterFor(adapter).title;
    const purge = values["purge-data"] === true;
    if (values["dry-run"] === true) {
      const lines = planChangesNothing(plan)
        ? [`Vantage is not installed for ${title}; nothing would change.`]
        : [planDiff(plan).trimEnd()];
      if (purge) {
        lines.push(`--purge-data would delete ${displayPath(environment, environment.dataHome)}`);
      }
      writeStdout(`${lines.join("\n")}\n(dry run: nothing was written)\n`);
      return 0;
    }
    const outcome = await applyPlan(environment, plan);
    const lines: string[] = [];
    if (planChangesNothing(plan)) {
      lines.push(`Vantage was not installed for ${title}; no agent file changed.`);
    } else {
      lines.push(`Removed Vantage from ${title}:`);
      for (const change of plan.groups.flatMap((group) => group.changes)) {
        const verb = change.after === undefined ? "removed" : "restored";
        lines.push(
          `  ${verb.padEnd(9)}${displayPath(environment, change.path)}  (${change.purpose})`,
        );
      }
    }
    for (const backup of outcome.backupsRemoved) {
      lines.push(
        `  the original came back byte for byte; deleted ${displayPath(environment, backup)}`,
      );
    }
    for (const backup of outcome.backupsKept) {
      lines.push(
        `  kept ${displayPath(environment, backup)}: the file was edited since the install, ` +
          "so only Vantage's entries were taken out",
      );
    }
    const autostart = plan.groups.find((group) => group.record === AUTOSTART_RECORD);
    const unit = autostartUnit(environment);
    if (autostart !== undefined && autostart.changes.length > 0 && unit !== undefined) {
      lines.push(
        `  the autostart service file is gone; if you had turned it on, also run: ${
          unit.disable.join(" && ")
        }`,
      );
    }
    if (purge) {
      const removed = await purgeDataHome(environment);
      lines.push(
        removed.length === 0
          ? `  no data to delete in ${displayPath(environment, environment.dataHome)}`
          : `  deleted the data in ${displayPath(environment, environment.dataHome)}`,
      );
    }
    writeStdout(lines.join("\n") + "\n");
    return 0;
  },
};
