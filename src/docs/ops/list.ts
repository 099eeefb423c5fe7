/**
 * `docs.list`: stored documents filtered by type, extension, tags,
 * collection, snapshot or path glob, sorted and paged.
 *
 * @module
 */
import { z } from "zod";
import { describeDocuments } from "../doc_read.ts";
import { sessionScope } from "../doc_sessions.ts";
import { matchesGlob } from "../glob.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  docsContext,
  documentInfoSchema,
  globSchema,
  READ_ONLY,
  sessionScopeFields,
  tagList,
  tagsSchema,
} from "./shared.ts";

/** The `docs.list` operation. */
export const listOperation: Operation = defineOperation({
  id: "docs.list",
  title: "List documents",
  description:
    "List stored documents, latest version of each path. Filtered by type, extension, tags, collection, snapshot or path glob; sorted and paged.",
  input: z.object({
    limit: z.number().int().min(1).max(10_000).default(100),
    offset: z.number().int().min(0).default(0),
    sort_by: z.enum(["name", "size", "created", "modified", "indexed"]).default("indexed"),
    sort_order: z.enum(["asc", "desc"]).default("desc"),
    recent: z.number().int().min(1).optional().describe("Only the N most recently stored"),
    type: z.enum(["text", "binary"]).optional(),
    extension: z.string().min(1).optional().describe("e.g. .py"),
    tags: tagsSchema.optional().describe("Only documents with all these tags"),
    collection: z.string().min(1).optional(),
    snapshot_id: z.string().min(1).optional(),
    pattern: globSchema.optional().describe("Only paths matching this glob, e.g. **/*.md"),
    paths_only: z.boolean().default(false),
    ...sessionScopeFields,
  }),
  output: z.object({
    total: z.number().int(),
    offset: z.number().int(),
    documents: z.array(documentInfoSchema).optional(),
    paths: z.array(z.string()).optional(),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const docs = docsContext(context);
    const filter = {
      session: await sessionScope(docs.store, input),
      isText: input.type === undefined ? undefined : input.type === "text",
      extension: input.extension,
      tags: tagList(input.tags),
      collection: input.collection,
      snapshotId: input.snapshot_id,
    };
    const recent = input.recent !== undefined;
    const sortBy = recent ? "indexed" as const : input.sort_by;
    const order = recent ? "desc" as const : input.sort_order;
    const limit = recent ? Math.min(input.recent!, input.limit) : input.limit;
    let total: number;
    let rows;
    if (input.pattern !== undefined) {
      // A glob cannot be pushed into SQL, so filtering happens before paging.
      const pattern = input.pattern;
      const all = (await docs.store.listDocuments({ filter, sortBy, order })).rows.filter((row) =>
        matchesGlob(row.path, pattern) || matchesGlob(row.relative_path, pattern)
      );
      total = all.length;
      rows = all.slice(input.offset, input.offset + limit);
    } else {
      const page = await docs.store.listDocuments({
        filter,
        sortBy,
        order,
        limit,
        offset: input.offset,
      });
      total = page.total;
      rows = page.rows;
    }
    if (recent) total = Math.min(total, input.recent!);
    if (input.paths_only) {
      return {
        total,
        offset: input.offset,
        paths: rows.map((row) => row.path),
      };
    }
    return {
      total,
      offset: input.offset,
      documents: await describeDocuments(docs.store, rows),
    };
  },
});
