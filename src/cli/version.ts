/**
 * `vantage version`.
 *
 * @module
 */
import { VERSION } from "../core/version.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";

/** The `version` command. */
export const command: Command = {
  name: "version",
  summary: "Print the version",
  usage: `Usage: vantage version [--json]

Prints Vantage's version, and Deno's with --json.`,
  run(args) {
    const { values } = parseFlags("version", args, { json: { type: "boolean" } });
    if (values.json === true) {
      writeStdout(JSON.stringify({ version: VERSION, deno: Deno.version.deno }) + "\n");
    } else {
      writeStdout(`vantage ${VERSION}\n`);
    }
    return Promise.resolve(0);
  },
};
