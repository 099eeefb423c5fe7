/**
 * `docs.get`: one document by hash (or prefix) or name, with its content
 * (verified against its hash), written to `outputPath` if asked, and the
 * code-graph nodes around it.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import { fileNodeKey, walkGraph } from "../doc_graph.ts";
import { describeDocument, documentBytes, resolveDocumentIn } from "../doc_read.ts";
import { readContentFrom } from "../store_content.ts";
import { decodeText } from "../text_extract.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  type DocsContext,
  docsContext,
  documentInfoSchema,
  graphNodeSchema,
  pathSchema,
  sqliteConnection,
} from "./shared.ts";

/**
 * A document's bytes, verified against its hash. SQLite reads them with its pack files (naming
 * a damaged one and recording the damage as the store's health); a server reads its rows.
 */
async function verifiedBytes(docs: DocsContext, row: DocumentRow): Promise<Uint8Array> {
  const sqlite = sqliteConnection(docs);
  if (sqlite !== undefined) return documentBytes(sqlite, row);
  return await readContentFrom(docs.store, row.hash, { path: row.path, id: row.id });
}

/** The `docs.get` operation. */
export const getOperation: Operation = defineOperation({
  id: "docs.get",
  title: "Get a document",
  description:
    "Get one stored document by `hash` (or prefix) or `name` (path, file name or suffix). Its metadata; with include_content its verified content, with graph its code-graph neighbours.",
  input: z.object({
    // An abbreviated hash must be long enough to be unambiguous; the lookup refuses shorter.
    hash: z.string().min(1).meta({ minLength: 8, maxLength: 64 }).optional().describe(
      "Content hash or prefix",
    ),
    name: z.string().min(1).optional().describe("Path or path suffix"),
    include_content: z.boolean().default(false),
    outputPath: pathSchema.optional().describe(
      "Refused here: use export (docs:write)",
    ),
    graph: z.boolean().default(false).describe("Add related code-graph nodes"),
    depth: z.number().int().min(1).max(5).default(2).describe("Graph hops"),
  }),
  output: documentInfoSchema.extend({
    content: z.string().optional(),
    content_encoding: z.enum(["utf-8", "base64"]).optional(),
    related: z.array(graphNodeSchema).optional(),
  }),
  scopes: ["docs:read"],
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(context, input) {
    if (input.outputPath !== undefined) {
      // YAMS's get wrote files from its read-only pipeline; here a write needs a write scope.
      throw new VantageError(
        "invalid_arguments",
        "get only reads and never writes a file: write a document to outputPath with the export operation (docs.export, scope docs:write; in the composite surface: execute → export)",
        { details: { argument: "outputPath" } },
      );
    }
    const docs = docsContext(context);
    const row = await resolveDocumentIn(docs.store, { hash: input.hash, name: input.name });
    const info = await describeDocument(docs.store, row);
    const result: z.infer<typeof documentInfoSchema> & {
      content?: string;
      content_encoding?: "utf-8" | "base64";
      related?: z.infer<typeof graphNodeSchema>[];
    } = info;
    if (input.include_content) {
      const bytes = await verifiedBytes(docs, row);
      if (row.is_text === 1) {
        result.content = decodeText(bytes);
        result.content_encoding = "utf-8";
      } else {
        result.content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
          "base64",
        );
        result.content_encoding = "base64";
      }
    }
    if (input.graph) {
      result.related = (await walkGraph(docs.store, {
        start: fileNodeKey(row),
        depth: input.depth,
        reverse: false,
        limit: 100,
      })).nodes;
    }
    return result;
  },
});
