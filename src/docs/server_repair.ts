/**
 * Repairing document memory kept by a database server: verified first (server_verify.ts),
 * then what can be made right is: the keyword index is given the latest text documents it
 * lacks and loses the rows it should not hold, the configured embedder's missing vectors are
 * stored, and a damaged or missing chunk is written back from its document's original file
 * when that file is still there and hashes to what was stored. Nothing else is rewritten: a
 * chunk is only ever replaced by bytes that hash to its name. The report has the shape of
 * SQLite's repair (doc_repair.ts); the parts a server has no files for say so.
 *
 * @module
 */
import type { DocumentRow } from "../store/docs/documents.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import { compressChunk } from "./compression.ts";
import { decodeCheckedChunk } from "./content_store.ts";
import { sha256Hex } from "./content_hash.ts";
import type { RepairReport } from "./doc_repair.ts";
import { VECTORS_COMPLETE_KEY } from "./doc_index.ts";
import type { Embedder } from "./embedder.ts";
import type { ServerDocs } from "./server_ingest/server_docs.ts";
import { storeMissingVectorsOnServer } from "./server_ingest/server_vectors.ts";
import { indexedTextFrom } from "./server_search/server_text.ts";
import { allDocuments, contentProblem, indexedShouldHold } from "./server_verify.ts";
import { catchUpKeywordIndexOnServer } from "./server_ingest/server_catch_up.ts";
import { counted } from "./verify_report.ts";

/** What to repair with. */
export interface ServerRepairOptions {
  /** Report what would be done, change nothing. */
  dryRun: boolean;
  /** Damaged documents listed one by one. */
  maxDocuments: number;
  /** The configured embedder: vectors it has not stored are stored. */
  embedder: Embedder;
  /** Stops the repair between documents. */
  signal?: AbortSignal;
}

/** Reads a file whole, or undefined when it cannot be read. */
async function readOriginal(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch {
    return undefined;
  }
}

/**
 * Writes back the chunks of `row`'s content that fail their check, from its original file;
 * answers how many were written, or why none could be.
 */
async function restoreFromOriginal(
  store: Store<StoreMode>,
  row: DocumentRow,
  dryRun: boolean,
): Promise<{ restored: number } | { reason: string }> {
  const bytes = await readOriginal(row.path);
  if (bytes === undefined) return { reason: `its original file ${row.path} cannot be read` };
  if (sha256Hex(bytes) !== row.hash) {
    return { reason: `its original file ${row.path} has changed since it was stored` };
  }
  const docs = store.docs;
  const manifest = await docs.contentManifest(row.hash);
  const bad: typeof manifest = [];
  for (const entry of manifest) {
    const stored = await docs.readChunk(entry.chunk_hash);
    if (stored === undefined || !("data" in decodeCheckedChunk(entry, stored.data))) {
      bad.push(entry);
    }
  }
  if (dryRun || bad.length === 0) return { restored: bad.length };
  for (const entry of bad) {
    const data = bytes.subarray(entry.offset, entry.offset + entry.length);
    // Only bytes that hash to the chunk's name replace it.
    if (sha256Hex(data) !== entry.chunk_hash) {
      return { reason: `its original file does not hold chunk ${entry.chunk_hash} where stored` };
    }
    const references = await docs.chunkReferenceCount(entry.chunk_hash);
    await store.transaction((inside) =>
      inside.docs.rewriteChunkBytes(
        entry.chunk_hash,
        data.length,
        compressChunk(data),
        () => references,
      )
    );
  }
  return { restored: bad.length };
}

/** Indexes what the index lacks and drops what it should not hold; answers how many were indexed. */
async function repairIndex(
  docs: DocsStore<StoreMode>,
  index: ServerDocs["search"],
  rows: readonly DocumentRow[],
  dryRun: boolean,
): Promise<{ missing: number[]; extra: number[] }> {
  const held = new Set(await index.indexedDocumentIds());
  const expected = indexedShouldHold(rows);
  const missing = rows.filter((row) => expected.has(row.id) && !held.has(row.id));
  const extra = [...held].filter((id) => !expected.has(id));
  if (!dryRun) {
    for (const row of missing) {
      const text = await indexedTextFrom(docs, row);
      await index.indexDocumentText(row.id, { title: row.title, path: row.path, text });
    }
    for (const id of extra) await index.removeDocumentText(id);
  }
  return { missing: missing.map((row) => row.id), extra };
}

/**
 * Repairs document memory on a database server.
 *
 * @example
 * ```ts ignore
 * const report = await repairServerStore({ store, search }, { dryRun: false, maxDocuments: 100, embedder });
 * ```
 */
export async function repairServerStore(
  server: ServerDocs,
  options: ServerRepairOptions,
): Promise<RepairReport> {
  const started = performance.now();
  const { store, search: index } = server;
  const docs = store.docs;
  const rows = await allDocuments(docs);
  const remaining: string[] = [];

  // The keyword index.
  const { missing, extra } = await repairIndex(docs, index, rows, options.dryRun);
  const indexChanged = missing.length + extra.length > 0;
  // The index now holds what the store does: the queued changes only need their rows settled
  // again (no change where nothing moved since) and their entries cleared.
  if (!options.dryRun) await catchUpKeywordIndexOnServer(server, 0);

  // Vectors the configured embedder has not stored (none once the store records them complete,
  // as on SQLite).
  const model = options.embedder.id;
  const needing = await docs.readState(VECTORS_COMPLETE_KEY) === model
    ? 0
    : (await docs.documentsNeedingVectors(model, -1)).length;
  let embedded = 0;
  if (!options.dryRun && needing > 0) {
    try {
      embedded = (await storeMissingVectorsOnServer(server, options.embedder, Infinity)).stored;
    } catch (error) {
      remaining.push(
        `vectors from ${model}: storing them failed (${
          error instanceof Error ? error.message : String(error)
        }); searches embed those documents for themselves until a later repair stores them`,
      );
    }
  }

  // Damaged contents, each written back from one of its documents' original files.
  const problemOf = new Map<string, Awaited<ReturnType<typeof contentProblem>>>();
  for (const row of rows) {
    options.signal?.throwIfAborted();
    if (!problemOf.has(row.hash)) problemOf.set(row.hash, await contentProblem(docs, row, true));
  }
  const documents: RepairReport["documents"] = [];
  const outcome = new Map<string, { restored: number } | { reason: string }>();
  let chunksRestored = 0;
  for (const row of rows) {
    const problem = problemOf.get(row.hash);
    if (problem === undefined) continue;
    let result = outcome.get(row.hash);
    if (result === undefined || "reason" in result) {
      // Another document of the same content may still have its original file.
      const tried = await restoreFromOriginal(store, row, options.dryRun);
      if ("restored" in tried) chunksRestored += tried.restored;
      if (result === undefined || "restored" in tried) result = tried;
      outcome.set(row.hash, result);
    }
    documents.push({
      id: row.id,
      path: row.path,
      hash: row.hash,
      status: "restored" in result
        ? (options.dryRun ? "would_restore" : "restored")
        : "unrecoverable",
      reason: "restored" in result ? problem.message : `${problem.message}; ${result.reason}`,
      files: ["the PostgreSQL store"],
    });
  }
  const unrecoverable = documents.filter((d) => d.status === "unrecoverable");
  if (unrecoverable.length > 0) {
    remaining.push(
      `${counted(unrecoverable.length, "document")} cannot be restored: add ${
        unrecoverable.length === 1 ? "it" : "them"
      } again from a copy (docs.add), or delete ${
        unrecoverable.length === 1 ? "it" : "them"
      } (docs.delete)`,
    );
  }
  const damagedChunks = new Set(
    [...problemOf.values()].flatMap((p) => p?.chunk === undefined ? [] : [p.chunk]),
  );
  return {
    ok: remaining.length === 0,
    dry_run: options.dryRun,
    duration_ms: Math.round(performance.now() - started),
    store: { file: null, status: "unchecked", problems: [] },
    docs_index: {
      file: null,
      action: !indexChanged ? "none" : options.dryRun ? "would_rebuild" : "rebuilt",
      ...(indexChanged
        ? {
          reason: `the keyword index lacked ${
            counted(missing.length, "latest text document")
          } and held ${counted(extra.length, "other document")}`,
          documents_indexed: options.dryRun ? 0 : missing.length,
        }
        : {}),
    },
    vectors: {
      model,
      action: needing === 0 ? "none" : options.dryRun ? "would_store" : "stored",
      documents: options.dryRun ? needing : embedded,
    },
    message_index: {
      file: null,
      action: "none",
      reason:
        "a database server's message word index is a column of its messages, written with them: there is nothing to rebuild",
    },
    earlier_index_files: [],
    chunks: { damaged: damagedChunks.size, restored: options.dryRun ? 0 : chunksRestored },
    restored_documents: documents.filter((d) => d.status !== "unrecoverable").length,
    unrecoverable_documents: unrecoverable.length,
    documents: documents.slice(0, options.maxDocuments),
    documents_truncated: documents.length > options.maxDocuments,
    packs: { unreferenced: 0, removed: 0, bytes_reclaimed: 0 },
    remaining,
  };
}
