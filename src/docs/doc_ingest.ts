/**
 * Adding documents: a file, a folder (recursive, include/exclude globs) or
 * inline content. Bytes go to the content store, then a document row records
 * path, name, type, size, times, tags, metadata, collection, snapshot and
 * session, and the index rows are written. Work is done in batches, each one
 * synchronous transaction, with a pause between batches so a time limit or
 * cancellation can stop a long add.
 *
 * The phases live in `doc_ingest/`: finding the files (`scan.ts`), storing them in batches of
 * short writes (`batches.ts`), recording each document (`record.ts`), the snapshot
 * (`snapshot.ts`), the hand-off to the index worker (`handoff.ts`), and the add that ties them
 * together (`ingest.ts`). This module is the public face.
 *
 * An add is a write, so after its own documents it also brings search's data up to date
 * (`search_upkeep.ts`): what searches, which write nothing, leave for writes to store.
 *
 * @module
 */
import { relative } from "node:path";
import type { DatabaseSync } from "../store/database.ts";
import { docsIndex } from "../store/docs/search_index.ts";
import { useBulkWriteSettings } from "../store/docs/state.ts";
import { putContent } from "./content_store.ts";
import { addInBatches } from "./doc_ingest/batches.ts";
import { WORKER_MIN_FILES } from "./doc_ingest/handoff.ts";
import { Ingest, newReport } from "./doc_ingest/ingest.ts";
import { planPathAdd } from "./doc_ingest/path_plan.ts";
import type { FileEntry } from "./doc_ingest/scan.ts";
import { type GitFacts, NO_GIT } from "./doc_ingest/snapshot.ts";
import type { IngestOptions, IngestReport, InlineDocument } from "./doc_ingest/types.ts";
import { catchUpDocsIndexGently } from "./doc_index.ts";
import { ADD_UPKEEP_BUDGET_MS, storeMissingVectors } from "./search_upkeep.ts";

export { newSnapshotId } from "./doc_ingest/snapshot.ts";
export type {
  IngestedDocument,
  IngestOptions,
  IngestReport,
  InlineDocument,
} from "./doc_ingest/types.ts";

/**
 * Adds a file or a folder, which must already be checked for read access.
 *
 * @example
 * ```ts ignore
 * const report = await ingestPath(db, "/repo/docs", { session: null, embedder, now: Date.now() });
 * ```
 */
export async function ingestPath(
  db: DatabaseSync,
  path: string,
  options: IngestOptions,
): Promise<IngestReport> {
  const { report, git, files, directory } = await planPathAdd(path, options);
  await ingestList(db, files, directory, git, options, report);
  await upkeep(db, options, report);
  return report;
}

/**
 * Adds specific files below `root` (as a watcher does after changes); files
 * that no longer exist are skipped.
 */
export async function ingestFiles(
  db: DatabaseSync,
  root: string,
  paths: readonly string[],
  options: IngestOptions,
): Promise<IngestReport> {
  const report = newReport(options);
  const files = paths.map((path) => ({
    path,
    relativePath: relative(root, path).replaceAll("\\", "/"),
  }));
  await ingestList(db, files, root, NO_GIT, options, report);
  await upkeep(db, options, report);
  return report;
}

async function ingestList(
  db: DatabaseSync,
  files: readonly FileEntry[],
  directory: string,
  git: GitFacts,
  options: IngestOptions,
  report: IngestReport,
): Promise<void> {
  // The index is opened (a new one filled from the store) before this add's documents exist.
  docsIndex(db);
  const ingest = new Ingest(db, options, report);
  ingest.openSnapshot(directory, git);
  if (files.length >= WORKER_MIN_FILES) ingest.useWorker();
  const restoreCache = useBulkWriteSettings(db);
  try {
    await addInBatches(ingest, files, options);
  } finally {
    ingest.close();
    restoreCache();
  }
}

/** Adds inline content (a `content` + `name` add, or downloaded bytes). */
export async function ingestInline(
  db: DatabaseSync,
  documents: readonly InlineDocument[],
  options: IngestOptions,
): Promise<IngestReport> {
  const report = newReport(options);
  docsIndex(db);
  const ingest = new Ingest(db, options, report);
  ingest.openSnapshot(null, NO_GIT);
  if (documents.length >= WORKER_MIN_FILES) ingest.useWorker();
  ingest.planInline(documents);
  const restoreCache = useBulkWriteSettings(db);
  try {
    ingest.write(() => {
      for (const doc of documents) {
        report.files_scanned++;
        const path = doc.path ?? doc.name;
        const modified = doc.modified ?? options.now;
        ingest.recorder.record(
          { path, relativePath: doc.name, name: doc.name },
          putContent(db, doc.bytes, options.now),
          doc.bytes,
          { created: modified, modified },
        );
      }
    });
    await ingest.finish();
  } finally {
    ingest.close();
    restoreCache();
  }
  await upkeep(db, options, report);
  return report;
}

/**
 * Applies index changes a stopped process abandoned and stores vectors
 * other adds left missing, within {@linkcode ADD_UPKEEP_BUDGET_MS}; the
 * next add or a repair goes on from there. The documents are stored by now,
 * so what fails here is a warning (an embedding service's failure said once
 * per add).
 */
async function upkeep(db: DatabaseSync, options: IngestOptions, report: IngestReport) {
  const message = (error: unknown) => error instanceof Error ? error.message : String(error);
  try {
    await catchUpDocsIndexGently(db);
  } catch (error) {
    report.warnings.push(`applying queued search index changes failed: ${message(error)}`);
  }
  const embedder = options.embedder.id;
  try {
    await storeMissingVectors(db, options.embedder, ADD_UPKEEP_BUDGET_MS);
  } catch (error) {
    if (report.warnings.some((warning) => warning.includes(embedder))) return;
    report.warnings.push(
      `storing missing vectors with ${embedder} failed (${
        message(error)
      }); the next add or docs.repair tries again`,
    );
  }
}
