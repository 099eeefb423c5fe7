/**
 * Restoring stored documents to the filesystem: the documents of a snapshot
 * and/or a collection, written below an output folder at the path they had
 * below the folder they were added from (for a collection, the folder they
 * were added from into that collection: a document in several collections
 * may sit at a different path in each). Every byte is verified against its
 * hash before a file takes its final name, and a stored path that would land
 * outside the output folder is refused. A document whose stored bytes are
 * damaged is reported (naming the chunk and its pack) and the restore goes on.
 *
 * @module
 */
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import {
  prepareWriteTarget,
  writeConfined,
  type WriteRoots,
  type WriteTarget,
} from "../core/confined_write.ts";
import { VantageError } from "../core/errors.ts";
import type { DocumentRow } from "../store/docs/documents.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import { isDamageError } from "../store/store_health.ts";
import type { ContentLabel } from "./content_store.ts";
import { createPathFilter } from "./glob.ts";

/** What to restore, and where. */
export interface RestoreRequest {
  /** Restore the latest documents of this collection (it may share them with others). */
  collection?: string;
  /** Restore the documents of this snapshot. */
  snapshotId?: string;
  /** Absolute folder to write into (already checked for write access). */
  outputDirectory: string;
  /** Only documents whose relative path matches one of these globs. */
  include?: readonly string[];
  /** Leave out documents whose relative path matches one of these globs. */
  exclude?: readonly string[];
  /** Report what would be written without writing. */
  dryRun: boolean;
  /** Replace files that already exist (otherwise they are skipped). */
  overwrite: boolean;
  /** Where files may be written: the roots, never the data home. */
  roots: WriteRoots;
}

/** What happened to one document. */
export interface RestoredFile {
  /** Where it was (or would be) written. */
  path: string;
  /** The stored document's path. */
  source: string;
  /** Content hash. */
  hash: string;
  /** Bytes. */
  size: number;
  /**
   * `written`, `would_write`, `exists` (skipped), `duplicate` (same target
   * twice), `refused`, or `damaged` (its stored bytes failed their check:
   * nothing was written for it).
   */
  status: "written" | "would_write" | "exists" | "duplicate" | "refused" | "damaged";
  /** Why it was refused, or what is damaged (naming the chunk and its pack). */
  reason?: string;
}

/** The outcome of a restore. */
export interface RestoreReport {
  /** The output folder. */
  output_directory: string;
  /** Whether nothing was written. */
  dry_run: boolean;
  /** Documents selected. */
  total: number;
  /** Files written (or that would be written). */
  restored: number;
  /** Files skipped because they exist or collide. */
  skipped: number;
  /** Documents refused because their path escapes the output folder. */
  refused: number;
  /** Documents not written because their stored bytes are damaged. */
  damaged: number;
  /** Bytes written (or that would be). */
  bytes: number;
  /** Per document. */
  files: RestoredFile[];
}

/** A stored content's verified bytes, as pieces to write in order (see stored_pieces.ts). */
export type ContentPieces = (hash: string, label: ContentLabel) => Promise<Iterable<Uint8Array>>;

/**
 * Restores documents below `request.outputDirectory`, reading which documents through `docs`
 * (either backend) and their bytes through `pieces`.
 *
 * @example
 * ```ts ignore
 * await restoreDocuments(store.docs, (hash, label) => storedPieces(docs, hash, label), {
 *   snapshotId, outputDirectory: "/tmp/out", dryRun: false, overwrite: false, roots,
 * });
 * ```
 */
export async function restoreDocuments(
  docs: DocsStore<StoreMode>,
  pieces: ContentPieces,
  request: RestoreRequest,
): Promise<RestoreReport> {
  const rows = await selectDocuments(docs, request);
  const filter = createPathFilter(request.include, request.exclude);
  const report: RestoreReport = {
    output_directory: request.outputDirectory,
    dry_run: request.dryRun,
    total: 0,
    restored: 0,
    skipped: 0,
    refused: 0,
    damaged: 0,
    bytes: 0,
    files: [],
  };
  const targets = new Set<string>();
  for (const row of rows) {
    const relativePath = row.relative_path.replaceAll("\\", "/");
    if (!filter.selects(relativePath)) continue;
    report.total++;
    const file: RestoredFile = {
      path: "",
      source: row.path,
      hash: row.hash,
      size: row.size,
      status: "written",
    };
    const target = safeTarget(request.outputDirectory, relativePath);
    if (target === undefined) {
      file.path = join(request.outputDirectory, relativePath);
      file.status = "refused";
      file.reason =
        `stored path '${row.relative_path}' would be written outside ${request.outputDirectory}`;
      report.refused++;
      report.files.push(file);
      continue;
    }
    file.path = target;
    let place: WriteTarget;
    try {
      // Every folder on the way resolved and checked: a link inside the output folder that leads
      // outside the roots (or into the data home) refuses this file, not the whole restore.
      place = prepareWriteTarget(request.roots, target, { create: !request.dryRun });
    } catch (error) {
      if (!(error instanceof VantageError) || error.kind !== "forbidden") throw error;
      file.status = "refused";
      file.reason = error.message;
      report.refused++;
      report.files.push(file);
      continue;
    }
    if (targets.has(target)) {
      file.status = "duplicate";
      report.skipped++;
      report.files.push(file);
      continue;
    }
    targets.add(target);
    if (!request.overwrite && exists(target)) {
      file.status = "exists";
      report.skipped++;
      report.files.push(file);
      continue;
    }
    if (request.dryRun) {
      file.status = "would_write";
    } else {
      try {
        writeConfined(
          place,
          await pieces(row.hash, { path: row.path, id: row.id }),
          { overwrite: true, modified: new Date(row.modified_at) },
        );
      } catch (error) {
        if (error instanceof VantageError && error.kind === "forbidden") {
          file.status = "refused";
          file.reason = error.message;
          report.refused++;
          report.files.push(file);
          continue;
        }
        // One damaged document must not cost the others their restore: it is reported instead.
        if (!isDamageError(error)) throw error;
        file.status = "damaged";
        file.reason = error instanceof Error ? error.message : String(error);
        report.damaged++;
        report.files.push(file);
        continue;
      }
    }
    report.restored++;
    report.bytes += row.size;
    report.files.push(file);
  }
  return report;
}

async function selectDocuments(
  docs: DocsStore<StoreMode>,
  request: RestoreRequest,
): Promise<DocumentRow[]> {
  if (request.snapshotId === undefined && request.collection === undefined) {
    throw new VantageError(
      "invalid_arguments",
      "restore needs 'collection' or 'snapshot_id' to say which documents to restore",
    );
  }
  let rows: DocumentRow[];
  if (request.snapshotId !== undefined) {
    if ((await docs.snapshotById(request.snapshotId)) === undefined) {
      throw new VantageError("not_found", `no snapshot '${request.snapshotId}'`, {
        details: { snapshot_id: request.snapshotId },
      });
    }
    rows = await docs.documentsByIds(await docs.snapshotMemberIds(request.snapshotId));
  } else {
    rows = (await docs.listDocuments({ filter: { collection: request.collection } })).rows;
  }
  if (request.collection !== undefined) {
    if (!(await docs.collectionExists(request.collection))) {
      throw new VantageError("not_found", `no collection '${request.collection}'`, {
        details: { collection: request.collection },
      });
    }
    // Each document at the path it was given in this collection.
    const paths = await docs.collectionPaths(request.collection);
    rows = rows.flatMap((row) => {
      const path = paths.get(row.id);
      return path === undefined ? [] : [{ ...row, relative_path: path }];
    });
  }
  return rows.sort((
    a,
    b,
  ) => (a.relative_path < b.relative_path
    ? -1
    : a.relative_path > b.relative_path
    ? 1
    : a.id - b.id)
  );
}

/** The absolute target for a stored relative path, or undefined when it escapes `root`. */
export function safeTarget(root: string, relativePath: string): string | undefined {
  if (relativePath === "" || isAbsolute(relativePath) || /^[A-Za-z]:/.test(relativePath)) {
    return undefined;
  }
  const target = normalize(join(root, relativePath));
  const inside = relative(root, target);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return undefined;
  if (inside.split(sep).includes("..")) return undefined;
  return target;
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
