/**
 * The store's files as SQLite sees them: the structural check `serve` runs
 * at start (recorded as the store's health), the report for a store file
 * too damaged to open, and what to do about damage.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { type DatabaseSync, storeFilePath } from "../store/database.ts";
import { docsIndexFile } from "../store/docs/search_index.ts";
import { messageIndexPath } from "../store/agent/schema.ts";
import { type FileCheck, quickCheckFiles } from "../store/quick_check.ts";
import { clearStoreDamage, noticeDamageIn, recordStoreDamage } from "../store/store_health.ts";
import type { FileReport, VerifyReport } from "./verify_report.ts";

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What to do about damage: about the store's own file first, since nothing
 * else can be repaired without it.
 */
export function damageAdvice(damaged: boolean, damagedStore: string | undefined): string[] {
  if (!damaged) return [];
  if (damagedStore !== undefined) return [storeDamageAdvice(damagedStore)];
  return [
    "run 'vantage repair': it rebuilds the search indexes and writes damaged documents back from their original files where those are unchanged, and names what it cannot repair",
  ];
}

/** What to do about a store file whose own pages are damaged. */
export function storeDamageAdvice(file: string): string {
  return `${file} is damaged and cannot be rebuilt: stop every Vantage process, then restore it from a copy, or recover what SQLite can still read with 'sqlite3 ${
    basename(file)
  } ".recover" | sqlite3 recovered.db' and put recovered.db in its place`;
}

/**
 * The report for a store file that cannot even be opened (`error` said
 * why): its structural check and the message index's, nothing else.
 */
export async function verifyUnopenedStore(
  storeFile: string,
  error: unknown,
  signal?: AbortSignal,
): Promise<VerifyReport> {
  const started = performance.now();
  const messageIndex = messageIndexPath(storeFile);
  const [store, messages] = await quickCheckFiles([storeFile, messageIndex], { signal });
  const opening = `it cannot be opened: ${messageOf(error)}`;
  const storeProblems = [...store.problems.filter((problem) => problem !== messageOf(error))];
  storeProblems.unshift(opening);
  const files: FileReport[] = [
    { path: storeFile, kind: "store", status: "damaged", problems: storeProblems },
    {
      path: messageIndex,
      kind: "message_index",
      status: messages.status,
      problems: messages.problems,
    },
  ];
  const problems = [`${basename(storeFile)}: damaged (${storeProblems.slice(0, 3).join("; ")})`];
  if (messages.status === "damaged") {
    problems.push(
      `${basename(messageIndex)}: damaged (${messages.problems.slice(0, 3).join("; ")})`,
    );
  }
  return {
    ok: false,
    chunks_checked: false,
    duration_ms: Math.round(performance.now() - started),
    checked: {
      documents: 0,
      contents: 0,
      chunks: 0,
      bytes: 0,
      stored_bytes: 0,
      pack_files: 0,
      files: [store, messages].filter((check) => check.status !== "missing").length,
    },
    damaged: { documents: 0, chunks: 0, files: problems.length },
    store: { file: storeFile, status: "damaged", problems: storeProblems },
    index: {
      file: null,
      status: "unchecked",
      expected: 0,
      indexed: 0,
      queued: 0,
      missing: 0,
      extra: 0,
      missing_ids: [],
      extra_ids: [],
      problems: ["the store names the index file, and the store cannot be opened"],
    },
    message_index: {
      file: messageIndex,
      status: messages.status,
      problems: messages.problems,
    },
    files,
    documents: [],
    documents_truncated: false,
    reclaimable: { pack_files: 0, bytes: 0 },
    problems,
    notes: [],
    what_to_do: damageAdvice(true, storeFile),
  };
}

/**
 * The structural check `serve` runs at start, in the background: the store,
 * the document index and the message index, on a worker. A file found
 * damaged is recorded as the store's health (so `/api/health` says
 * `degraded`); a file found whole takes back what an earlier start recorded
 * about it.
 */
export async function checkStructureAtStart(
  db: DatabaseSync,
  signal?: AbortSignal,
): Promise<FileCheck[]> {
  const storeFile = storeFilePath(db);
  if (storeFile === undefined) return [];
  const folder = dirname(storeFile);
  const files = [storeFile, messageIndexPath(storeFile)];
  try {
    const index = docsIndexFile(db);
    if (index !== undefined) files.splice(1, 0, index);
  } catch (error) {
    // The store cannot even say which index file it uses: that is damage to record too.
    noticeDamageIn(folder, error, storeFile);
  }
  const checks = await quickCheckFiles(files, { signal });
  for (const check of checks) {
    if (check.status === "damaged") {
      recordStoreDamage(folder, {
        source: "startup_check",
        file: check.path,
        message: `${check.path}: ${check.problems.slice(0, 3).join("; ")}`,
      });
    } else if (check.status === "ok") {
      clearStoreDamage(folder, "startup_check", check.path);
    }
  }
  return checks;
}
