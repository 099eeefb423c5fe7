/**
 * `vantage ls`: lists stored documents through `docs.list`.
 *
 * @module
 */
import { type Command, parseFlags, writeStdout } from "./command.ts";
import {
  formatBytes,
  integerFlag,
  listFlag,
  OUTPUT_FLAGS,
  printJsonOrPaths,
  runDocsOperation,
  SESSION_FLAGS,
  setDefined,
  setSessionScope,
  sharedFlagsHelp,
  stringFlag,
} from "./docs_common.ts";

interface Listed {
  path: string;
  hash: string;
  size: number;
  type: string;
  modified: string;
}

/** The `ls` command. */
export const command: Command = {
  name: "ls",
  summary: "List stored documents",
  usage: `Usage: vantage ls [pattern] [options]

Lists stored documents (the latest version of each path), newest first.
A pattern is a glob over stored paths, e.g. '**/*.md'.

Options:
  --type KIND         text or binary
  --ext EXT           Only this extension (e.g. .py)
  --tags LIST         Only documents with all these tags (comma-separated)
  --collection NAME   Only this collection
  --snapshot ID       Only this snapshot
  --sort KEY          name, size, created, modified or indexed (default)
  --order DIR         asc or desc (default)
  --limit N           Most documents (default 100)
  --offset N          Documents to skip
  --recent N          Only the N most recently stored
  --paths-only        Print only paths
${sharedFlagsHelp(22, { session: true })}`,
  async run(args) {
    const { values, positionals } = parseFlags("ls", args, {
      type: { type: "string" },
      ext: { type: "string" },
      tags: { type: "string" },
      collection: { type: "string" },
      snapshot: { type: "string" },
      sort: { type: "string" },
      order: { type: "string" },
      limit: { type: "string" },
      offset: { type: "string" },
      recent: { type: "string" },
      "paths-only": { type: "boolean" },
      ...SESSION_FLAGS,
      ...OUTPUT_FLAGS,
    }, 1);
    const params: Record<string, unknown> = {};
    setDefined(params, "pattern", positionals[0]);
    setDefined(params, "type", stringFlag(values.type));
    setDefined(params, "extension", stringFlag(values.ext));
    setDefined(params, "tags", listFlag(values.tags));
    setDefined(params, "collection", stringFlag(values.collection));
    setDefined(params, "snapshot_id", stringFlag(values.snapshot));
    setDefined(params, "sort_by", stringFlag(values.sort));
    setDefined(params, "sort_order", stringFlag(values.order));
    setDefined(params, "limit", integerFlag("limit", values.limit, 1));
    setDefined(params, "offset", integerFlag("offset", values.offset));
    setDefined(params, "recent", integerFlag("recent", values.recent, 1));
    setSessionScope(params, values);
    if (values["paths-only"] === true) params.paths_only = true;
    const result = await runDocsOperation("docs.list", params, values.scopes);
    if (printJsonOrPaths(result, values.json === true)) return 0;
    const documents = (result.documents ?? []) as Listed[];
    if (documents.length === 0) {
      writeStdout("No stored documents.\n");
      return 0;
    }
    for (const doc of documents) {
      writeStdout(
        `${doc.hash.slice(0, 12)}  ${formatBytes(doc.size).padStart(9)}  ${
          doc.modified.slice(0, 19)
        }  ${doc.path}\n`,
      );
    }
    const shown = documents.length + (result.offset as number);
    if ((result.total as number) > shown) writeStdout(`… ${result.total} in all; raise --limit\n`);
    return 0;
  },
};
