/**
 * `vantage search <query>`: searches document memory through `docs.search`.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import {
  integerFlag,
  OUTPUT_FLAGS,
  printJsonOrPaths,
  runDocsOperation,
  SESSION_FLAGS,
  setDefined,
  setSessionScope,
  sharedFlagsHelp,
  stringFlag,
} from "./docs_common.ts";

interface Result {
  id: number;
  hash: string;
  title: string;
  path: string;
  score: number;
  snippet: string;
}

/** The `search` command. */
export const command: Command = {
  name: "search",
  summary: "Search stored documents (hybrid, keyword, semantic, fuzzy)",
  usage: `Usage: vantage search <query> [options]

Searches stored documents. Default mode: hybrid (keyword + semantic).

Options:
  --type MODE         hybrid (default), keyword, semantic or fuzzy
  --limit N           Most results (default 10)
  --hash PREFIX       Look a document up by content hash (8+ hex characters)
  --no-fuzzy          Do not widen words to similar ones
  -n, --line-numbers  Number snippet lines
  -C, --context N     Lines of context around matches
  --paths-only        Print only paths
${sharedFlagsHelp(22, { session: true })}`,
  async run(args) {
    const { values, positionals } = parseFlags("search", args, {
      type: { type: "string" },
      limit: { type: "string" },
      hash: { type: "string" },
      "no-fuzzy": { type: "boolean" },
      "line-numbers": { type: "boolean", short: "n" },
      context: { type: "string", short: "C" },
      "paths-only": { type: "boolean" },
      ...SESSION_FLAGS,
      ...OUTPUT_FLAGS,
    }, Infinity);
    const query = positionals.join(" ").trim();
    const hash = stringFlag(values.hash);
    if (query === "" && hash === undefined) {
      throw new VantageError("invalid_arguments", "give a query (see 'vantage search --help')");
    }
    const params: Record<string, unknown> = {};
    if (query !== "") params.query = query;
    setDefined(params, "hash", hash);
    setDefined(params, "type", stringFlag(values.type));
    setDefined(params, "limit", integerFlag("limit", values.limit, 1));
    setDefined(params, "context", integerFlag("context", values.context));
    if (values["no-fuzzy"] === true) params.fuzzy = false;
    if (values["line-numbers"] === true) params.line_numbers = true;
    if (values["paths-only"] === true) params.paths_only = true;
    setSessionScope(params, values);
    const result = await runDocsOperation("docs.search", params, values.scopes);
    if (printJsonOrPaths(result, values.json === true)) return 0;
    const results = (result.results ?? []) as Result[];
    if (results.length === 0) {
      writeStdout(`No documents match '${query || hash}'.\n`);
      return 0;
    }
    for (const item of results) {
      writeStdout(`${item.path}  (${item.hash.slice(0, 12)}, score ${item.score})\n`);
      for (const line of item.snippet.split("\n")) {
        if (line.trim() !== "") writeStdout(`    ${line}\n`);
      }
    }
    for (const warning of (result.warnings ?? []) as string[]) writeStdout(`warning: ${warning}\n`);
    return 0;
  },
};
