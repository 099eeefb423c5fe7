/**
 * Storage statistics in the YAMS `status` shape — documents, bytes, unique
 * blocks and what deduplication saved — with an optional detailed breakdown
 * and per-type counts, and the store's recorded health.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import { listPackFiles } from "../store/docs/packs.ts";
import type { StoreMode } from "../store/repository.ts";
import {
  type HealthSummary,
  readStoreHealth,
  storeFolder,
  summarizeHealth,
} from "../store/store_health.ts";

/** The detailed breakdown of `status`. */
export interface StatusDetails {
  /** Latest versions of paths. */
  latest_documents: number;
  /** Latest text documents. */
  text_documents: number;
  /** Latest binary documents. */
  binary_documents: number;
  /** Distinct contents (SHA-256). */
  unique_contents: number;
  /** Raw bytes of the unique blocks. */
  block_bytes: number;
  /** Bytes stored after compression. */
  stored_bytes: number;
  /** Stored bytes over raw block bytes. */
  compression_ratio: number;
  /** Pack files holding larger blocks' bytes beside the database (none on a database server). */
  pack_files: number;
  /** Their size on disk (bytes a failed or crashed write left behind included). */
  pack_bytes: number;
  /**
   * A database server only: the stored bytes of every block, all held in its rows (it keeps
   * no pack files). Absent on SQLite.
   */
  database_block_bytes?: number;
  /** Collections. */
  collections: number;
  /** Snapshots. */
  snapshots: number;
  /** Embedding vectors. */
  vectors: number;
  /** Code-graph edges. */
  graph_edges: number;
  /** The current session, if any. */
  current_session: string | null;
}

/** The `status` report. */
export interface StatusReport {
  /** Stored documents (every version). */
  total_objects: number;
  /** Their bytes. */
  total_bytes: number;
  /** Distinct chunks stored. */
  unique_blocks: number;
  /** Bytes not stored again thanks to deduplication. */
  deduplicated_bytes: number;
  /** Deduplicated bytes over total bytes. */
  dedup_ratio: number;
  /**
   * The store's recorded health: `degraded` (with the reasons) while damage
   * found by a verification, or met by any process, is not yet repaired.
   */
  damage: HealthSummary;
  /** With `detailed`. */
  details?: StatusDetails;
  /** With `file_types`. */
  file_types?: Array<{ extension: string; mime: string; count: number; bytes: number }>;
}

function ratio(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10000) / 10000 : 0;
}

/** The health recorded in a folder (always ok without one: an in-memory store). */
function healthIn(folder: string | undefined): HealthSummary {
  return summarizeHealth(folder === undefined ? { damage: [] } : readStoreHealth(folder));
}

/** Where a status report reads what is not in the store's rows. */
export interface StatusSources {
  /**
   * The data home's connection when the store is SQLite's: its pack files, and the health file
   * beside its database, are part of the report.
   */
  sqlite?: DatabaseSync;
  /**
   * The data home of a process serving from a database server: damage its operations met is
   * recorded there (as `/api/health` reads it).
   */
  home?: string;
}

/**
 * Computes the status report from the store of either backend. A database server keeps every
 * block in its rows, so its report has no pack files and gives the bytes its rows hold instead.
 */
export async function storageStatus(
  docs: DocsStore<StoreMode>,
  sources: StatusSources,
  options: { detailed?: boolean; fileTypes?: boolean },
): Promise<StatusReport> {
  const sqlite = sources.sqlite;
  const [totals, chunks] = await Promise.all([docs.documentTotals(), docs.chunkTotals()]);
  const deduplicated = Math.max(0, totals.bytes - chunks.raw_bytes);
  const report: StatusReport = {
    total_objects: totals.documents,
    total_bytes: totals.bytes,
    unique_blocks: chunks.chunks,
    deduplicated_bytes: deduplicated,
    dedup_ratio: ratio(deduplicated, totals.bytes),
    damage: healthIn(sqlite === undefined ? sources.home : storeFolder(sqlite)),
  };
  if (options.detailed) {
    const [collections, snapshots, vectors, edges, session] = await Promise.all([
      docs.collectionRows(),
      docs.snapshotCount(),
      docs.vectorCount(),
      docs.edgeCount(),
      docs.currentSession(),
    ]);
    const packs = sqlite === undefined ? [] : listPackFiles(sqlite);
    report.details = {
      latest_documents: totals.latest_documents,
      text_documents: totals.text_documents,
      binary_documents: totals.binary_documents,
      unique_contents: totals.contents,
      block_bytes: chunks.raw_bytes,
      stored_bytes: chunks.stored_bytes,
      compression_ratio: ratio(chunks.stored_bytes, chunks.raw_bytes),
      pack_files: packs.length,
      pack_bytes: packs.reduce((sum, pack) => sum + pack.bytes, 0),
      ...(sqlite === undefined ? { database_block_bytes: chunks.stored_bytes } : {}),
      collections: collections.length,
      snapshots,
      vectors,
      graph_edges: edges,
      current_session: session?.session_id ?? null,
    };
  }
  if (options.fileTypes) report.file_types = await docs.fileTypeCounts();
  return report;
}
