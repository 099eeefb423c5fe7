/**
 * `docs.restore`: writes the documents of a collection or snapshot back to
 * disk below `output_directory`, byte-identical (verified), refusing any
 * stored path that would land outside it and reporting (not stopping at)
 * documents whose stored bytes are damaged.
 *
 * @module
 */
import { z } from "zod";
import { restoreDocuments } from "../doc_restore.ts";
import { storedPieces } from "../stored_pieces.ts";
import { prepareWriteFolder } from "../../core/confined_write.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, globList, globsSchema, pathSchema } from "./shared.ts";

/** The `docs.restore` operation. */
export const restoreOperation: Operation = defineOperation({
  id: "docs.restore",
  title: "Restore documents to disk",
  description:
    "Write a `collection` or `snapshot_id` back to disk at the paths added with, in `output_directory`, verified byte for byte; existing files kept unless `overwrite`.",
  input: z.object({
    collection: z.string().min(1).optional(),
    snapshot_id: z.string().min(1).optional(),
    output_directory: pathSchema.describe("Folder to write into"),
    include_patterns: globsSchema.optional().describe("Only paths matching these globs"),
    exclude_patterns: globsSchema.optional().describe("Leave out paths matching these globs"),
    dry_run: z.boolean().default(false).describe("Report without writing"),
    overwrite: z.boolean().default(false).describe("Replace existing files"),
  }),
  output: z.object({
    output_directory: z.string(),
    dry_run: z.boolean(),
    total: z.number().int(),
    restored: z.number().int(),
    skipped: z.number().int(),
    refused: z.number().int(),
    damaged: z.number().int().describe("Documents not written: their stored bytes are damaged"),
    bytes: z.number().int(),
    files: z.array(z.object({
      path: z.string(),
      source: z.string(),
      hash: z.string(),
      size: z.number().int(),
      status: z.enum(["written", "would_write", "exists", "duplicate", "refused", "damaged"]),
      reason: z.string().optional(),
    })),
    files_truncated: z.boolean(),
  }),
  scopes: ["docs:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  timeoutMs: 600_000,
  async run(context, input) {
    const docs = docsContext(context);
    // Checked (and made) before any document is read: a folder outside the roots refuses it all.
    const output = prepareWriteFolder(docs.writeRoots, input.output_directory, {
      create: !input.dry_run,
    }).folder;
    const pieces = (hash: string, label: { path: string; id?: number }) =>
      storedPieces(docs, hash, label);
    const report = await restoreDocuments(docs.store, pieces, {
      roots: docs.writeRoots,
      collection: input.collection,
      snapshotId: input.snapshot_id,
      outputDirectory: output,
      include: globList(input.include_patterns),
      exclude: globList(input.exclude_patterns),
      dryRun: input.dry_run,
      overwrite: input.overwrite,
    });
    return {
      ...report,
      files: report.files.slice(0, 1000),
      files_truncated: report.files.length > 1000,
    };
  },
});
