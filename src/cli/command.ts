/**
 * What a CLI command is, and the flag parsing every command shares. The CLI
 * is the boundary where errors become one stderr line and an exit code.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { VantageError } from "../core/errors.ts";

/** One `vantage <name>` command. */
export interface Command {
  /** The word after `vantage`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full `--help` text. */
  usage: string;
  /** Runs the command and returns the exit code. */
  run(args: string[]): Promise<number>;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flags and positionals. */
export interface ParsedFlags {
  /** Flag values by long name. */
  values: Record<string, string | boolean | undefined>;
  /** Positional arguments, in order. */
  positionals: string[];
}

/**
 * Parses `args` strictly: an unknown flag or a missing value is an
 * `invalid_arguments` error that names it and points at `--help`.
 */
export function parseFlags(
  command: string,
  args: string[],
  options: Options,
  maxPositionals = 0,
): ParsedFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { help: { type: "boolean", short: "h" }, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error
      ? error.message.replace(/\.?\s*To specify.*$/s, "")
      : String(error);
    throw new VantageError("invalid_arguments", `${message} (see 'vantage ${command} --help')`);
  }
  if (parsed.positionals.length > maxPositionals && parsed.values.help !== true) {
    const extra = parsed.positionals.slice(maxPositionals).map((p) => `'${p}'`).join(" ");
    throw new VantageError(
      "invalid_arguments",
      `unexpected argument${
        parsed.positionals.length - maxPositionals > 1 ? "s" : ""
      } ${extra} (see 'vantage ${command} --help')`,
    );
  }
  return {
    values: parsed.values as Record<string, string | boolean | undefined>,
    positionals: parsed.positionals,
  };
}

export { readStdin, writeStderr, writeStdout } from "./output.ts";
