/**
 * Storage statistics in the YAMS `status` shape — documents, bytes, unique
 * blocks and what deduplication saved — with an optional detailed breakdown
 * and per-type counts, and the store's recorded health.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { chunkTotals } from "../store/docs/chunks.ts";
import { currentSession } from "../store/docs/doc_sessions.ts";
import { collectionRows } from "../store/docs/collections.ts";
import { documentTotals, fileTypeCounts } from "../store/docs/document_listing.ts";
import { edgeCount } from "../store/docs/graph.ts";
import { listPackFiles } from "../store/docs/packs.ts";
import { snapshotCount } from "../store/docs/snapshots.ts";
import { vectorCount } from "../store/docs/vectors.ts";
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
  /** Pack files holding larger blocks' bytes beside the database. */
  pack_files: number;
  /** Their size on disk (bytes a failed or crashed write left behind included). */
  pack_bytes: number;
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

/** The recorded health of the store `db` belongs to (always ok for an in-memory store). */
function storeHealth(db: DatabaseSync): HealthSummary {
  const folder = storeFolder(db);
  return summarizeHealth(folder === undefined ? { damage: [] } : readStoreHealth(folder));
}

/** Computes the status report. */
export function storageStatus(
  db: DatabaseSync,
  options: { detailed?: boolean; fileTypes?: boolean },
): StatusReport {
  const docs = documentTotals(db);
  const chunks = chunkTotals(db);
  const deduplicated = Math.max(0, docs.bytes - chunks.raw_bytes);
  const report: StatusReport = {
    total_objects: docs.documents,
    total_bytes: docs.bytes,
    unique_blocks: chunks.chunks,
    deduplicated_bytes: deduplicated,
    dedup_ratio: ratio(deduplicated, docs.bytes),
    damage: storeHealth(db),
  };
  if (options.detailed) {
    const packs = listPackFiles(db);
    report.details = {
      latest_documents: docs.latest_documents,
      text_documents: docs.text_documents,
      binary_documents: docs.binary_documents,
      unique_contents: docs.contents,
      block_bytes: chunks.raw_bytes,
      stored_bytes: chunks.stored_bytes,
      compression_ratio: ratio(chunks.stored_bytes, chunks.raw_bytes),
      pack_files: packs.length,
      pack_bytes: packs.reduce((sum, pack) => sum + pack.bytes, 0),
      collections: collectionRows(db).length,
      snapshots: snapshotCount(db),
      vectors: vectorCount(db),
      graph_edges: edgeCount(db),
      current_session: currentSession(db)?.session_id ?? null,
    };
  }
  if (options.fileTypes) report.file_types = fileTypeCounts(db);
  return report;
}
