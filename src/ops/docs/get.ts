/**
 * `docs.get`: one document by hash (or prefix) or name, with its content
 * (verified against its hash), written to `outputPath` if asked, and the
 * code-graph nodes around it.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { dirname } from "node:path";
import { z } from "zod";
import { fileNodeKey, walkGraph } from "../../memory/doc_graph.ts";
import { describeDocument, documentBytes, resolveDocument } from "../../memory/doc_read.ts";
import { requirePathAccess } from "../../memory/path_access.ts";
import { decodeText } from "../../memory/text_extract.ts";
import { defineOperation, type Operation } from "../operation.ts";
import { docsContext, documentInfoSchema, graphNodeSchema, pathSchema } from "./shared.ts";

/** The `docs.get` operation. */
export const getOperation: Operation = defineOperation({
  id: "docs.get",
  title: "Get a document",
  description:
    "Retrieve one stored document by content `hash` (or 8+ hex prefix) or `name` (path, file name or path suffix): its metadata, with include_content its content (verified), with outputPath a copy on disk, with graph the related code-graph nodes (depth 1–5).",
  input: z.object({
    hash: z.string().min(1).optional().describe("Content hash or prefix"),
    name: z.string().min(1).optional().describe("Path, file name or path suffix"),
    include_content: z.boolean().default(false).describe("Include the content"),
    outputPath: pathSchema.optional().describe("Write the content to this file"),
    graph: z.boolean().default(false).describe("Include related code-graph nodes"),
    depth: z.number().int().min(1).max(5).default(2).describe("Graph depth (1–5)"),
  }),
  output: documentInfoSchema.extend({
    content: z.string().optional(),
    content_encoding: z.enum(["utf-8", "base64"]).optional(),
    written_to: z.string().optional(),
    related: z.array(graphNodeSchema).optional(),
  }),
  scopes: ["docs:read"],
  annotations: {
    // It changes nothing stored; `outputPath` only copies a document out, as YAMS's `get` does.
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  composite: { tool: "query", name: "get" },
  run(context, input) {
    const docs = docsContext(context);
    const row = resolveDocument(docs.db, { hash: input.hash, name: input.name });
    const info = describeDocument(docs.db, row);
    const result: z.infer<typeof documentInfoSchema> & {
      content?: string;
      content_encoding?: "utf-8" | "base64";
      written_to?: string;
      related?: z.infer<typeof graphNodeSchema>[];
    } = info;
    if (input.include_content || input.outputPath !== undefined) {
      const bytes = documentBytes(docs.db, row);
      if (input.outputPath !== undefined) {
        const target = requirePathAccess(input.outputPath, "write");
        Deno.mkdirSync(dirname(target), { recursive: true });
        Deno.writeFileSync(target, bytes);
        result.written_to = target;
      }
      if (input.include_content) {
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
    }
    if (input.graph) {
      result.related = walkGraph(docs.db, {
        start: fileNodeKey(row),
        depth: input.depth,
        reverse: false,
        limit: 100,
      }).nodes;
    }
    return result;
  },
});
