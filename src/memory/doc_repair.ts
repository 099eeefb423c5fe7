/**
 * Repairing the store: rebuilds what can be rebuilt from what is whole, and
 * says what cannot be and what to do about it.
 *
 * - A damaged, lost or incomplete document index: the store moves to a new
 *   index generation and every queued change is applied now.
 * - Damaged or lost chunks: when a document's original file is still at its
 *   stored path and hashes to the stored content hash, the file is chunked
 *   again (the chunker cuts the same bytes the same way) and the damaged
 *   chunks' bytes are written back, each checked against its own hash, in
 *   one transaction per content. Otherwise the document is unrecoverable
 *   and its path is named.
 * - Packs nothing uses (and what chunk rewrites left unused) are reclaimed
 *   by the garbage collection's own pack pass, inside a write transaction,
 *   so no other process's pack is touched.
 * - A damaged message index is rebuilt only when no `serve` holds the data
 *   home (its indexer writes that file); otherwise it is reported.
 * - A structurally damaged store cannot be rebuilt from anything: it is
 *   reported with the file and what to do, and nothing else is touched.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { maxMessageId } from "../store/agent_reads.ts";
import { type DatabaseSync, transaction } from "../store/database.ts";
import { chunkReferenceCount, compactPacks, rewriteChunkBytes } from "../store/docs_chunks.ts";
import { queueIndexChange, replaceDocsIndex } from "../store/docs_fts.ts";
import { documentsWithContent, removeIndexFile } from "../store/docs_integrity.ts";
import { currentPackNumber, listPackFiles, rotatePack } from "../store/docs_packs.ts";
import { MessageIndexer } from "../store/message_index.ts";
import { chunksOf, collectGarbage, filePieces, putFileContent } from "./content_store.ts";
import { compressChunk } from "./compression.ts";
import { ContentHasher, sha256Hex } from "./content_hash.ts";
import { catchUpDocsIndex } from "./doc_index.ts";
import {
  chunkProblem,
  storeDamageAdvice,
  type VerifyFindings,
  verifyStore,
  verifyUnopenedStore,
  YIELD_EVERY_MS,
} from "./doc_verify.ts";

/** What to repair, and how. */
export interface RepairOptions {
  /** Report what would be done without doing it. */
  dryRun?: boolean;
  /** Stops the repair between steps (it rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Whether a `serve` holds the data home (the message index is then left alone). */
  serveRunning(): Promise<boolean>;
  /** Documents listed one by one (all are counted). */
  maxDocuments?: number;
}

/** What happened to one damaged document. */
export interface RepairedDocument {
  /** Its id. */
  id: number;
  /** Its path. */
  path: string;
  /** Its content hash. */
  hash: string;
  /** `restored`, `would_restore` (dry run) or `unrecoverable`. */
  status: "restored" | "would_restore" | "unrecoverable";
  /** Why it could not be restored, or from which file it was. */
  reason: string;
  /** The damaged files it involved. */
  files: string[];
}

/** The outcome of a repair. */
export interface RepairReport {
  /** Nothing damaged is left (or, in a dry run, everything found could be repaired). */
  ok: boolean;
  /** Whether nothing was changed. */
  dry_run: boolean;
  /** How long it took, ms. */
  duration_ms: number;
  /** The store file's structural state (damage there stops the repair). */
  store: { file: string | null; status: string; problems: string[]; what_to_do?: string };
  /** The document search index. */
  docs_index: {
    file: string | null;
    action: "none" | "rebuilt" | "would_rebuild";
    reason?: string;
    new_file?: string;
    documents_indexed?: number;
  };
  /** The message search index. */
  message_index: {
    file: string | null;
    action: "none" | "rebuilt" | "would_rebuild" | "left";
    reason?: string;
    what_to_do?: string;
  };
  /** Index files of earlier generations removed (or that would be). */
  earlier_index_files: string[];
  /** Damaged chunks found, and how many were written back. */
  chunks: { damaged: number; restored: number };
  /** Damaged documents by outcome. */
  restored_documents: number;
  /** Documents that could not be restored. */
  unrecoverable_documents: number;
  /** Per damaged document (the first `maxDocuments`). */
  documents: RepairedDocument[];
  /** Whether more documents were found than listed. */
  documents_truncated: boolean;
  /** Packs reclaimed by the garbage collection. */
  packs: { unreferenced: number; removed: number; bytes_reclaimed: number };
  /** What is still damaged, and what to do about it. */
  remaining: string[];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Gives the event loop a turn every {@linkcode YIELD_EVERY_MS}, and stops on abort. */
async function pace(state: { last: number }, signal: AbortSignal | undefined): Promise<void> {
  if (performance.now() - state.last < YIELD_EVERY_MS) return;
  await new Promise((resolve) => setTimeout(resolve, 0));
  state.last = performance.now();
  signal?.throwIfAborted();
}

/** A chunk's bytes recovered from a file, ready to store. */
interface RecoveredChunk {
  size: number;
  stored: Uint8Array;
}

/**
 * Reads the original file of a document, if it is still there and still
 * the stored content, and takes the bytes of the chunks in `wanted`.
 * Returns the chunks found, or why the file cannot serve.
 */
async function recoverFromFile(
  path: string,
  contentHash: string,
  wanted: ReadonlySet<string>,
  state: { last: number },
  signal: AbortSignal | undefined,
): Promise<Map<string, RecoveredChunk> | string> {
  if (!isAbsolute(path)) return `it was not added from a file ('${path}' is a name, not a path)`;
  const permission = Deno.permissions.querySync({ name: "read", path });
  if (permission.state !== "granted") {
    return `reading ${path} is not allowed here (add its folder to VANTAGE_ROOTS)`;
  }
  try {
    if (!Deno.statSync(path).isFile) return `${path} is no longer a file`;
  } catch {
    return `its original file ${path} no longer exists`;
  }
  try {
    const hasher = new ContentHasher();
    for (const piece of filePieces(path)) {
      hasher.update(piece);
      await pace(state, signal);
    }
    const actual = hasher.digestHex();
    if (actual !== contentHash) {
      return `its original file ${path} has changed since it was stored (it hashes to ${actual})`;
    }
    const found = new Map<string, RecoveredChunk>();
    for (const chunk of chunksOf(filePieces(path))) {
      const hash = sha256Hex(chunk);
      if (wanted.has(hash) && !found.has(hash)) {
        found.set(hash, { size: chunk.length, stored: compressChunk(chunk) });
      }
      await pace(state, signal);
    }
    return found;
  } catch (error) {
    if (signal?.aborted) throw error;
    return `reading its original file ${path} failed: ${messageOf(error)}`;
  }
}

/**
 * Repairs the store `db` belongs to.
 *
 * @example
 * ```ts ignore
 * const report = await repairStore(db, { serveRunning: async () => false });
 * report.remaining; // what could not be repaired, and what to do
 * ```
 */
export async function repairStore(
  db: DatabaseSync,
  options: RepairOptions,
): Promise<RepairReport> {
  const started = performance.now();
  const dryRun = options.dryRun ?? false;
  const maxDocuments = options.maxDocuments ?? 100;
  const signal = options.signal;
  const state = { last: performance.now() };
  const findings: VerifyFindings = await verifyStore(db, { chunks: true, signal, maxDocuments });
  const verified = findings.report;
  const report: RepairReport = {
    ok: false,
    dry_run: dryRun,
    duration_ms: 0,
    store: {
      file: verified.store.file,
      status: verified.store.status,
      problems: verified.store.problems,
    },
    docs_index: { file: verified.index.file, action: "none" },
    message_index: { file: verified.message_index.file, action: "none" },
    earlier_index_files: [],
    chunks: { damaged: verified.damaged.chunks, restored: 0 },
    restored_documents: 0,
    unrecoverable_documents: 0,
    documents: [],
    documents_truncated: false,
    packs: { unreferenced: verified.reclaimable.pack_files, removed: 0, bytes_reclaimed: 0 },
    remaining: [],
  };
  const finish = (): RepairReport => {
    report.ok = report.remaining.length === 0;
    report.duration_ms = Math.round(performance.now() - started);
    return report;
  };

  // A store whose own pages are damaged cannot be rebuilt from anything, and writing to it
  // could spread the damage: say what to do and touch nothing.
  if (verified.store.status === "damaged") {
    const file = verified.store.file ?? "the store";
    report.store.what_to_do = storeDamageAdvice(file);
    report.remaining.push(`${file}: ${verified.store.problems.slice(0, 3).join("; ")}`);
    return finish();
  }

  // Damaged chunks, content by content, from the documents' original files.
  const restored = new Set<string>();
  const reindex: number[] = [];
  for (const [contentHash, damage] of findings.contents) {
    await pace(state, signal);
    const documents = documentsWithContent(db, contentHash);
    const files = [...damage.files];
    const wanted = new Set([...damage.chunks].filter((hash) => !restored.has(hash)));
    const listDamage = damage.problems.some((problem) => problem.startsWith("its chunk list"));
    let outcome: { status: RepairedDocument["status"]; reason: string };
    if (listDamage) {
      outcome = {
        status: "unrecoverable",
        reason: `${damage.problems[0]}; delete the document and add it again`,
      };
    } else if (!damage.missing && wanted.size === 0) {
      outcome = { status: dryRun ? "would_restore" : "restored", reason: "shared chunks restored" };
    } else {
      const reasons: string[] = [];
      let recovered: { path: string; chunks: Map<string, RecoveredChunk> } | undefined;
      for (const path of new Set(documents.map((document) => document.path))) {
        const result = await recoverFromFile(path, contentHash, wanted, state, signal);
        if (typeof result === "string") {
          reasons.push(result);
          continue;
        }
        if (result.size < wanted.size && !damage.missing) {
          reasons.push(`${path} holds only ${result.size} of the ${wanted.size} damaged chunks`);
          continue;
        }
        recovered = { path, chunks: result };
        break;
      }
      if (recovered === undefined) {
        outcome = {
          status: "unrecoverable",
          reason: (reasons.length > 0 ? reasons : ["no document names a file it came from"])
            .join("; "),
        };
      } else if (dryRun) {
        outcome = { status: "would_restore", reason: `from ${recovered.path}` };
      } else {
        const source = recovered;
        try {
          writeRecovered(db, findings, contentHash, damage.missing, source.path, source.chunks);
          const still = [...source.chunks.keys()].filter((hash) =>
            chunkProblem(db, hash) !== undefined
          );
          if (still.length > 0) {
            throw new Error(`chunks ${still.join(", ")} still fail their check after rewriting`);
          }
          for (const hash of source.chunks.keys()) restored.add(hash);
          report.chunks.restored += source.chunks.size;
          outcome = { status: "restored", reason: `from ${source.path}` };
        } catch (error) {
          outcome = {
            status: "unrecoverable",
            reason: `writing it back from ${source.path} failed: ${messageOf(error)}`,
          };
        }
      }
    }
    for (const document of documents) {
      if (outcome.status === "unrecoverable") {
        report.unrecoverable_documents++;
        report.remaining.push(
          `document #${document.id} ${document.path} (${document.hash}) cannot be restored: ${outcome.reason}`,
        );
      } else {
        report.restored_documents++;
        if (document.is_latest === 1 && document.is_text === 1) reindex.push(document.id);
      }
      if (report.documents.length < maxDocuments) {
        report.documents.push({
          id: document.id,
          path: document.path,
          hash: document.hash,
          status: outcome.status,
          reason: outcome.reason,
          files,
        });
      } else {
        report.documents_truncated = true;
      }
    }
  }
  // Damaged chunks no document uses: the garbage collection drops them when nothing refers to them.
  const orphaned = [...findings.chunks.keys()].filter((hash) =>
    !restored.has(hash) &&
    ![...findings.contents.values()].some((content) => content.chunks.has(hash))
  );

  // Packs nothing uses, and what the rewrites left unused: the garbage collection's pack pass.
  if (!dryRun) {
    const before = listPackFiles(db);
    transaction(db, () => {
      collectGarbage(db);
      compactPacks(db);
    });
    const after = new Set(listPackFiles(db).map((file) => file.pack));
    for (const file of before) {
      if (after.has(file.pack)) continue;
      report.packs.removed++;
      report.packs.bytes_reclaimed += file.bytes;
    }
    const left = orphaned.filter((hash) => chunkProblem(db, hash) !== undefined);
    if (left.length > 0) {
      report.remaining.push(
        `${left.length} damaged chunk${
          left.length === 1 ? " is" : "s are"
        } still stored though no document uses ${left.length === 1 ? "it" : "them"} (${
          left.slice(0, 3).join(", ")
        }${left.length > 3 ? ", …" : ""})`,
      );
    }
  }

  // The document search index.
  const index = verified.index;
  if (index.status === "damaged" || index.status === "missing" || index.status === "incomplete") {
    report.docs_index.reason = index.problems.join("; ");
    if (index.file === null) {
      report.remaining.push(
        `the search index of this in-memory store is ${index.status}; it cannot be replaced`,
      );
    } else if (dryRun) {
      report.docs_index.action = "would_rebuild";
    } else {
      report.docs_index.new_file = replaceDocsIndex(db, index.file);
      report.docs_index.documents_indexed = catchUpDocsIndex(db, 0);
      report.docs_index.action = "rebuilt";
    }
  } else if (reindex.length > 0 && !dryRun) {
    // Restored documents are indexed again from their whole text (an index made while they were
    // damaged holds only their titles and paths).
    transaction(db, () => {
      for (const id of reindex) queueIndexChange(db, id, "add");
    });
    catchUpDocsIndex(db, 0);
  }
  for (const file of verified.files) {
    if (file.kind !== "earlier_index") continue;
    if (!dryRun) removeIndexFile(file.path);
    report.earlier_index_files.push(file.path);
  }
  signal?.throwIfAborted();

  // The message index: its indexer runs in serve, so only rebuilt while no serve holds the home.
  const messages = verified.message_index;
  if (messages.status === "damaged" && messages.file !== null) {
    report.message_index.reason = messages.problems.join("; ");
    if (await options.serveRunning()) {
      report.message_index.action = "left";
      report.message_index.what_to_do =
        `stop 'vantage serve' (it keeps ${messages.file} open and writes it), then run 'vantage repair' again`;
      report.remaining.push(`${messages.file}: damaged; ${report.message_index.what_to_do}`);
    } else if (dryRun) {
      report.message_index.action = "would_rebuild";
    } else {
      await rebuildMessageIndex(db, verified.store.file!, messages.file, signal);
      report.message_index.action = "rebuilt";
    }
  }
  return finish();
}

/**
 * The repair of a store file too damaged to open (`error` said why): only
 * its report and what to do, since nothing can be rebuilt without it.
 */
export async function repairUnopenedStore(
  file: string,
  error: unknown,
  dryRun: boolean,
  signal?: AbortSignal,
): Promise<RepairReport> {
  const verified = await verifyUnopenedStore(file, error, signal);
  return {
    ok: false,
    dry_run: dryRun,
    duration_ms: verified.duration_ms,
    store: {
      file,
      status: "damaged",
      problems: verified.store.problems,
      what_to_do: storeDamageAdvice(file),
    },
    docs_index: { file: null, action: "none" },
    message_index: { file: verified.message_index.file, action: "none" },
    earlier_index_files: [],
    chunks: { damaged: 0, restored: 0 },
    restored_documents: 0,
    unrecoverable_documents: 0,
    documents: [],
    documents_truncated: false,
    packs: { unreferenced: 0, removed: 0, bytes_reclaimed: 0 },
    remaining: [`${file}: ${verified.store.problems.slice(0, 3).join("; ")}`],
  };
}

/** Writes recovered chunks back (and the content row, when that was lost) in one transaction. */
function writeRecovered(
  db: DatabaseSync,
  findings: VerifyFindings,
  contentHash: string,
  contentMissing: boolean,
  path: string,
  chunks: ReadonlyMap<string, RecoveredChunk>,
): void {
  transaction(db, () => {
    // New bytes must not land in a pack that is itself missing, short or damaged.
    if (findings.damagedPacks.has(currentPackNumber(db))) rotatePack(db);
    for (const [hash, chunk] of chunks) {
      rewriteChunkBytes(db, hash, chunk.size, chunk.stored, () => chunkReferenceCount(db, hash));
    }
    if (contentMissing) {
      const put = putFileContent(db, path, Date.now());
      if (put.hash !== contentHash) {
        throw new Error(`${path} changed while it was read (it now hashes to ${put.hash})`);
      }
    }
  });
}

/** Removes a damaged message index and indexes every stored message into a new one. */
async function rebuildMessageIndex(
  db: DatabaseSync,
  storeFile: string,
  indexFile: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  removeIndexFile(indexFile);
  const indexer = await MessageIndexer.start(storeFile, () => maxMessageId(db));
  try {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      indexer.caughtUp().then(resolve, reject).finally(() =>
        signal?.removeEventListener("abort", onAbort)
      );
    });
  } finally {
    indexer.close();
  }
}
