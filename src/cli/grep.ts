/**
 * `vantage grep <pattern> [path…]`: regular-expression search in stored
 * documents through `docs.grep`, printed like ripgrep.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import {
  integerFlag,
  OUTPUT_FLAGS,
  runDocsOperation,
  SESSION_FLAGS,
  setDefined,
  setSessionScope,
  sharedFlagsHelp,
} from "./docs_common.ts";

interface Line {
  line?: number;
  text: string;
}

interface FileResult {
  path: string;
  count: number;
  matches?: Array<Line & { before?: Line[]; after?: Line[] }>;
}

/** The `grep` command. */
export const command: Command = {
  name: "grep",
  summary: "Search the text of stored documents for a regular expression",
  usage: `Usage: vantage grep <pattern> [path...] [options]

Searches stored text documents (optionally only the given stored paths,
folders or globs) for a regular expression.

Options:
  -i, --ignore-case        Case-insensitive
  -w, --word               Whole words only
  -F, --fixed-strings      Treat the pattern as plain text
  -n, --line-numbers       Show line numbers
  -C, --context N          Lines of context around matches
  -c, --count              Only count matching lines per file
  -l, --files-with-matches Only list files with matches
  -m, --max-count N        Stop after N matches per file
${sharedFlagsHelp(27, { session: true })}`,
  async run(args) {
    const { values, positionals } = parseFlags("grep", args, {
      "ignore-case": { type: "boolean", short: "i" },
      word: { type: "boolean", short: "w" },
      "fixed-strings": { type: "boolean", short: "F" },
      "line-numbers": { type: "boolean", short: "n" },
      context: { type: "string", short: "C" },
      count: { type: "boolean", short: "c" },
      "files-with-matches": { type: "boolean", short: "l" },
      "max-count": { type: "string", short: "m" },
      ...SESSION_FLAGS,
      ...OUTPUT_FLAGS,
    }, Infinity);
    const [pattern, ...paths] = positionals;
    if (pattern === undefined) {
      throw new VantageError("invalid_arguments", "give a pattern (see 'vantage grep --help')");
    }
    const params: Record<string, unknown> = { pattern };
    if (paths.length > 0) params.paths = paths;
    if (values["ignore-case"] === true) params.ignore_case = true;
    if (values.word === true) params.word = true;
    if (values["fixed-strings"] === true) params.literal = true;
    if (values["line-numbers"] === true) params.line_numbers = true;
    if (values.count === true) params.count = true;
    if (values["files-with-matches"] === true) params.files_with_matches = true;
    setSessionScope(params, values);
    setDefined(params, "context", integerFlag("context", values.context));
    setDefined(params, "max_count", integerFlag("max-count", values["max-count"]));
    const result = await runDocsOperation("docs.grep", params, values.scopes);
    if (values.json === true) {
      writeStdout(JSON.stringify(result, null, 2) + "\n");
      return result.total_matches === 0 ? 1 : 0;
    }
    if (Array.isArray(result.files)) {
      for (const path of result.files as string[]) writeStdout(path + "\n");
    } else {
      for (const file of (result.results ?? []) as FileResult[]) {
        if (file.matches === undefined) {
          writeStdout(`${file.path}:${file.count}\n`);
          continue;
        }
        const show = (line: Line, separator: string) =>
          writeStdout(
            `${file.path}${separator}${
              line.line !== undefined ? line.line + separator : ""
            }${line.text}\n`,
          );
        for (const match of file.matches) {
          for (const line of match.before ?? []) show(line, "-");
          show(match, ":");
          for (const line of match.after ?? []) show(line, "-");
        }
      }
    }
    // Like grep: exit 1 when nothing matched.
    return result.total_matches === 0 ? 1 : 0;
  },
};
