/**
 * `vantage add <path>…`: stores files and folders (or stdin) in document
 * memory through the `docs.add` operation.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, readStdin, writeStdout } from "./command.ts";
import {
  formatBytes,
  listFlag,
  OUTPUT_FLAGS,
  runDocsOperation,
  setDefined,
  sharedFlagsHelp,
  stringFlag,
} from "./docs_common.ts";

/** The `add` command. */
export const command: Command = {
  name: "add",
  summary: "Store files, folders or stdin in document memory",
  usage: `Usage: vantage add <path>... [options]
       vantage add - --name NAME < file

Stores files and folders (recursively) as documents: content-addressed,
deduplicated, indexed for search. '-' reads the content from stdin.

Options:
  --name NAME         Name for content read from stdin
  --tags LIST         Tags (comma-separated)
  --metadata LIST     key=value pairs (comma-separated)
  --collection NAME   Collection to add to
  --label TEXT        Snapshot label
  --include GLOBS     Only files matching these globs (comma-separated)
  --exclude GLOBS     Leave out files matching these globs (comma-separated)
  --no-recursive      Do not descend into sub-folders
  --no-session        Do not attach the current session
${sharedFlagsHelp(22)}`,
  async run(args) {
    const { values, positionals } = parseFlags("add", args, {
      name: { type: "string" },
      tags: { type: "string" },
      metadata: { type: "string" },
      collection: { type: "string" },
      label: { type: "string" },
      include: { type: "string" },
      exclude: { type: "string" },
      "no-recursive": { type: "boolean" },
      "no-session": { type: "boolean" },
      ...OUTPUT_FLAGS,
    }, Infinity);
    if (positionals.length === 0) {
      throw new VantageError(
        "invalid_arguments",
        "give at least one path, or '-' for stdin (see 'vantage add --help')",
      );
    }
    const common: Record<string, unknown> = {};
    setDefined(common, "tags", listFlag(values.tags));
    setDefined(common, "metadata", listFlag(values.metadata));
    setDefined(common, "collection", stringFlag(values.collection));
    setDefined(common, "snapshot_label", stringFlag(values.label));
    if (values["no-session"] === true) common.no_session = true;
    const results: Record<string, unknown>[] = [];
    for (const target of positionals) {
      const params: Record<string, unknown> = { ...common };
      if (target === "-") {
        const name = stringFlag(values.name);
        if (name === undefined) {
          throw new VantageError("invalid_arguments", "content from stdin needs --name");
        }
        params.content = await readStdin();
        params.name = name;
      } else {
        params.path = target;
        setDefined(params, "include", listFlag(values.include));
        setDefined(params, "exclude", listFlag(values.exclude));
        if (values["no-recursive"] === true) params.recursive = false;
      }
      results.push(await runDocsOperation("docs.add", params, values.scopes));
    }
    if (values.json === true) {
      writeStdout(JSON.stringify(results.length === 1 ? results[0] : results, null, 2) + "\n");
      return 0;
    }
    for (const [index, result] of results.entries()) {
      const r = result as {
        documents_added: number;
        documents_updated: number;
        documents_unchanged: number;
        new_chunks: number;
        stored_bytes: number;
        bytes: number;
        snapshot_id: string;
        hash?: string;
        skipped: Array<{ path: string; reason: string }>;
      };
      writeStdout(
        `${positionals[index]}: ${r.documents_added} added, ${r.documents_updated} updated, ` +
          `${r.documents_unchanged} unchanged (${
            formatBytes(r.bytes)
          }; ${r.new_chunks} new chunks, ` +
          `${formatBytes(r.stored_bytes)} stored) snapshot ${r.snapshot_id}` +
          (r.hash !== undefined ? `\n  ${r.hash}` : "") + "\n",
      );
      for (const skipped of r.skipped) {
        writeStdout(`  skipped ${skipped.path}: ${skipped.reason}\n`);
      }
    }
    return 0;
  },
};
