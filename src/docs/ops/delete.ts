/**
 * `docs.delete`: removes stored documents by name, names, glob or hash
 * (every version of each matched path); chunks no document uses any more
 * are garbage-collected. With `collection`, the documents are taken out of
 * that collection and deleted only when no other collection holds them.
 * `dry_run` only reports.
 *
 * @module
 */
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import { deleteDocuments, type DeleteRequest } from "../doc_delete.ts";
import { deleteDocumentsOnServer } from "../server_ingest/server_delete.ts";
import { refuseOthersData } from "../../ops/caller_person.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { collectionSchema, docsContext, serverDocsOf } from "./shared.ts";

/** The `docs.delete` operation. */
export const deleteOperation: Operation = defineOperation({
  id: "docs.delete",
  title: "Delete documents",
  description:
    "Delete stored documents by `name` (path, file name or glob), `names` or `hash`, every version. With `collection` they leave it, deleted if no other holds them.",
  input: z.object({
    name: z.string().min(1).optional().describe("Name, path or glob"),
    names: z.array(z.string().min(1)).optional().describe("Several names, paths or globs"),
    hash: z.string().min(1).optional().describe("Content hash or prefix"),
    collection: collectionSchema.optional().describe(
      "Collection to take them out of",
    ),
    dry_run: z.boolean().default(false).describe("Report what would be deleted"),
  }),
  output: z.object({
    deleted: z.number().int(),
    dry_run: z.boolean(),
    documents: z.array(z.object({ id: z.number().int(), hash: z.string(), path: z.string() })),
    removed_from_collection: z.number().int().optional(),
    kept: z.array(z.object({
      id: z.number().int(),
      hash: z.string(),
      path: z.string(),
      collections: z.array(z.string()),
    })).optional(),
    chunks_freed: z.number().int(),
    bytes_freed: z.number().int(),
  }),
  scopes: ["docs:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  run(context, input) {
    const names = [...(input.name !== undefined ? [input.name] : []), ...(input.names ?? [])];
    const hashes = input.hash !== undefined ? [input.hash] : [];
    if (names.length === 0 && hashes.length === 0 && input.collection === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "give 'name', 'names', 'hash' or 'collection' to delete",
      );
    }
    const request: DeleteRequest = {
      names,
      hashes,
      collection: input.collection,
      dryRun: input.dry_run,
      // A team's member deletes only the documents they added.
      mayChange: (row) => refuseOthersData(context.caller, row.person, `document ${row.path}`),
    };
    const docs = docsContext(context);
    const server = serverDocsOf(context, docs);
    return server === undefined
      ? deleteDocuments(docs.db, request)
      : deleteDocumentsOnServer(server, request);
  },
});
