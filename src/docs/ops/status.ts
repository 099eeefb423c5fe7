/**
 * `docs.status`: storage statistics — documents, bytes, unique blocks and
 * what deduplication saved — with a detailed breakdown and file types.
 *
 * @module
 */
import { z } from "zod";
import { storageStatus } from "../doc_status.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, READ_ONLY, sqliteConnection } from "./shared.ts";

/** The `docs.status` operation. */
export const statusOperation: Operation = defineOperation({
  id: "docs.status",
  title: "Document storage status",
  description:
    "Document storage statistics and health. Objects, bytes and deduplication; `damage` holds recorded damage until repaired.",
  input: z.object({
    detailed: z.boolean().default(false),
    file_types: z.boolean().default(false).describe("Counts per file type"),
  }),
  output: z.object({
    total_objects: z.number().int(),
    total_bytes: z.number().int(),
    unique_blocks: z.number().int(),
    deduplicated_bytes: z.number().int(),
    dedup_ratio: z.number(),
    damage: z.object({
      status: z.enum(["ok", "degraded"]),
      reasons: z.array(z.string()),
      last_verified_at: z.string().nullable(),
      last_verify_ok: z.boolean().nullable(),
    }).describe(
      "Recorded health: degraded while known damage is unrepaired (a server: what its ops met)",
    ),
    details: z.object({
      latest_documents: z.number().int(),
      text_documents: z.number().int(),
      binary_documents: z.number().int(),
      unique_contents: z.number().int(),
      block_bytes: z.number().int(),
      stored_bytes: z.number().int(),
      compression_ratio: z.number(),
      pack_files: z.number().int().describe("SQLite's pack files; 0 on a database server"),
      pack_bytes: z.number().int(),
      collections: z.number().int(),
      snapshots: z.number().int(),
      vectors: z.number().int(),
      graph_edges: z.number().int(),
      current_session: z.string().nullable(),
      database_block_bytes: z.number().int().optional().describe(
        "Database server only: block bytes held in its rows (it has no pack files)",
      ),
    }).optional(),
    file_types: z.array(z.object({
      extension: z.string(),
      mime: z.string(),
      count: z.number().int(),
      bytes: z.number().int(),
    })).optional(),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  run(context, input) {
    const docs = docsContext(context);
    return storageStatus(docs.store, { sqlite: sqliteConnection(docs), home: docs.home }, {
      detailed: input.detailed,
      fileTypes: input.file_types,
    });
  },
});
