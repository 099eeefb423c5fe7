/**
 * Whether the document search index holds what it should: every latest
 * text document and nothing else, allowing for changes still queued. The
 * index file cannot be joined to the store, so its document ids are read in
 * pages and merged with the store's; whatever differs is read again at the
 * end, so a document added, indexed or removed meanwhile is not a gap.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import {
  indexedAmong,
  indexedIdsPage,
  latestTextState,
  openIndexForReading,
  queuedDocumentIds,
} from "../store/docs/integrity.ts";
import type { FileCheck } from "../store/quick_check.ts";
import type { Pacer } from "./pacer.ts";
import { counted, type IndexReport } from "./verify_report.ts";

/** Ids listed per kind of difference. */
const LISTED_IDS = 20;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Compares the index file's rows with the latest text documents
 * (`expected`, ascending; undefined when the store could not be read to
 * the end). `check` is the file's structural check.
 */
export async function checkIndex(
  db: DatabaseSync,
  file: string | undefined,
  check: FileCheck | undefined,
  expected: readonly number[] | undefined,
  pacer: Pacer,
): Promise<IndexReport> {
  const report: IndexReport = {
    file: file ?? null,
    status: "ok",
    expected: expected?.length ?? 0,
    indexed: 0,
    queued: 0,
    missing: 0,
    extra: 0,
    missing_ids: [],
    extra_ids: [],
    problems: [],
  };
  if (expected === undefined) {
    // The store could not be read to the end: what the index should hold is not known.
    report.status = check?.status === "damaged" ? "damaged" : "unchecked";
    report.problems.push(
      ...(check?.problems ?? []),
      "what it should hold is unknown: the store could not be read",
    );
    return report;
  }
  let queued = queuedDocumentIds(db);
  report.queued = queued.size;
  if (file !== undefined && check !== undefined && check.status !== "ok") {
    if (check.status === "missing") {
      const unqueued = expected.filter((id) => !queued.has(id)).length;
      report.status = unqueued > 0 ? "missing" : "ok";
      report.missing = unqueued;
      if (unqueued > 0) {
        report.problems.push(
          `it does not exist: ${
            counted(unqueued, "latest text document")
          } not searchable by keyword until it is rebuilt`,
        );
      }
      return report;
    }
    report.status = check.status;
    report.problems.push(...check.problems);
    return report;
  }
  let index: DatabaseSync;
  try {
    index = file === undefined ? db : openIndexForReading(file);
  } catch (error) {
    report.status = "damaged";
    report.problems.push(`it cannot be opened: ${messageOf(error)}`);
    return report;
  }
  const missing: number[] = [];
  const extra: number[] = [];
  try {
    let next = 0;
    let after = 0;
    for (;;) {
      if (pacer.due) await pacer.pause();
      const ids = indexedIdsPage(index, after, 5000);
      if (ids.length === 0) break;
      after = ids[ids.length - 1];
      report.indexed += ids.length;
      for (const id of ids) {
        while (next < expected.length && expected[next] < id) missing.push(expected[next++]);
        if (next < expected.length && expected[next] === id) next++;
        else extra.push(id);
      }
    }
    while (next < expected.length) missing.push(expected[next++]);
    // Read again what differs: a document added, indexed or removed meanwhile is not a gap.
    queued = queuedDocumentIds(db);
    const candidates = [...missing, ...extra].filter((id) => !queued.has(id));
    const indexable = latestTextState(db, candidates);
    const present = indexedAmong(index, candidates);
    for (const id of candidates) {
      const should = indexable.get(id) === true;
      const has = present.has(id);
      if (should && !has) {
        report.missing++;
        if (report.missing_ids.length < LISTED_IDS) report.missing_ids.push(id);
      } else if (!should && has) {
        report.extra++;
        if (report.extra_ids.length < LISTED_IDS) report.extra_ids.push(id);
      }
    }
  } catch (error) {
    report.status = "damaged";
    report.problems.push(`reading it failed: ${messageOf(error)}`);
    return report;
  } finally {
    if (index !== db) index.close();
  }
  if (report.missing > 0) {
    report.problems.push(
      `${counted(report.missing, "latest text document")} not in it (ids ${
        report.missing_ids.join(", ")
      }${report.missing > report.missing_ids.length ? ", …" : ""})`,
    );
  }
  if (report.extra > 0) {
    report.problems.push(
      `it holds ${counted(report.extra, "document")} no longer latest or stored (ids ${
        report.extra_ids.join(", ")
      }${report.extra > report.extra_ids.length ? ", …" : ""})`,
    );
  }
  if (report.problems.length > 0) report.status = "incomplete";
  return report;
}
