/**
 * `vantage restore`: writes a collection or snapshot back to disk through
 * `docs.restore`.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import {
  formatBytes,
  listFlag,
  OUTPUT_FLAGS,
  runDocsOperation,
  setDefined,
  sharedFlagsHelp,
  stringFlag,
} from "./docs_common.ts";

/** The `restore` command. */
export const command: Command = {
  name: "restore",
  summary: "Restore a collection or snapshot to a folder",
  usage: `Usage: vantage restore (--collection NAME | --snapshot ID) --output DIR [options]

Writes stored documents back to disk, byte-identical, below DIR at the
path each had below the folder it was added from. A document whose stored
bytes are damaged is reported (with the chunk and pack) and not written;
the others still are, and the exit code is 1.

Options:
  --collection NAME   Restore this collection
  --snapshot ID       Restore this snapshot (see 'vantage call docs.list_snapshots')
  -o, --output DIR    Folder to write into
  --include GLOBS     Only paths matching these globs (comma-separated)
  --exclude GLOBS     Leave out paths matching these globs (comma-separated)
  --overwrite         Replace existing files (default: skip them)
  --dry-run           Report what would be written
${sharedFlagsHelp(22)}`,
  async run(args) {
    const { values } = parseFlags("restore", args, {
      collection: { type: "string" },
      snapshot: { type: "string" },
      output: { type: "string", short: "o" },
      include: { type: "string" },
      exclude: { type: "string" },
      overwrite: { type: "boolean" },
      "dry-run": { type: "boolean" },
      ...OUTPUT_FLAGS,
    });
    const output = stringFlag(values.output);
    if (output === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "give --output DIR (see 'vantage restore --help')",
      );
    }
    const params: Record<string, unknown> = { output_directory: output };
    setDefined(params, "collection", stringFlag(values.collection));
    setDefined(params, "snapshot_id", stringFlag(values.snapshot));
    setDefined(params, "include_patterns", listFlag(values.include));
    setDefined(params, "exclude_patterns", listFlag(values.exclude));
    if (values.overwrite === true) params.overwrite = true;
    if (values["dry-run"] === true) params.dry_run = true;
    const result = await runDocsOperation("docs.restore", params, values.scopes);
    if (values.json === true) {
      writeStdout(JSON.stringify(result, null, 2) + "\n");
      return 0;
    }
    const files = result.files as Array<{ path: string; status: string; reason?: string }>;
    for (const file of files) {
      if (file.status !== "written") {
        writeStdout(`${file.status}: ${file.path}${file.reason ? ` (${file.reason})` : ""}\n`);
      }
    }
    writeStdout(
      `${result.dry_run ? "would restore" : "restored"} ${result.restored} of ${result.total} ` +
        `(${formatBytes(result.bytes as number)}) into ${result.output_directory}; ` +
        `${result.skipped} skipped, ${result.refused} refused, ${result.damaged} damaged\n`,
    );
    return (result.refused as number) > 0 || (result.damaged as number) > 0 ? 1 : 0;
  },
};
