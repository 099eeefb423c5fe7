/**
 * Deleting documents on a database server: SQLite's `deleteDocuments` (../doc_delete.ts) over
 * the store's interface — the same matching by name, glob or hash (every version of each
 * matched path), the same narrowing to a collection (deleting only what no other collection
 * holds), the same refusals and report. Contents nobody uses release their chunks, and chunks
 * left without references are deleted, in the same write.
 *
 * A deleted document's keyword row goes with its row in that write (the server's index refers
 * to the document and is deleted with it), so no keyword change is left for after the commit.
 *
 * @module
 */
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { DeleteReport, DeleteRequest } from "../doc_delete.ts";
import { matchesGlob } from "../glob.ts";
import { docsOf, type ServerDocs, writeOn } from "./server_docs.ts";
import { findDocumentsIn } from "./server_find.ts";
import { unindexIn } from "./server_index.ts";

const GLOB_CHARS = /[*?[{]/;

/** What a delete narrowed to a collection does. */
interface Selection {
  /** Versions to delete. */
  rows: DocumentRow[];
  /** Versions taken out of the collection (deleted or kept). */
  members: number;
  /** Versions taken out of it but kept: other collections hold them. */
  kept: NonNullable<DeleteReport["kept"]>;
}

/** Every version the request's names and hashes match. */
async function matchedRows(
  docs: DocsStore<StoreMode>,
  request: DeleteRequest,
): Promise<DocumentRow[]> {
  const paths = new Set<string>();
  const byId = new Map<number, DocumentRow>();
  for (const name of request.names) {
    if (GLOB_CHARS.test(name)) {
      for (const doc of await docs.documentPathsAll(false)) {
        if (matchesGlob(doc.path, name) || matchesGlob(doc.name, name)) paths.add(doc.path);
      }
    } else {
      for (const doc of await findDocumentsIn(docs, { name })) paths.add(doc.path);
    }
  }
  for (const row of await docs.documentsForPaths([...paths])) byId.set(row.id, row);
  for (const hash of request.hashes) {
    for (const row of await findDocumentsIn(docs, { hash })) byId.set(row.id, row);
  }
  return [...byId.values()];
}

/**
 * Splits the documents of `collection` (only those among `matched`, when given) into those no
 * other collection holds, which go, and those kept.
 */
async function splitByCollection(
  docs: DocsStore<StoreMode>,
  collection: string,
  matched: readonly DocumentRow[] | undefined,
): Promise<Selection> {
  const inCollection = await docs.collectionPaths(collection);
  const members = matched === undefined
    ? await docs.documentsByIds([...inCollection.keys()])
    : matched.filter((row) => inCollection.has(row.id));
  const selection: Selection = { rows: [], members: members.length, kept: [] };
  for (const row of members) {
    const others = (await docs.collectionsOf(row.id)).filter((name) => name !== collection);
    if (others.length === 0) selection.rows.push(row);
    else selection.kept.push({ id: row.id, hash: row.hash, path: row.path, collections: others });
  }
  selection.kept.sort((a, b) => a.id - b.id);
  return selection;
}

/**
 * Deletes the documents a request names.
 *
 * @example
 * ```ts ignore
 * await deleteDocumentsOnServer(server, { names: ["*.tmp"], hashes: [], dryRun: true });
 * ```
 */
export async function deleteDocumentsOnServer(
  server: ServerDocs,
  request: DeleteRequest,
): Promise<DeleteReport> {
  const collection = request.collection;
  const wholeCollection = request.names.length === 0 && request.hashes.length === 0;
  const select = async (docs: DocsStore<StoreMode>): Promise<Selection> => {
    const matched = await matchedRows(docs, request);
    return collection === undefined
      ? { rows: matched, members: 0, kept: [] }
      : await splitByCollection(docs, collection, wholeCollection ? undefined : matched);
  };
  const check = async (docs: DocsStore<StoreMode>, selection: Selection) => {
    if (request.mayChange === undefined) return;
    for (const row of selection.rows) request.mayChange(row);
    for (const row of await docs.documentsByIds(selection.kept.map((doc) => doc.id))) {
      request.mayChange(row);
    }
  };
  const describe = async (docs: DocsStore<StoreMode>, selection: Selection) => {
    await check(docs, selection);
    const rows = [...selection.rows].sort((a, b) => a.id - b.id);
    const report: DeleteReport = {
      deleted: rows.length,
      dry_run: request.dryRun,
      documents: rows.map((row) => ({ id: row.id, hash: row.hash, path: row.path })),
      chunks_freed: 0,
      bytes_freed: 0,
    };
    if (collection !== undefined) {
      report.removed_from_collection = selection.members;
      report.kept = selection.kept;
    }
    return { rows, report };
  };
  const outside = docsOf(server);
  const first = await select(outside);
  if (request.dryRun) return (await describe(outside, first)).report;
  // The paths and contents it is about to change: an add of one of them waits for this write,
  // or this write for the add, and each then reads what the other committed.
  const keys = [...first.rows, ...first.kept].flatMap((row) => [row.path, row.hash]);
  return await writeOn(server, async (docs) => {
    await docs.lockDocumentKeys(keys);
    // Decided inside the write: another writer may have added a membership since the lookup.
    const selection = await select(docs);
    const { rows, report } = await describe(docs, selection);
    if (rows.length === 0 && selection.kept.length === 0) return report;
    for (const doc of selection.kept) await docs.removeFromCollection(doc.id, collection!);
    for (const row of rows) {
      await unindexIn(docs, row.id);
      await docs.deleteDocumentRow(row.id);
    }
    for (const hash of new Set(rows.map((row) => row.hash))) {
      await docs.releaseContentIfUnused(hash);
    }
    await docs.deleteEmptySnapshots();
    const freed = await docs.deleteUnreferencedChunks();
    report.chunks_freed = freed.chunks;
    report.bytes_freed = freed.bytes;
    await docs.bumpCounter("index_generation");
    return report;
  });
}
