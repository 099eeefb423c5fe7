/**
 * Verifying the store: SQLite's structural check of the store and of every
 * index file (on a worker, while the rest runs here), every stored chunk
 * read back from its row or pack, decoded and hashed, the chunk lists
 * checked for chunks that are not stored, the pack files for being missing,
 * shorter than their rows say, or used by nothing, and the search index for
 * holding every latest text document (allowing for changes still queued).
 * Damage is reported by document — id, path, hash, what is wrong and the
 * files involved — and by file.
 *
 * It runs while other processes work on the same store: every read is a
 * short page of its own, the event loop gets a turn every ~20 ms (see
 * `pacer.ts`), and anything that looks damaged is read again before it is
 * reported. A store whose pages fail to read partway is reported, not
 * thrown.
 *
 * @module
 */
import { basename } from "node:path";
import {
  type DatabaseSync,
  isCorruptionError,
  storeFailure,
  storeFilePath,
} from "../store/database.ts";
import { docsIndexFile, docsIndexFiles } from "../store/docs/search_index.ts";
import { messageIndexPath } from "../store/agent/schema.ts";
import { type FileCheck, quickCheckConnection, quickCheckFiles } from "../store/quick_check.ts";
import { checkIndex } from "./index_check.ts";
import { Pacer } from "./pacer.ts";
import { StoreScan } from "./store_scan.ts";
import { damageAdvice } from "./store_structure.ts";
import {
  counted,
  type FileReport,
  type IndexReport,
  type VerifyFindings,
  type VerifyReport,
} from "./verify_report.ts";

/** Damaged documents listed one by one, unless the caller asks otherwise. */
export const DEFAULT_LISTED_DOCUMENTS = 100;

/** What to verify. */
export interface VerifyOptions {
  /** Read, decode and hash every chunk (default true); false checks structure only. */
  chunks?: boolean;
  /** Damaged documents listed one by one (all are counted). */
  maxDocuments?: number;
  /** Stops the verification (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

function fileStatus(check: FileCheck | undefined): FileReport["status"] {
  return check === undefined ? "unchecked" : check.status;
}

/**
 * Verifies the store `db` belongs to. Read-only: it changes nothing.
 *
 * @example
 * ```ts ignore
 * const { report } = await verifyStore(db, { chunks: true });
 * if (!report.ok) console.log(report.problems.join("\n"));
 * ```
 */
export async function verifyStore(
  db: DatabaseSync,
  options: VerifyOptions = {},
): Promise<VerifyFindings> {
  const started = performance.now();
  const readChunks = options.chunks ?? true;
  const pacer = new Pacer(options.signal);
  const storeFile = storeFilePath(db);
  const storeLabel = storeFile ?? "the in-memory store";
  let readFailure: string | undefined;
  const failedRead = (error: unknown) => {
    if (!isCorruptionError(error)) throw error;
    readFailure ??= storeFailure(error, "reading the document store", storeFile).message;
  };
  let indexFile: string | undefined;
  try {
    indexFile = docsIndexFile(db);
  } catch (error) {
    failedRead(error);
  }
  const messageIndex = storeFile === undefined ? undefined : messageIndexPath(storeFile);

  // The structural checks run on a worker meanwhile; their result is awaited after the scan.
  const structural: Promise<FileCheck[]> = storeFile === undefined
    ? Promise.resolve([])
    : quickCheckFiles([storeFile, indexFile, messageIndex].filter((path) => path !== undefined), {
      signal: options.signal,
    });
  // A rejection is handled where it is awaited; until then it must not count as unhandled.
  structural.catch(() => {});

  const scan = new StoreScan(
    db,
    storeLabel,
    readChunks,
    options.maxDocuments ?? DEFAULT_LISTED_DOCUMENTS,
    pacer,
  );
  try {
    await scan.run();
  } catch (error) {
    failedRead(error);
  }

  let checks: FileCheck[];
  if (storeFile === undefined) {
    const problems = quickCheckConnection(db);
    checks = [{ path: storeLabel, status: problems.length === 0 ? "ok" : "damaged", problems }];
  } else {
    checks = await structural;
  }
  const checkOf = (path: string | undefined) =>
    path === undefined ? undefined : checks.find((check) => check.path === path);
  const storeCheck = storeFile === undefined ? checks[0] : checkOf(storeFile);
  const messageCheck = checkOf(messageIndex);
  const index = await checkIndex(
    db,
    indexFile,
    checkOf(indexFile),
    readFailure === undefined ? scan.indexable : undefined,
    pacer,
  );

  const storeProblems = [...(storeCheck?.problems ?? [])];
  if (readFailure !== undefined) storeProblems.push(readFailure);
  const files: FileReport[] = [
    storeFileReport(storeLabel, storeCheck, storeProblems, scan),
    ...(indexFile === undefined ? [] : [{
      path: indexFile,
      kind: "docs_index" as const,
      status: index.status === "incomplete" ? "damaged" as const : index.status,
      problems: index.problems,
    }]),
    ...(messageIndex === undefined ? [] : [{
      path: messageIndex,
      kind: "message_index" as const,
      status: fileStatus(messageCheck),
      problems: messageCheck?.problems ?? [],
    }]),
    ...docsIndexFiles(db).filter((file) => file !== indexFile).map((path) => ({
      path,
      kind: "earlier_index" as const,
      status: "left_behind" as const,
      problems: ["an index file of an earlier generation, no longer used; repair removes it"],
    })),
    ...scan.packReports,
  ];
  const { problems, notes } = summarize(files, index, scan, storeFile === undefined);
  const storeDamaged = readFailure !== undefined || storeCheck?.status === "damaged";
  const report: VerifyReport = {
    ok: problems.length === 0,
    chunks_checked: readChunks,
    duration_ms: Math.round(performance.now() - started),
    checked: {
      ...scan.counts,
      files: checks.filter((check) => check.status !== "missing").length,
    },
    damaged: {
      documents: scan.damagedDocuments,
      chunks: scan.chunks.size + scan.missingChunks,
      files: files.filter((file) =>
        file.status === "damaged" || file.status === "short" ||
        (file.status === "missing" && file.kind === "pack")
      ).length,
    },
    store: {
      file: storeFile ?? null,
      status: storeDamaged ? "damaged" : fileStatus(storeCheck),
      problems: [
        ...(storeCheck?.problems ?? []),
        ...(readFailure === undefined ? [] : [readFailure]),
      ],
    },
    index,
    message_index: {
      file: messageIndex ?? null,
      status: fileStatus(messageCheck),
      problems: messageCheck?.problems ?? [],
    },
    files,
    documents: scan.documents,
    documents_truncated: scan.damagedDocuments > scan.documents.length,
    reclaimable: scan.reclaimable,
    problems,
    notes,
    what_to_do: damageAdvice(problems.length > 0, storeDamaged ? storeLabel : undefined),
  };
  return {
    report,
    chunks: scan.chunks,
    contents: scan.contents,
    damagedPacks: scan.damagedPacks,
  };
}

/** The store file's entry: its structural check, and the damage the scan found in its rows. */
function storeFileReport(
  path: string,
  check: FileCheck | undefined,
  problems: string[],
  scan: StoreScan,
): FileReport {
  if (scan.inlineDamaged > 0) {
    problems.push(`${counted(scan.inlineDamaged, "chunk")} stored in its rows are damaged`);
  }
  if (scan.missingChunks > 0) {
    problems.push(
      `${
        counted(scan.missingChunks, "chunk-list entry", "chunk-list entries")
      } name no stored chunk`,
    );
  }
  return {
    path,
    kind: "store",
    status: check?.status === "damaged" || problems.length > 0 ? "damaged" : fileStatus(check),
    problems,
    ...(scan.inlineDamaged > 0 ? { chunks_damaged: scan.inlineDamaged } : {}),
  };
}

/** One line per damaged file and per (listed) damaged document; notes for the rest. */
function summarize(
  files: readonly FileReport[],
  index: IndexReport,
  scan: StoreScan,
  inMemory: boolean,
): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const file of files) {
    const name = file.kind === "store" && inMemory ? file.path : basename(file.path);
    const line = `${name}: ${file.status}${
      file.problems.length > 0 ? ` (${file.problems.slice(0, 3).join("; ")})` : ""
    }`;
    if (file.status === "damaged" || file.status === "missing" || file.status === "short") {
      // A message index not made yet is not damage (serve makes it), nor an index file not
      // needed yet.
      if (file.kind === "message_index" && file.status === "missing") continue;
      if (file.kind === "docs_index" && file.status === "missing" && index.status === "ok") {
        continue;
      }
      problems.push(line);
    } else if (file.status !== "ok") {
      notes.push(line);
    }
  }
  for (const document of scan.documents.slice(0, 10)) {
    problems.push(`document #${document.id} ${document.path}: ${document.problems[0]}`);
  }
  if (scan.damagedDocuments > 10) {
    problems.push(`and ${scan.damagedDocuments - 10} more damaged documents`);
  }
  return { problems, notes };
}
