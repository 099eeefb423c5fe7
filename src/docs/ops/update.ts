/**
 * `docs.update`: changes tags, metadata or collections of stored documents
 * named by hash or name, without touching their bytes.
 *
 * @module
 */
import { z } from "zod";
import { parseMetadata, updateDocuments, type UpdateRequest } from "../doc_update.ts";
import { updateDocumentsOnServer } from "../server_ingest/server_update.ts";
import { refuseOthersData } from "../../ops/caller_person.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  collectionSchema,
  docsContext,
  metadataSchema,
  serverDocsOf,
  tagList,
  tagsSchema,
} from "./shared.ts";

/** The `docs.update` operation. */
export const updateOperation: Operation = defineOperation({
  id: "docs.update",
  title: "Update document metadata",
  description:
    "Change stored documents' metadata, tags or collections (they stay stored), by `hash` (or prefix) or `name`.",
  input: z.object({
    hash: z.string().min(1).optional().describe("Content hash or prefix"),
    name: z.string().min(1).optional().describe("Path or path suffix"),
    metadata: metadataSchema.optional().describe(
      'Metadata to set: ["status=reviewed"] or {status: "reviewed"}',
    ),
    tags: tagsSchema.optional().describe("Tags to add"),
    remove_tags: tagsSchema.optional().describe("Tags to remove"),
    remove_metadata: z.array(z.string()).optional().describe("Metadata keys to remove"),
    collections: z.array(collectionSchema).optional().describe("Collections to add them to"),
    remove_collections: z.array(collectionSchema).optional().describe(
      "Collections to take them out of",
    ),
  }),
  output: z.object({
    matched: z.number().int(),
    documents: z.array(z.object({ id: z.number().int(), hash: z.string(), path: z.string() })),
  }),
  scopes: ["docs:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run(context, input) {
    const docs = docsContext(context);
    const request: UpdateRequest = {
      selector: { hash: input.hash, name: input.name },
      tags: tagList(input.tags),
      removeTags: tagList(input.remove_tags),
      metadata: input.metadata === undefined ? undefined : parseMetadata(input.metadata),
      removeMetadata: input.remove_metadata,
      collections: input.collections,
      removeCollections: input.remove_collections,
      // A team's member changes only the documents they added.
      mayChange: (row) => refuseOthersData(context.caller, row.person, `document ${row.path}`),
    };
    const server = serverDocsOf(context, docs);
    return server === undefined
      ? updateDocuments(docs.db, request)
      : updateDocumentsOnServer(server, request);
  },
});
