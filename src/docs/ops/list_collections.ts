/**
 * `docs.list_collections`: the collections documents were added to.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, READ_ONLY } from "./shared.ts";

/** The `docs.list_collections` operation. */
export const listCollectionsOperation: Operation = defineOperation({
  id: "docs.list_collections",
  title: "List collections",
  description: "List the collections of stored documents, with document counts and sizes.",
  input: z.object({}),
  output: z.object({
    total: z.number().int(),
    collections: z.array(z.object({
      name: z.string(),
      document_count: z.number().int(),
      total_bytes: z.number().int(),
    })),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  async run(context) {
    const collections = await docsContext(context).store.collectionRows();
    return { total: collections.length, collections };
  },
});
