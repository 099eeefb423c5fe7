/**
 * `vantage query-worker <database>` (hidden): the query process of a
 * compiled `vantage`, which starts itself with this command because it
 * cannot run the process module with `deno run`. Only the process module is
 * imported, so it starts as fast as that one.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { exitWithParent, serveQueryProcess } from "../store/query/readonly_query_process.ts";
import type { Command } from "./command.ts";

/** The `query-worker` command. */
export const command: Command = {
  name: "query-worker",
  summary: "Run read-only SQL queries for another Vantage process (internal)",
  usage: `Usage: vantage query-worker DATABASE

Internal: started by Vantage itself to run read-only SQL queries (exec_query,
/api/query) in a process it can kill when a query passes its time limit. Reads
one JSON request per line on stdin and answers one JSON line each on stdout.`,
  async run(args) {
    if (args.length !== 1 || args[0].startsWith("-")) {
      throw new VantageError(
        "invalid_arguments",
        "query-worker takes exactly one argument, the database file (see 'vantage query-worker --help')",
      );
    }
    const stopWatching = exitWithParent();
    try {
      await serveQueryProcess(args[0], Deno.stdin.readable, Deno.stdout.writable);
    } finally {
      stopWatching();
    }
    return 0;
  },
};
