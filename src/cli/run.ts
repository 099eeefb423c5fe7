/**
 * The CLI entry: picks the command, runs it, and turns any error into one
 * stderr line and an exit code. Nothing below this point prints or exits.
 *
 * @module
 */
import { exitCodeFor, toErrorObject } from "../core/errors.ts";
import { VERSION } from "../core/version.ts";
import { writeStderr, writeStdout } from "./output.ts";
import { COMMANDS } from "./registry.ts";

/** The top-level help text. */
export function topLevelHelp(): string {
  const listed = COMMANDS.filter((c) => c.hidden !== true);
  const width = Math.max(...listed.map((c) => c.name.length));
  const lines = listed.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `vantage ${VERSION} — memory and awareness for coding agents

Usage: vantage <command> [options]

Commands:
${lines.join("\n")}

Run 'vantage <command> --help' for a command's options.
`;
}

/**
 * Runs the CLI with `argv` (without the program name) and returns the exit
 * code.
 */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" ? rest[0] : undefined;
    if (topic === undefined) {
      writeStdout(topLevelHelp());
      return 0;
    }
    return await runCli([topic, "--help"]);
  }
  if (name === "--version" || name === "-V") return await runCli(["version"]);
  const entry = COMMANDS.find((command) => command.name === name);
  if (entry === undefined) {
    writeStderr(
      `vantage: unknown command '${name}'; commands: ${
        COMMANDS.filter((c) => c.hidden !== true).map((c) => c.name).join(", ")
      }`,
    );
    return 2;
  }
  try {
    const command = await entry.load();
    if (rest.includes("--help") || rest.includes("-h")) {
      writeStdout(command.usage.endsWith("\n") ? command.usage : command.usage + "\n");
      return 0;
    }
    return await command.run(rest);
  } catch (error) {
    const object = toErrorObject(error);
    writeStderr(`vantage ${name}: ${object.message}`);
    return exitCodeFor(object.kind);
  }
}
