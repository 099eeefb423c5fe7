/**
 * Changing tags, metadata and collections of stored documents on a database server: SQLite's
 * `updateDocuments` (../doc_update.ts) over the store's interface, in one write, with the same
 * matching, the same refusals and the same report.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import type { UpdateReport, UpdateRequest } from "../doc_update.ts";
import { docsOf, type ServerDocs, writeOn } from "./server_docs.ts";
import { findDocumentsIn } from "./server_find.ts";

/** Applies an update to every document the selector matches. */
export async function updateDocumentsOnServer(
  server: ServerDocs,
  request: UpdateRequest,
): Promise<UpdateReport> {
  const rows = await findDocumentsIn(docsOf(server), request.selector);
  if (rows.length === 0) {
    const what = request.selector.hash ?? request.selector.name;
    throw new VantageError("not_found", `no stored document matches '${what}'`, {
      details: { ...request.selector },
    });
  }
  for (const row of rows) request.mayChange?.(row);
  await writeOn(server, async (docs) => {
    for (const row of rows) {
      if (request.tags !== undefined) await docs.addTags(row.id, request.tags);
      if (request.removeTags !== undefined) await docs.removeTags(row.id, request.removeTags);
      if (request.metadata !== undefined) await docs.setMetadata(row.id, request.metadata);
      if (request.removeMetadata !== undefined) {
        await docs.removeMetadata(row.id, request.removeMetadata);
      }
      for (const collection of request.collections ?? []) {
        await docs.addToCollection(row.id, collection, row.relative_path);
      }
      for (const collection of request.removeCollections ?? []) {
        await docs.removeFromCollection(row.id, collection);
      }
    }
    await docs.bumpCounter("index_generation");
  });
  return {
    matched: rows.length,
    documents: rows.map((row) => ({ id: row.id, hash: row.hash, path: row.path })),
  };
}
