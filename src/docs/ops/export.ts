/**
 * `docs.export`: writes one stored document (verified against its hash) to
 * a file. Writing a file is a write: it needs `docs:write`, it is offered
 * only where writes are (the composite `execute` tool, never the read-only
 * `query` pipeline), and the file must land inside `VANTAGE_ROOTS`, never in
 * the data home, whatever Deno allows (see core/confined_write.ts). The
 * document is found and its bytes read through the store of either backend.
 *
 * @module
 */
import { z } from "zod";
import { prepareWriteTarget, writeConfined } from "../../core/confined_write.ts";
import { resolveDocumentIn } from "../doc_read.ts";
import { storedPieces } from "../stored_pieces.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, pathSchema } from "./shared.ts";

/** The `docs.export` operation. */
export const exportOperation: Operation = defineOperation({
  id: "docs.export",
  title: "Export a document to a file",
  description:
    "Write one stored document to a file. By `hash` or `name`, to `outputPath` inside VANTAGE_ROOTS, verified byte for byte; an existing file is replaced only with `overwrite`.",
  input: z.object({
    hash: z.string().min(1).optional().describe("Content hash or prefix"),
    name: z.string().min(1).optional().describe("Path or path suffix"),
    outputPath: pathSchema.describe("File to write"),
    overwrite: z.boolean().default(false),
  }),
  output: z.object({
    id: z.number().int(),
    hash: z.string(),
    path: z.string().describe("The stored document's path"),
    written_to: z.string().describe("The file written (its real path)"),
    bytes: z.number().int(),
  }),
  scopes: ["docs:write"],
  annotations: {
    readOnlyHint: false,
    // With `overwrite` it replaces a file.
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(context, input) {
    const docs = docsContext(context);
    const row = await resolveDocumentIn(docs.store, { hash: input.hash, name: input.name });
    const target = prepareWriteTarget(docs.writeRoots, input.outputPath);
    writeConfined(target, await storedPieces(docs, row.hash, { path: row.path, id: row.id }), {
      overwrite: input.overwrite,
    });
    return {
      id: row.id,
      hash: row.hash,
      path: row.path,
      written_to: target.path,
      bytes: row.size,
    };
  },
});
