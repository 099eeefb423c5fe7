/**
 * Deleting documents by name, glob or hash: every stored version of each
 * matched path goes, with its index rows, snapshot memberships and pins;
 * contents nobody uses any more release their chunks, and the garbage
 * collector removes chunks left without references.
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../store/database.ts";
import { releaseContentIfUnused } from "../store/docs/chunks.ts";
import {
  deleteDocumentRow,
  documentPathsAll,
  type DocumentRow,
  documentsForPaths,
} from "../store/docs/documents.ts";
import { type IndexChange } from "../store/docs/search_index_apply.ts";
import { deleteEmptySnapshots } from "../store/docs/snapshots.ts";
import { bumpCounter } from "../store/docs/state.ts";
import { collectGarbage, compactPacks } from "./content_store.ts";
import { applyOwnChanges, unindexDocument } from "./doc_index.ts";
import { findDocuments } from "./doc_read.ts";
import { matchesGlob } from "./glob.ts";

/** What to delete. */
export interface DeleteRequest {
  /** Names, paths or globs (`*.tmp`, `drafts/**`). */
  names: readonly string[];
  /** Content hashes or prefixes. */
  hashes: readonly string[];
  /** Report what would be deleted without deleting. */
  dryRun: boolean;
}

/** The outcome of a delete. */
export interface DeleteReport {
  /** Document versions deleted (or that would be). */
  deleted: number;
  /** Whether nothing was deleted. */
  dry_run: boolean;
  /** The documents. */
  documents: Array<{ id: number; hash: string; path: string }>;
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
  const rows = [...byId.values()].sort((a, b) => a.id - b.id);
  const report: DeleteReport = {
    deleted: rows.length,
    dry_run: request.dryRun,
    documents: rows.map((row) => ({ id: row.id, hash: row.hash, path: row.path })),
    chunks_freed: 0,
    bytes_freed: 0,
  };
  if (request.dryRun || rows.length === 0) return report;
  const changes: IndexChange[] = [];
  transaction(db, () => {
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
