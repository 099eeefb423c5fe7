/**
 * Recording one document on a database server, inside the write that stores it — what
 * SQLite's `DocumentRecorder` (../doc_ingest/record.ts) does, over the store's interface: the
 * path's and the content's locks taken first, the bytes stored (or found stored), the document
 * row written or an unchanged one refreshed, older versions of the path superseded (their
 * collections carried over to the new latest version, their vectors and graph removed), the
 * text embedded and its graph stored, and the add's tags, metadata, collection and snapshot
 * membership set.
 *
 * Nothing here changes anything outside the store: the server may run a write again after a
 * deadlock, so what happened comes back as a {@linkcode Recorded} for the add to count once
 * the write has committed.
 *
 * @module
 */
import { newDocumentRow } from "../doc_ingest/new_row.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { PutResult } from "../content_store.ts";
import type { PendingVectors } from "../doc_index.ts";
import type { IngestedDocument, IngestOptions } from "../doc_ingest/types.ts";
import { extractText } from "../text_extract.ts";
import { type PreparedFile, putPreparedIn } from "./server_files.ts";
import {
  indexIn,
  type KeywordChanges,
  noKeywordChanges,
  queueKeywordAdd,
  queueKeywordRemoval,
  type ServerEmbedding,
  unindexIn,
} from "./server_index.ts";
import type { ServerSnapshot } from "./server_snapshot.ts";
import { markVectorsIncompleteIn } from "./server_vectors.ts";

/** What one add records with: its options, snapshot and embedding. */
export interface RecordContext {
  /** The add's options. */
  options: IngestOptions;
  /** Its snapshot. */
  snapshot: ServerSnapshot;
  /** How documents are embedded. */
  embedding: ServerEmbedding;
}

/** What storing a document's content added to the store, as an add counts it. */
export type StoredCounts = Pick<PutResult, "size" | "new_chunks" | "new_bytes" | "stored_bytes">;

/** What recording one document did, taken in by the add once its write committed. */
export interface Recorded {
  /** How its content was stored (undefined when it was found unchanged by size and time). */
  put?: StoredCounts;
  /** The document as the add reports it. */
  document: IngestedDocument;
  /** The keyword index's changes. */
  keywords: KeywordChanges;
  /** Its text, when an embedding service embeds it once the add is stored. */
  pending?: PendingVectors;
}

/** A stored document as an add reports it. */
function reported(doc: DocumentRow, status: IngestedDocument["status"]): IngestedDocument {
  return {
    id: doc.id,
    hash: doc.hash,
    path: doc.path,
    name: doc.name,
    size: doc.size,
    mime: doc.mime,
    status,
  };
}

/** Gives a document the add's tags, metadata and collection (at its path below the folder). */
async function decorateIn(
  docs: DocsStore<StoreMode>,
  options: IngestOptions,
  id: number,
  relativePath: string,
): Promise<void> {
  if (options.collection !== undefined) {
    await docs.addToCollection(id, options.collection, relativePath);
  }
  if (options.tags !== undefined && options.tags.length > 0) await docs.addTags(id, options.tags);
  if (options.metadata !== undefined && Object.keys(options.metadata).length > 0) {
    await docs.setMetadata(id, options.metadata);
  }
}

/** Takes every other latest version of a path out of search (inside the caller's write). */
async function supersedeIn(
  docs: DocsStore<StoreMode>,
  path: string,
  keepId: number,
  keywords: KeywordChanges,
): Promise<void> {
  for (const old of await docs.supersedeOtherVersions(path, keepId)) {
    await unindexIn(docs, old);
    await queueKeywordRemoval(docs, keywords, old);
  }
}

/**
 * Indexes a document's text: vectors and graph now, the keyword row queued for after the commit, and its
 * text kept for the embedding service when the embedder has no synchronous path.
 */
async function indexTextIn(
  docs: DocsStore<StoreMode>,
  context: RecordContext,
  doc: { id: number; path: string; title: string; text: string | undefined },
  modelRecorded: boolean,
  recorded: Pick<Recorded, "keywords" | "pending">,
): Promise<void> {
  if (doc.text === undefined) return;
  const entry = { id: doc.id, title: doc.title, path: doc.path, text: doc.text };
  // Sent together: the queue entry needs no round trip of its own.
  await Promise.all([
    indexIn(docs, context.embedding, { ...entry, modelRecorded }),
    queueKeywordAdd(docs, recorded.keywords, entry),
  ]);
  if (context.embedding.embed === undefined) {
    // Until the embedding service has answered, searches and the next add must know the gap.
    await markVectorsIncompleteIn(docs);
    recorded.pending = { id: doc.id, title: doc.title, text: doc.text };
  }
}

/**
 * Stores one prepared file and records it as a document at its path (the caller's write; its
 * first statements, so the locks are held before anything is read).
 */
export async function recordIn(
  docs: DocsStore<StoreMode>,
  context: RecordContext,
  file: PreparedFile,
): Promise<Recorded> {
  const { options, snapshot } = context;
  const entry = file.entry;
  // Sent together: a write's statements run in the order sent on its connection, so the path's
  // versions are read once the locks are held, without waiting a round trip in between.
  const [, versions] = await Promise.all([
    docs.lockDocumentKeys([entry.path, file.hash]),
    docs.pathVersions(entry.path, file.hash),
  ]);
  const { same: existing, latest: previous } = versions;
  await snapshot.saveIn(docs);
  const keywords = noKeywordChanges();
  const recorded: Pick<Recorded, "keywords" | "pending"> = { keywords };
  if (existing !== undefined) {
    // Its content is stored (the document refers to it): nothing to put, as SQLite's put finds.
    const put = { size: file.size, new_chunks: 0, new_bytes: 0, stored_bytes: 0 };
    await docs.refreshDocument(existing.id, {
      relative_path: entry.relativePath,
      modified_at: file.times.modified,
      session_id: options.session ?? undefined,
    });
    if (existing.is_latest === 0) {
      // An older content of the path is its content again: it becomes the latest version.
      if (previous !== undefined) await docs.inheritCollections(previous.id, existing.id);
      await supersedeIn(docs, entry.path, existing.id, keywords);
      const text = extractText(entry.path, file.prefix).text;
      await indexTextIn(docs, context, { ...existing, text }, false, recorded);
    }
    await decorateIn(docs, options, existing.id, entry.relativePath);
    await snapshot.include(docs, existing);
    return { put, document: reported(existing, "unchanged"), ...recorded };
  }
  const put = await putPreparedIn(docs, file, options.now);
  const { row, extracted } = newDocumentRow({
    put,
    path: entry.path,
    relativePath: entry.relativePath,
    name: entry.name,
    prefix: file.prefix,
    times: file.times,
    snapshotId: snapshot.id,
  }, options);
  const embedsNow = context.embedding.embed !== undefined && extracted.text !== undefined;
  const id = await docs.insertDocument({
    ...row,
    vector_model: embedsNow ? context.embedding.model : null,
  });
  // A path is only ever latest once, so with no latest version there is nothing to supersede.
  if (previous !== undefined) {
    await docs.inheritCollections(previous.id, id);
    await supersedeIn(docs, entry.path, id, keywords);
  }
  await indexTextIn(
    docs,
    context,
    { id, path: entry.path, title: row.title, text: extracted.text },
    embedsNow,
    recorded,
  );
  await decorateIn(docs, options, id, entry.relativePath);
  const document = reported(
    { id, ...row, is_latest: 1, vector_model: null },
    previous === undefined ? "added" : "updated",
  );
  return { put, document, ...recorded };
}

/**
 * A file of an add that skips files unchanged by size and modification time: when the path's
 * latest version matches them, it is recorded unchanged without reading the file (the caller's
 * write); otherwise undefined, and the file is stored as any other.
 */
export async function recordUnchangedByStatIn(
  docs: DocsStore<StoreMode>,
  context: RecordContext,
  entry: { path: string; relativePath: string },
  info: Deno.FileInfo,
  modified: number,
): Promise<Recorded | undefined> {
  await docs.lockDocumentKeys([entry.path]);
  const latest = await docs.latestDocumentForPath(entry.path);
  if (latest === undefined || latest.size !== info.size || latest.modified_at !== modified) {
    return undefined;
  }
  await context.snapshot.saveIn(docs);
  await decorateIn(docs, context.options, latest.id, entry.relativePath);
  await context.snapshot.include(docs, latest);
  return { document: reported(latest, "unchanged"), keywords: noKeywordChanges() };
}
