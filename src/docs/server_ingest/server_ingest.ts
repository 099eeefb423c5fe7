/**
 * Adding documents on a database server: a file, a folder (recursive, include/exclude globs)
 * or inline content, with the same options, the same report and the same stored rows as
 * SQLite's engine (../doc_ingest.ts), over the store's interface. The folder walk, text
 * extraction, titles and MIME types, chunking and embedding are SQLite's own pieces; what
 * differs is how it writes (awaited, one short write per file, see server_add.ts) and that
 * the keyword index is the server's (server_index.ts).
 *
 * Like SQLite's, an add ends by storing vectors other adds left missing, within
 * {@linkcode ADD_UPKEEP_BUDGET_MS}. Like SQLite's, an add starts by applying the keyword
 * changes a stopped process left queued (server_catch_up.ts), so a document stored just before
 * a crash is found by keyword again once anyone adds anything.
 *
 * @module
 */
import { relative } from "node:path";
import { pause } from "../doc_ingest/batches.ts";
import { newReport } from "../doc_ingest/ingest.ts";
import { planPathAdd } from "../doc_ingest/path_plan.ts";
import { messageOf } from "../doc_ingest/scan.ts";
import { NO_GIT } from "../doc_ingest/snapshot.ts";
import type { IngestOptions, IngestReport, InlineDocument } from "../doc_ingest/types.ts";
import { ADD_UPKEEP_BUDGET_MS } from "../search_upkeep.ts";
import { ServerAdd } from "./server_add.ts";
import { catchUpKeywordIndexOnServer } from "./server_catch_up.ts";
import type { ServerDocs } from "./server_docs.ts";
import { storeMissingVectorsOnServer } from "./server_vectors.ts";

/**
 * Adds a file or a folder, which must already be checked for read access.
 *
 * @example
 * ```ts ignore
 * const report = await ingestPathOnServer(server, "/repo/docs", { session: null, embedder, now });
 * ```
 */
export async function ingestPathOnServer(
  server: ServerDocs,
  path: string,
  options: IngestOptions,
): Promise<IngestReport> {
  const { report, git, files, directory } = await planPathAdd(path, options);
  await catchUpKeywordIndexOnServer(server);
  const add = await ServerAdd.open(server, options, report, directory, git);
  for (const [index, file] of files.entries()) {
    // Between files, a cancelled add stops (what is stored stays stored, as on SQLite).
    if (index > 0) await pause(options.signal);
    await add.addFile(file);
  }
  await add.finish();
  await upkeep(server, options, report);
  return report;
}

/**
 * Adds chosen files below `root` (a watch's changed files), each named by its path relative to
 * `root`, as SQLite's `ingestFiles` does: one snapshot of `root`, without git facts.
 */
export async function ingestFilesOnServer(
  server: ServerDocs,
  root: string,
  paths: readonly string[],
  options: IngestOptions,
): Promise<IngestReport> {
  const report = newReport(options);
  const add = await ServerAdd.open(server, options, report, root, NO_GIT);
  for (const [index, path] of paths.entries()) {
    if (index > 0) await pause(options.signal);
    await add.addFile({ path, relativePath: relative(root, path).replaceAll("\\", "/") });
  }
  await add.finish();
  await upkeep(server, options, report);
  return report;
}

/** Adds inline content (a `content` + `name` add, or downloaded bytes). */
export async function ingestInlineOnServer(
  server: ServerDocs,
  documents: readonly InlineDocument[],
  options: IngestOptions,
): Promise<IngestReport> {
  const report = newReport(options);
  await catchUpKeywordIndexOnServer(server);
  const add = await ServerAdd.open(server, options, report, null, NO_GIT);
  for (const doc of documents) await add.addInline(doc);
  await add.finish();
  await upkeep(server, options, report);
  return report;
}

/**
 * Stores vectors other adds left missing, within the budget. The documents are stored by now,
 * so what fails here is a warning (an embedding service's failure said once per add).
 */
async function upkeep(
  server: ServerDocs,
  options: IngestOptions,
  report: IngestReport,
): Promise<void> {
  const embedder = options.embedder.id;
  try {
    await storeMissingVectorsOnServer(server, options.embedder, ADD_UPKEEP_BUDGET_MS);
  } catch (error) {
    if (report.warnings.some((warning) => warning.includes(embedder))) return;
    report.warnings.push(
      `storing missing vectors with ${embedder} failed (${
        messageOf(error)
      }); the next add or docs.repair tries again`,
    );
  }
}
