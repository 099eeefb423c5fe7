/**
 * Deleting documents by name, glob or hash: every stored version of each
 * matched path goes, with its index rows, collection and snapshot
 * memberships and pins; contents nobody uses any more release their chunks,
 * and the garbage collector removes chunks left without references.
 *
 * Collections are labels, so a delete narrowed to a collection takes the
 * matched documents (or, with no name or hash, all of its documents) out of
 * that collection, and deletes only the versions no other collection holds:
 * one still in another collection stays stored, reported as kept.
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../store/database.ts";
import { collectionPaths, collectionsOf, removeFromCollection } from "../store/docs/collections.ts";
import {
  deleteDocumentRow,
  documentPathsAll,
  type DocumentRow,
  documentsByIds,
  documentsForPaths,
} from "../store/docs/documents.ts";
import { releaseContentIfUnused } from "../store/docs/chunks.ts";
import { deleteEmptySnapshots } from "../store/docs/snapshots.ts";
import { bumpCounter } from "../store/docs/state.ts";
import { collectGarbage, compactPacks } from "./content_store.ts";
import { applyOwnChanges, unindexDocument } from "./doc_index.ts";
import type { IndexChange } from "../store/docs/search_index_apply.ts";
import { findDocuments } from "./doc_read.ts";
import { matchesGlob } from "./glob.ts";

/** What to delete. */
export interface DeleteRequest {
  /** Names, paths or globs (`*.tmp`, `drafts/**`). */
  names: readonly string[];
  /** Content hashes or prefixes. */
  hashes: readonly string[];
  /**
   * Only documents in this collection, taken out of it; deleted only when no
   * other collection holds them. With no names or hashes: every document in it.
   */
  collection?: string;
  /** Report what would be deleted without deleting. */
  dryRun: boolean;
  /**
   * Throws for a document the caller may not change (deleted, or taken out of the
   * collection): nothing is then deleted, and a dry run reports the refusal too.
   */
  mayChange?: (row: DocumentRow) => void;
}

/** The outcome of a delete. */
export interface DeleteReport {
  /** Document versions deleted (or that would be). */
  deleted: number;
  /** Whether nothing was deleted. */
  dry_run: boolean;
  /** The documents deleted (or that would be). */
  documents: Array<{ id: number; hash: string; path: string }>;
  /** With a collection: documents taken out of it (deleted or kept). */
  removed_from_collection?: number;
  /** With a collection: documents taken out of it but kept, since other collections hold them. */
  kept?: Array<{ id: number; hash: string; path: string; collections: string[] }>;
  /** Chunks the garbage collector removed. */
  chunks_freed: number;
  /** Their stored bytes. */
  bytes_freed: number;
}

const GLOB_CHARS = /[*?[{]/;

/**
 * Deletes the documents a request names.
 *
 * @example
 * ```ts ignore
 * deleteDocuments(db, { names: ["*.tmp"], hashes: [], dryRun: true });
 * ```
 */
export function deleteDocuments(db: DatabaseSync, request: DeleteRequest): DeleteReport {
  const paths = new Set<string>();
  const byId = new Map<number, DocumentRow>();
  for (const name of request.names) {
    if (GLOB_CHARS.test(name)) {
      for (const doc of documentPathsAll(db, false)) {
        if (matchesGlob(doc.path, name) || matchesGlob(doc.name, name)) paths.add(doc.path);
      }
    } else {
      for (const doc of findDocuments(db, { name })) paths.add(doc.path);
    }
  }
  for (const row of documentsForPaths(db, [...paths])) byId.set(row.id, row);
  for (const hash of request.hashes) {
    for (const row of findDocuments(db, { hash })) byId.set(row.id, row);
  }
  const matched = [...byId.values()];
  const collection = request.collection;
  const wholeCollection = request.names.length === 0 && request.hashes.length === 0;
  const select = (): Selection =>
    collection === undefined
      ? { rows: matched, members: 0, kept: [] }
      : splitByCollection(db, collection, wholeCollection ? undefined : matched);
  const report: DeleteReport = {
    deleted: 0,
    dry_run: request.dryRun,
    documents: [],
    chunks_freed: 0,
    bytes_freed: 0,
  };
  const check = (selection: Selection) => {
    if (request.mayChange === undefined) return;
    for (const row of selection.rows) request.mayChange(row);
    for (const row of documentsByIds(db, selection.kept.map((doc) => doc.id))) {
      request.mayChange(row);
    }
  };
  const describe = (selection: Selection) => {
    check(selection);
    const rows = [...selection.rows].sort((a, b) => a.id - b.id);
    report.deleted = rows.length;
    report.documents = rows.map((row) => ({ id: row.id, hash: row.hash, path: row.path }));
    if (collection !== undefined) {
      report.removed_from_collection = selection.members;
      report.kept = selection.kept;
    }
    return rows;
  };
  if (request.dryRun) {
    describe(select());
    return report;
  }
  const changes: IndexChange[] = [];
  transaction(db, () => {
    // Decided inside the write: another process may have added a membership since the lookup.
    const selection = select();
    const rows = describe(selection);
    if (rows.length === 0 && selection.kept.length === 0) return;
    for (const doc of selection.kept) removeFromCollection(db, doc.id, collection!);
    for (const row of rows) {
      changes.push(unindexDocument(db, row.id));
      deleteDocumentRow(db, row.id);
    }
    for (const hash of new Set(rows.map((row) => row.hash))) releaseContentIfUnused(db, hash);
    deleteEmptySnapshots(db);
    const freed = collectGarbage(db);
    report.chunks_freed = freed.chunks;
    report.bytes_freed = freed.bytes;
    bumpCounter(db, "index_generation");
  });
  if (report.chunks_freed > 0) compactPacks(db);
  applyOwnChanges(db, changes);
  return report;
}

/** What a delete narrowed to a collection does. */
interface Selection {
  /** Versions to delete. */
  rows: DocumentRow[];
  /** Versions taken out of the collection (deleted or kept). */
  members: number;
  /** Versions taken out of it but kept: other collections hold them. */
  kept: NonNullable<DeleteReport["kept"]>;
}

/**
 * Splits the documents of `collection` (only those among `matched`, when
 * given) into those no other collection holds, which go, and those kept.
 */
function splitByCollection(
  db: DatabaseSync,
  collection: string,
  matched: readonly DocumentRow[] | undefined,
): Selection {
  const inCollection = collectionPaths(db, collection);
  const members = matched === undefined
    ? documentsByIds(db, [...inCollection.keys()])
    : matched.filter((row) => inCollection.has(row.id));
  const selection: Selection = { rows: [], members: members.length, kept: [] };
  for (const row of members) {
    const others = collectionsOf(db, row.id).filter((name) => name !== collection);
    if (others.length === 0) selection.rows.push(row);
    else selection.kept.push({ id: row.id, hash: row.hash, path: row.path, collections: others });
  }
  selection.kept.sort((a, b) => a.id - b.id);
  return selection;
}
