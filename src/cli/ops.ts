/**
 * `vantage ops [query]`: the operations the caller may run, searched the same
 * way the MCP `search` tool searches them.
 *
 * @module
 */
import { VANTAGE_NAMING } from "../mcp/operation_names.ts";
import { builtinCatalog } from "../ops/builtin.ts";
import { callerFromFlags } from "./caller.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import { VantageError } from "../core/errors.ts";

/** The `ops` command. */
export const command: Command = {
  name: "ops",
  summary: "List or search the operations you may run",
  usage: `Usage: vantage ops [query] [options]

Lists the operations in the catalog, or the best matches for a query.

Options:
  --cassette NAME   Only operations of this cassette (dex, agent, docs, session)
  --limit N         Most results to show (default: all when listing, 10 when searching)
  --scopes LIST     Act with these scopes (comma-separated; default: all local scopes)
  --json            Print the search result as JSON (with schemas)
  -h, --help        Show this help`,
  run(args) {
    const { values, positionals } = parseFlags("ops", args, {
      cassette: { type: "string" },
      limit: { type: "string" },
      scopes: { type: "string" },
      json: { type: "boolean" },
    }, 1);
    const caller = callerFromFlags(values.scopes);
    const catalog = builtinCatalog({ naming: VANTAGE_NAMING });
    const query = positionals[0] ?? "";
    let limit = query === "" ? catalog.operations().length : 10;
    if (typeof values.limit === "string") {
      limit = Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) {
        throw new VantageError(
          "invalid_arguments",
          `--limit must be a positive integer; got '${values.limit}'`,
        );
      }
    }
    const cassette = typeof values.cassette === "string" ? values.cassette : undefined;
    if (cassette !== undefined && !catalog.cassettes.some((c) => c.name === cassette)) {
      throw new VantageError(
        "invalid_arguments",
        `unknown cassette '${cassette}'; cassettes: ${
          catalog.cassettes.map((c) => c.name).join(", ")
        }`,
      );
    }
    const found = catalog.search(query, caller, { limit, cassette });
    if (values.json === true) {
      writeStdout(JSON.stringify(found, null, 2) + "\n");
      return Promise.resolve(0);
    }
    if (found.results.length === 0) {
      writeStdout(
        query === ""
          ? "No operations available with these scopes.\n"
          : `No operation matches '${query}'.\n`,
      );
      return Promise.resolve(0);
    }
    const width = Math.max(...found.results.map((r) => r.operation_id.length));
    for (const result of found.results) {
      writeStdout(`${result.operation_id.padEnd(width)}  ${result.title}\n`);
    }
    if (found.truncated) writeStdout(`… more matches; raise --limit\n`);
    return Promise.resolve(0);
  },
};
