/**
 * What the document engine asks of its store: the interface every backend
 * implements (SQLite here; PostgreSQL for team mode), and its SQLite
 * implementation, the functions of this folder bound to a connection.
 *
 * The interface holds the repository reads and writes: documents, their
 * tags, metadata, collections and listings, contents and chunks, snapshots, document
 * sessions, vectors, the code graph, the index queue and the change
 * counters. Left out, as upkeep of SQLite's own files rather than what a
 * store is asked: the chunk pack files (packs.ts), the search index file
 * and its generations, FTS5 matching on it and the index worker
 * (search_index.ts, search_index_apply.ts), the sealed vector files and the
 * rows naming them (vector_files.ts, the sealed part of vectors.ts), the
 * page-by-page verification reads (integrity.ts) and a bulk add's connection
 * settings (state.ts). A server backend keeps chunk bytes in the database
 * and a full-text and vector index beside the documents, and has its own
 * checks.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { type Answer, bindConnection, type StoreMode } from "../repository.ts";
import {
  addChunkReferences,
  chunkExists,
  chunkReferenceCount,
  type ChunkTotals,
  chunkTotals,
  compactChunkPacks,
  contentExists,
  contentManifest,
  contentSize,
  deleteUnreferencedChunks,
  insertChunk,
  insertContent,
  type ManifestEntry,
  readChunk,
  releaseContentIfUnused,
  rewriteChunkBytes,
  type StoredChunk,
} from "./chunks.ts";
import {
  currentSession,
  type DocSessionRow,
  lastServedSuggestions,
  listSessions,
  pinCount,
  pinDocuments,
  recordServedSuggestions,
  sessionById,
  sessionDocumentCount,
  startSession,
  stopSession,
  unpinDocuments,
} from "./doc_sessions.ts";
import {
  addToCollection,
  collectionExists,
  collectionPaths,
  type CollectionRow,
  collectionRows,
  collectionsOf,
  inheritCollections,
  removeFromCollection,
} from "./collections.ts";
import {
  type DocumentFilter,
  type DocumentTotals,
  documentTotals,
  type FileTypeCount,
  fileTypeCounts,
  filteredIds,
  listDocuments,
  type ListQuery,
} from "./document_listing.ts";
import {
  addTags,
  deleteDocumentRow,
  documentById,
  type DocumentPath,
  documentPathsAll,
  type DocumentRow,
  documentsAfter,
  documentsByHashPrefix,
  documentsByIds,
  documentsByName,
  documentsForPaths,
  documentsNeedingVectors,
  insertDocument,
  isLatestDocument,
  latestDocumentForPath,
  metadataOf,
  type NewDocument,
  pathVersions,
  type ReAddFields,
  refreshDocument,
  removeMetadata,
  removeTags,
  setMetadata,
  setVectorModel,
  supersedeOtherVersions,
  tagsOf,
} from "./documents.ts";
import { collectionsOfMany, metadataOfMany, tagsOfMany } from "./labels_of_many.ts";
import {
  definitionsNamed,
  deleteGraph,
  edgeCount,
  edgesOf,
  type GraphEdgeRow,
  type GraphNodeRow,
  insertGraph,
  nodesByKey,
  nodesOfType,
  nodeTypeCounts,
} from "./graph.ts";
import {
  deleteIndexChanges,
  indexChangesQueued,
  leaseIndexChanges,
  queuedIndexChanges,
  queueIndexChange,
} from "./search_index.ts";
import {
  addSnapshotMember,
  deleteEmptySnapshots,
  listSnapshots,
  refreshSnapshotCount,
  snapshotById,
  snapshotCount,
  snapshotExists,
  snapshotMemberIds,
  type SnapshotRow,
  snapshotsByIds,
  upsertSnapshot,
} from "./snapshots.ts";
import { bumpCounter, type DocsCounter, readCounter, readState, writeState } from "./state.ts";
import {
  deleteVectors,
  firstVectors,
  insertVector,
  vectorCount,
  type VectorRow,
  vectorsAfter,
} from "./vectors.ts";

/**
 * The document store. Writes run inside the engine's transaction (see
 * database.ts's `transaction`); each method is the function of the same name
 * in this folder.
 */
export interface DocsStore<M extends StoreMode = "sync"> {
  // Documents ---------------------------------------------------------------------------------

  /** Inserts a document as the latest version of its path; answers its id. */
  insertDocument(doc: NewDocument): Answer<number, M>;
  /** Refreshes a document added again unchanged and makes it its path's latest version. */
  refreshDocument(id: number, fields: ReAddFields): Answer<void, M>;
  /** The version of a path with this content, if stored, and the path's latest version. */
  pathVersions(path: string, hash: string): Answer<{ same?: DocumentRow; latest?: DocumentRow }, M>;
  /** The latest version stored for a path. */
  latestDocumentForPath(path: string): Answer<DocumentRow | undefined, M>;
  /** Marks every other latest version of a path superseded; answers their ids. */
  supersedeOtherVersions(path: string, keepId: number): Answer<number[], M>;
  /** One document by id. */
  documentById(id: number): Answer<DocumentRow | undefined, M>;
  /** Documents with these ids, in no particular order. */
  documentsByIds(ids: readonly number[]): Answer<DocumentRow[], M>;
  /** Documents whose content hash starts with a prefix, newest first. */
  documentsByHashPrefix(
    prefix: string,
    latestOnly: boolean,
    limit?: number,
  ): Answer<DocumentRow[], M>;
  /** Latest documents a name refers to (path, base name or path suffix), newest first. */
  documentsByName(name: string, limit?: number): Answer<DocumentRow[], M>;
  /** Id, path, name and hash of every document (or every latest one). */
  documentPathsAll(latestOnly: boolean): Answer<DocumentPath[], M>;
  /** Every version stored for these paths. */
  documentsForPaths(paths: readonly string[]): Answer<DocumentRow[], M>;
  /** Documents with ids above one, every version, in the order they were stored. */
  documentsAfter(afterId: number, limit: number): Answer<DocumentRow[], M>;
  /** Deletes a document row and what hangs off it. */
  deleteDocumentRow(id: number): Answer<void, M>;
  /** Records which embedding model produced a document's vectors. */
  setVectorModel(id: number, model: string | null): Answer<void, M>;
  /** Whether a document exists and is its path's latest version. */
  isLatestDocument(id: number): Answer<boolean, M>;
  /** Latest text documents whose vectors are missing or from another model (limit < 0: all). */
  documentsNeedingVectors(model: string, limit: number): Answer<DocumentRow[], M>;
  /** Adds tags to a document. */
  addTags(id: number, tags: readonly string[]): Answer<void, M>;
  /** Removes tags from a document. */
  removeTags(id: number, tags: readonly string[]): Answer<void, M>;
  /** A document's tags, sorted. */
  tagsOf(id: number): Answer<string[], M>;
  /** Sets metadata values on a document. */
  setMetadata(id: number, entries: Record<string, string>): Answer<void, M>;
  /** Removes metadata keys from a document. */
  removeMetadata(id: number, keys: readonly string[]): Answer<void, M>;
  /** A document's metadata. */
  metadataOf(id: number): Answer<Record<string, string>, M>;
  /** Each document's tags, sorted (an entry for every id, empty when it has none). */
  tagsOfMany(ids: readonly number[]): Answer<Map<number, string[]>, M>;
  /** Each document's metadata (an entry for every id). */
  metadataOfMany(ids: readonly number[]): Answer<Map<number, Record<string, string>>, M>;
  /** The collections each document is in, sorted (an entry for every id). */
  collectionsOfMany(ids: readonly number[]): Answer<Map<number, string[]>, M>;
  /** Ids of every document a filter selects. */
  filteredIds(filter: DocumentFilter): Answer<number[], M>;
  /** Documents matching a filter, sorted and paged, with the total before paging. */
  listDocuments(query: ListQuery): Answer<{ total: number; rows: DocumentRow[] }, M>;
  /** Document and content totals. */
  documentTotals(): Answer<DocumentTotals, M>;
  /** Latest documents per extension and MIME type. */
  fileTypeCounts(): Answer<FileTypeCount[], M>;

  // Collections -------------------------------------------------------------------------------

  /** Puts a document in a collection at a relative path (or moves it there within it). */
  addToCollection(id: number, collection: string, relativePath: string): Answer<void, M>;
  /** Takes a document out of a collection; answers whether it was in it. */
  removeFromCollection(id: number, collection: string): Answer<boolean, M>;
  /** Gives a new version every collection of the version it replaces. */
  inheritCollections(fromId: number, toId: number): Answer<void, M>;
  /** The collections a document is in, sorted. */
  collectionsOf(id: number): Answer<string[], M>;
  /** Whether any document is in a collection. */
  collectionExists(collection: string): Answer<boolean, M>;
  /** Each document's relative path in a collection, by document id. */
  collectionPaths(collection: string): Answer<Map<number, string>, M>;
  /** Every collection holding a latest document, with its size. */
  collectionRows(): Answer<CollectionRow[], M>;

  // Contents and chunks -----------------------------------------------------------------------

  /** Whether a chunk is stored. */
  chunkExists(hash: string): Answer<boolean, M>;
  /** Stores a new chunk with one reference. */
  insertChunk(hash: string, size: number, data: Uint8Array): Answer<void, M>;
  /** Puts back the bytes of a damaged or lost chunk. */
  rewriteChunkBytes(
    hash: string,
    size: number,
    data: Uint8Array,
    references: () => number,
  ): Answer<void, M>;
  /** How many references a chunk should hold, counted from the chunk lists. */
  chunkReferenceCount(hash: string): Answer<number, M>;
  /** Adds references to a chunk. */
  addChunkReferences(hash: string, delta: number): Answer<void, M>;
  /** One chunk's stored bytes, or undefined when it is not stored. */
  readChunk(hash: string): Answer<StoredChunk | undefined, M>;
  /** Whether a content is stored. */
  contentExists(hash: string): Answer<boolean, M>;
  /** Records a content and its chunk list. */
  insertContent(
    hash: string,
    size: number,
    manifest: readonly ManifestEntry[],
    createdAt: number,
  ): Answer<void, M>;
  /** A content's chunk list. */
  contentManifest(hash: string): Answer<ManifestEntry[], M>;
  /** A content's size. */
  contentSize(hash: string): Answer<number | undefined, M>;
  /** Removes a content no document uses, releasing its chunks; false when one still does. */
  releaseContentIfUnused(hash: string): Answer<boolean, M>;
  /** Deletes every chunk no content references. */
  deleteUnreferencedChunks(): Answer<{ chunks: number; bytes: number }, M>;
  /** One step of reclaiming the space of deleted chunks; true when more remains. */
  compactChunkPacks(budgetBytes: number): Answer<boolean, M>;
  /** Chunk totals. */
  chunkTotals(): Answer<ChunkTotals, M>;

  // Snapshots ---------------------------------------------------------------------------------

  /** Whether a snapshot id is taken. */
  snapshotExists(id: string): Answer<boolean, M>;
  /** Creates a snapshot or refreshes its label and git fields. */
  upsertSnapshot(row: SnapshotRow): Answer<void, M>;
  /** Records that a document belongs to a snapshot. */
  addSnapshotMember(snapshotId: string, documentId: number): Answer<void, M>;
  /** Recounts a snapshot's documents. */
  refreshSnapshotCount(snapshotId: string): Answer<void, M>;
  /** One snapshot. */
  snapshotById(id: string): Answer<SnapshotRow | undefined, M>;
  /** Snapshots, newest first. */
  listSnapshots(limit: number): Answer<SnapshotRow[], M>;
  /** How many snapshots there are. */
  snapshotCount(): Answer<number, M>;
  /** The document ids of a snapshot. */
  snapshotMemberIds(snapshotId: string): Answer<number[], M>;
  /** Some snapshots by id. */
  snapshotsByIds(ids: readonly string[]): Answer<SnapshotRow[], M>;
  /** Deletes snapshots left without documents; answers how many. */
  deleteEmptySnapshots(): Answer<number, M>;

  // Document sessions -------------------------------------------------------------------------

  /** The current document session. */
  currentSession(): Answer<DocSessionRow | undefined, M>;
  /** A document session by name. */
  sessionById(id: string): Answer<DocSessionRow | undefined, M>;
  /** Makes a document session current (creating or reopening it). */
  startSession(
    id: string,
    label: string | null,
    description: string | null,
    now: number,
  ): Answer<void, M>;
  /** Closes a document session. */
  stopSession(id: string, now: number): Answer<void, M>;
  /** Document sessions, newest first. */
  listSessions(limit: number): Answer<DocSessionRow[], M>;
  /** How many latest documents were added in a session. */
  sessionDocumentCount(id: string): Answer<number, M>;
  /** Pins documents to a session; answers how many were new. */
  pinDocuments(sessionId: string, ids: readonly number[], now: number): Answer<number, M>;
  /** Unpins documents; answers how many were pinned. */
  unpinDocuments(sessionId: string, ids: readonly number[]): Answer<number, M>;
  /** How many documents are pinned to a session. */
  pinCount(sessionId: string): Answer<number, M>;
  /** The last suggestion set served for a session and query. */
  lastServedSuggestions(sessionId: string, queryKey: string): Answer<string | undefined, M>;
  /** Records a served suggestion set. */
  recordServedSuggestions(
    sessionId: string,
    queryKey: string,
    served: string,
    now: number,
  ): Answer<void, M>;

  // Vectors and the code graph ----------------------------------------------------------------

  /** Stores one vector of a document. */
  insertVector(documentId: number, seq: number, model: string, vector: Uint8Array): Answer<void, M>;
  /** Removes a document's vectors; answers how many. */
  deleteVectors(documentId: number): Answer<number, M>;
  /** A page of one model's vectors after an id. */
  vectorsAfter(model: string, afterId: number, limit: number): Answer<VectorRow[], M>;
  /** The first vector of every document of one model. */
  firstVectors(model: string): Answer<Array<{ document_id: number; vector: Uint8Array }>, M>;
  /** How many vectors are stored. */
  vectorCount(): Answer<number, M>;
  /** Stores a document's graph nodes and edges. */
  insertGraph(
    documentId: number,
    nodes: ReadonlyArray<Omit<GraphNodeRow, "document_id">>,
    edges: ReadonlyArray<Omit<GraphEdgeRow, "document_id">>,
  ): Answer<void, M>;
  /** Removes a document's graph. */
  deleteGraph(documentId: number): Answer<void, M>;
  /** Edges leaving (or entering) a node. */
  edgesOf(
    key: string,
    reverse: boolean,
    relation: string | undefined,
    limit: number,
  ): Answer<GraphEdgeRow[], M>;
  /** The stored rows of a node key. */
  nodesByKey(key: string): Answer<GraphNodeRow[], M>;
  /** Definitions carrying a name. */
  definitionsNamed(name: string, limit: number): Answer<GraphNodeRow[], M>;
  /** Node types with their node counts. */
  nodeTypeCounts(): Answer<Array<{ type: string; count: number }>, M>;
  /** Distinct nodes of one type. */
  nodesOfType(type: string, limit: number): Answer<GraphNodeRow[], M>;
  /** How many edges there are. */
  edgeCount(): Answer<number, M>;

  // Index queue and counters ------------------------------------------------------------------

  /** Queues a search index change for a document; answers its position. */
  queueIndexChange(documentId: number, op: "add" | "remove"): Answer<number, M>;
  /** Queued changes after a position that have waited long enough, oldest first. */
  queuedIndexChanges(
    limit: number,
    after?: number,
    minAgeMs?: number,
  ): Answer<Array<{ seq: number; op: "add" | "remove"; id: number }>, M>;
  /** Whether any change has waited long enough. */
  indexChangesQueued(minAgeMs?: number): Answer<boolean, M>;
  /**
   * Takes up to `limit` changes that have waited at least `minAgeMs`, oldest first, and
   * restarts their wait so another process catching up leaves them alone meanwhile.
   */
  leaseIndexChanges(
    limit: number,
    minAgeMs: number,
  ): Answer<Array<{ seq: number; op: "add" | "remove"; id: number }>, M>;
  /** Deletes applied changes from the queue; answers how many were still there. */
  deleteIndexChanges(seqs: readonly number[]): Answer<number, M>;
  /** Reads a change counter. */
  readCounter(counter: DocsCounter): Answer<number, M>;
  /** Increments a change counter. */
  bumpCounter(counter: DocsCounter): Answer<void, M>;
  /** Reads a state value. */
  readState(key: string): Answer<string | undefined, M>;
  /** Writes (or removes) a state value. */
  writeState(key: string, value: string | undefined): Answer<void, M>;

  // Writers taking turns ----------------------------------------------------------------------

  /**
   * Holds these keys (the paths and content hashes a write is about to change) until the
   * write ends, so two writes of the same path or content take turns: the second reads what
   * the first committed. Call it first in the write. SQLite has one writer at a time already,
   * so there it does nothing.
   */
  lockDocumentKeys(keys: readonly string[]): Answer<void, M>;
}

const SQLITE_DOCS_FUNCTIONS = {
  insertDocument,
  refreshDocument,
  pathVersions,
  latestDocumentForPath,
  supersedeOtherVersions,
  documentById,
  documentsByIds,
  documentsByHashPrefix,
  documentsByName,
  documentPathsAll,
  documentsForPaths,
  documentsAfter,
  deleteDocumentRow,
  setVectorModel,
  isLatestDocument,
  documentsNeedingVectors,
  addTags,
  removeTags,
  tagsOf,
  setMetadata,
  removeMetadata,
  metadataOf,
  tagsOfMany,
  metadataOfMany,
  collectionsOfMany,
  filteredIds,
  listDocuments,
  documentTotals,
  fileTypeCounts,
  addToCollection,
  removeFromCollection,
  inheritCollections,
  collectionsOf,
  collectionExists,
  collectionPaths,
  collectionRows,
  chunkExists,
  insertChunk,
  rewriteChunkBytes,
  chunkReferenceCount,
  addChunkReferences,
  readChunk,
  contentExists,
  insertContent,
  contentManifest,
  contentSize,
  releaseContentIfUnused,
  deleteUnreferencedChunks,
  compactChunkPacks,
  chunkTotals,
  snapshotExists,
  upsertSnapshot,
  addSnapshotMember,
  refreshSnapshotCount,
  snapshotById,
  listSnapshots,
  snapshotCount,
  snapshotMemberIds,
  snapshotsByIds,
  deleteEmptySnapshots,
  currentSession,
  sessionById,
  startSession,
  stopSession,
  listSessions,
  sessionDocumentCount,
  pinDocuments,
  unpinDocuments,
  pinCount,
  lastServedSuggestions,
  recordServedSuggestions,
  insertVector,
  deleteVectors,
  vectorsAfter,
  firstVectors,
  vectorCount,
  insertGraph,
  deleteGraph,
  edgesOf,
  nodesByKey,
  definitionsNamed,
  nodeTypeCounts,
  nodesOfType,
  edgeCount,
  queueIndexChange,
  queuedIndexChanges,
  indexChangesQueued,
  leaseIndexChanges,
  deleteIndexChanges,
  readCounter,
  bumpCounter,
  readState,
  writeState,
  lockDocumentKeys,
};

/** SQLite's write lock already makes every other writer wait: nothing more to hold. */
function lockDocumentKeys(_db: DatabaseSync, _keys: readonly string[]): void {}

/**
 * The SQLite document store on one connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "../database.ts";
 * import { sqliteDocsStore } from "./docs_store.ts";
 * const docs = sqliteDocsStore(openDatabase(":memory:"));
 * docs.documentTotals().documents; // 0
 * ```
 */
export function sqliteDocsStore(db: DatabaseSync): DocsStore<"sync"> {
  return bindConnection(db, SQLITE_DOCS_FUNCTIONS);
}
