/**
 * `vantage project refresh [DIR]`: re-index a project's structure now.
 *
 * @module
 */
import { resolve } from "node:path";
import { resolvePaths } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import { describeStack, detectProject } from "../perception/project_detect.ts";
import { openDatabase } from "../store/database.ts";
import { saveProjectState } from "../store/perception/project_state.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";

/** The `project` command. */
export const command: Command = {
  name: "project",
  summary: "Index a project's structure now: vantage project refresh [DIR]",
  usage: `Usage: vantage project refresh [DIR] [--json]

Indexes the project in DIR (default: this folder): languages, build system,
test framework and test locations, top-level folders, key files, build and
test commands. Agents read it with get_project_state; serve refreshes it daily.`,
  async run(args) {
    const { values, positionals } = parseFlags("project", args, { json: { type: "boolean" } }, 2);
    if (positionals[0] !== "refresh") {
      throw new VantageError("invalid_arguments", "usage: vantage project refresh [DIR]");
    }
    const root = resolve(positionals[1] ?? Deno.cwd());
    const state = await detectProject(root);
    const db = openDatabase(resolvePaths().database);
    try {
      saveProjectState(db, root, JSON.stringify(state), Date.now());
    } finally {
      db.close();
    }
    if (values.json === true) {
      writeStdout(JSON.stringify(state, null, 2) + "\n");
    } else {
      writeStdout(
        `${state.name}: ${
          describeStack(state) || "no stack detected"
        }; ${state.files_scanned} files scanned` +
          `${
            state.key_files.length > 0
              ? `; key files: ${state.key_files.slice(0, 6).join(", ")}`
              : ""
          }\n`,
      );
    }
    return 0;
  },
};
