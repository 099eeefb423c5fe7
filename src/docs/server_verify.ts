/**
 * Verifying document memory kept by a database server (team mode on PostgreSQL): every
 * document's content read back chunk by chunk through the store interface, decoded and hashed
 * (or, structure only, its chunk list checked for chunks that are not stored), and the keyword
 * index checked for holding exactly the latest text documents. The report has the shape
 * SQLite's verification gives (doc_verify.ts), so every surface shows it the same way.
 *
 * What SQLite's has that a server's has not: there is no store file to check page by page (the
 * server checks its own pages; `amcheck` and its backups are the database administrator's
 * tools), no pack files beside it and no index files: those parts of the report say so.
 *
 * @module
 */
import type { DocumentRow } from "../store/docs/documents.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import { CorruptContentError } from "./content_store.ts";
import { readContentFrom } from "./store_content.ts";
import {
  counted,
  type DamagedDocument,
  type IndexReport,
  type VerifyReport,
} from "./verify_report.ts";

/** What the server verification reads of the keyword index. */
export interface IndexCoverage {
  /** The ids of the documents the index holds, ascending. */
  indexedDocumentIds(): Promise<number[]>;
}

/** What to verify. */
export interface ServerVerifyOptions {
  /** Read, decode and hash every chunk (default true); false checks the chunk lists only. */
  chunks?: boolean;
  /** Damaged documents listed one by one (all are counted). */
  maxDocuments?: number;
  /** Stops the verification (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** How the store is named in the report. */
  label: string;
}

/** Documents read per page. */
const PAGE = 500;
/** Ids listed one by one in the index's report. */
const LISTED_IDS = 20;

/** Every document row, every version, in the order they were stored. */
export async function allDocuments(docs: DocsStore<StoreMode>): Promise<DocumentRow[]> {
  const rows: DocumentRow[] = [];
  for (let after = 0;;) {
    const page = await docs.documentsAfter(after, PAGE);
    if (page.length === 0) return rows;
    rows.push(...page);
    after = page[page.length - 1].id;
  }
}

/** What is wrong with one content: one line, and the chunk it names, if one. */
export interface ContentProblem {
  /** What is wrong. */
  message: string;
  /** The damaged or missing chunk, when the problem is one chunk's. */
  chunk?: string;
}

/** What is wrong with one content, or undefined when nothing is. */
export async function contentProblem(
  docs: DocsStore<StoreMode>,
  row: DocumentRow,
  readBytes: boolean,
): Promise<ContentProblem | undefined> {
  const label = { path: row.path, id: row.id };
  if (readBytes) {
    try {
      await readContentFrom(docs, row.hash, label);
      return undefined;
    } catch (error) {
      if (!(error instanceof CorruptContentError)) throw error;
      const chunk = error.details?.chunk_hash;
      return { message: error.message, ...(typeof chunk === "string" ? { chunk } : {}) };
    }
  }
  if ((await docs.contentSize(row.hash)) === undefined) {
    return {
      message: `the content of document ${row.path} (${row.hash}) is missing from the store`,
    };
  }
  for (const entry of await docs.contentManifest(row.hash)) {
    if (!(await docs.chunkExists(entry.chunk_hash))) {
      return {
        message:
          `chunk ${entry.chunk_hash} (#${entry.seq}) of document ${row.path} (${row.hash}) is missing from the store`,
        chunk: entry.chunk_hash,
      };
    }
  }
  return undefined;
}

/** The documents with a keyword change still queued, read a page at a time. */
async function queuedDocumentIds(docs: DocsStore<StoreMode>): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let after = 0;;) {
    const page = await docs.queuedIndexChanges(PAGE, after);
    for (const change of page) ids.add(change.id);
    if (page.length < PAGE) return ids;
    after = page[page.length - 1].seq;
  }
}

/** The latest text documents: what the keyword index should hold. */
export function indexedShouldHold(rows: readonly DocumentRow[]): Set<number> {
  return new Set(
    rows.filter((row) => row.is_latest === 1 && row.is_text === 1).map((row) => row.id),
  );
}

/**
 * Compares the index's documents with the latest text documents, allowing for documents with a
 * change still queued (a write's keyword row not yet applied), as SQLite's check does.
 */
export function indexReport(
  expected: ReadonlySet<number>,
  indexed: readonly number[],
  queued: ReadonlySet<number> = new Set(),
): IndexReport {
  const held = new Set(indexed);
  const missing = [...expected].filter((id) => !held.has(id) && !queued.has(id))
    .sort((a, b) => a - b);
  const extra = indexed.filter((id) => !expected.has(id) && !queued.has(id));
  const problems: string[] = [];
  if (missing.length > 0) {
    problems.push(
      `the keyword index lacks ${
        counted(missing.length, "latest text document")
      }: a search cannot find ${missing.length === 1 ? "it" : "them"}`,
    );
  }
  if (extra.length > 0) {
    problems.push(
      `the keyword index holds ${counted(extra.length, "document")} that ${
        extra.length === 1 ? "is" : "are"
      } not a latest text document`,
    );
  }
  return {
    file: null,
    status: problems.length === 0 ? "ok" : "incomplete",
    expected: expected.size,
    indexed: indexed.length,
    queued: queued.size,
    missing: missing.length,
    extra: extra.length,
    missing_ids: missing.slice(0, LISTED_IDS),
    extra_ids: extra.slice(0, LISTED_IDS),
    problems,
  };
}

/**
 * Verifies document memory on a database server. Read-only: it changes nothing.
 *
 * @example
 * ```ts ignore
 * const report = await verifyServerStore(store.docs, search, { label: "the PostgreSQL store" });
 * ```
 */
export async function verifyServerStore(
  docs: DocsStore<StoreMode>,
  index: IndexCoverage,
  options: ServerVerifyOptions,
): Promise<VerifyReport> {
  const started = performance.now();
  const readBytes = options.chunks ?? true;
  const listed = options.maxDocuments ?? 100;
  const rows = await allDocuments(docs);
  // Each content is read once, however many documents share it.
  const problemOf = new Map<string, ContentProblem | undefined>();
  const chunkHashes = new Set<string>();
  let bytes = 0;
  for (const row of rows) {
    options.signal?.throwIfAborted();
    if (problemOf.has(row.hash)) continue;
    problemOf.set(row.hash, await contentProblem(docs, row, readBytes));
    for (const entry of await docs.contentManifest(row.hash)) chunkHashes.add(entry.chunk_hash);
    bytes += row.size;
  }
  const damaged: DamagedDocument[] = [];
  for (const row of rows) {
    const problem = problemOf.get(row.hash);
    if (problem === undefined) continue;
    damaged.push({
      id: row.id,
      path: row.path,
      hash: row.hash,
      latest: row.is_latest === 1,
      problems: [problem.message],
      files: [options.label],
    });
  }
  const indexed = indexReport(
    indexedShouldHold(rows),
    await index.indexedDocumentIds(),
    await queuedDocumentIds(docs),
  );
  const found = [...problemOf.values()].filter((p) => p !== undefined);
  const damagedChunks = new Set(found.flatMap((p) => p.chunk === undefined ? [] : [p.chunk]));
  const problems = [
    ...(damaged.length > 0
      ? [
        `${counted(damaged.length, "document")} (${
          counted(found.length, "content")
        }) cannot be read back as stored`,
      ]
      : []),
    ...indexed.problems,
  ];
  const totals = await docs.chunkTotals();
  return {
    ok: problems.length === 0,
    chunks_checked: readBytes,
    duration_ms: Math.round(performance.now() - started),
    checked: {
      documents: rows.length,
      contents: problemOf.size,
      chunks: chunkHashes.size,
      bytes,
      stored_bytes: totals.stored_bytes,
      pack_files: 0,
      files: 0,
    },
    damaged: { documents: damaged.length, chunks: damagedChunks.size, files: 0 },
    store: { file: null, status: "unchecked", problems: [] },
    index: indexed,
    message_index: { file: null, status: "unchecked", problems: [] },
    files: [],
    documents: damaged.slice(0, listed),
    documents_truncated: damaged.length > listed,
    reclaimable: { pack_files: 0, bytes: 0 },
    problems,
    notes: [
      `${options.label} keeps chunk bytes in its rows and its keyword index in a table: there are no store, pack or index files to check; the server's own page checks (amcheck) and backups are its administrator's`,
    ],
    what_to_do: problems.length === 0 ? [] : [
      "run docs.repair: it indexes the latest text documents the keyword index lacks, drops what it should not hold, writes damaged chunks back from the documents' original files where those are unchanged, and names what it cannot repair",
    ],
  };
}
