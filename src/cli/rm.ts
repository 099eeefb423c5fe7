/**
 * `vantage rm <name|glob>…`: deletes stored documents through `docs.delete`.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import {
  formatBytes,
  OUTPUT_FLAGS,
  runDocsOperation,
  setDefined,
  sharedFlagsHelp,
  stringFlag,
} from "./docs_common.ts";

/** The `rm` command. */
export const command: Command = {
  name: "rm",
  summary: "Delete stored documents by name, glob or hash",
  usage: `Usage: vantage rm <name|glob>... [options]

Deletes stored documents (every version of each matched path); chunks no
document uses any more are freed. With --collection, the documents (all of
the collection's when no name is given) are taken out of that collection
and deleted only when no other collection holds them.

Options:
  --hash PREFIX   Delete documents with this content hash (8+ hex characters)
  --collection NAME  Only documents in this collection (see above)
  --dry-run       Report what would be deleted
${sharedFlagsHelp(18)}`,
  async run(args) {
    const { values, positionals } = parseFlags("rm", args, {
      hash: { type: "string" },
      collection: { type: "string" },
      "dry-run": { type: "boolean" },
      ...OUTPUT_FLAGS,
    }, Infinity);
    const hash = stringFlag(values.hash);
    const collection = stringFlag(values.collection);
    if (positionals.length === 0 && hash === undefined && collection === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "give a name, glob, --hash or --collection (see 'vantage rm --help')",
      );
    }
    const params: Record<string, unknown> = {};
    if (positionals.length > 0) params.names = positionals;
    setDefined(params, "hash", hash);
    setDefined(params, "collection", collection);
    if (values["dry-run"] === true) params.dry_run = true;
    const result = await runDocsOperation("docs.delete", params, values.scopes);
    if (values.json === true) {
      writeStdout(JSON.stringify(result, null, 2) + "\n");
      return 0;
    }
    for (const doc of result.documents as Array<{ path: string; hash: string }>) {
      writeStdout(
        `${result.dry_run ? "would delete" : "deleted"} ${doc.path} (${doc.hash.slice(0, 12)})\n`,
      );
    }
    const kept = (result.kept ?? []) as Array<{ path: string; collections: string[] }>;
    for (const doc of kept) {
      writeStdout(
        `${result.dry_run ? "would keep" : "kept"} ${doc.path} (still in ${
          doc.collections.join(", ")
        })\n`,
      );
    }
    writeStdout(
      `${result.deleted} document${result.deleted === 1 ? "" : "s"}` +
        (result.dry_run
          ? " would be deleted\n"
          : `; ${result.chunks_freed} chunks (${
            formatBytes(result.bytes_freed as number)
          }) freed\n`),
    );
    return result.deleted === 0 && kept.length === 0 ? 1 : 0;
  },
};
