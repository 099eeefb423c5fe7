/**
 * Keeping what search reads in step with the documents: index changes a
 * stopped process left queued are applied to the keyword index, and vectors
 * the configured embedder has not stored are stored. This is write work,
 * done by the write paths: every add (within a time budget) and
 * `docs.repair` (to the end). A search never does it; it embeds what is
 * missing for itself (`unstored_vectors.ts`) and says what the keyword index
 * still lacks ({@linkcode abandonedIndexChanges}).
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../store/database.ts";
import { documentsNeedingVectors } from "../store/docs/documents.ts";
import { indexChangesQueued } from "../store/docs/search_index.ts";
import {
  ABANDONED_AFTER_MS,
  catchUpDocsIndexGently,
  embedPending,
  markVectorsComplete,
  storedText,
  storeVectorsSync,
  vectorsComplete,
} from "./doc_index.ts";
import type { Embedder } from "./embedder.ts";
import { syncEmbedding } from "./embedding_config.ts";

/** How long an add spends storing vectors that other adds left missing. */
export const ADD_UPKEEP_BUDGET_MS = 2000;

/** What {@linkcode catchUpSearchData} did. */
export interface UpkeepReport {
  /** Queued changes applied to the keyword index. */
  index_changes_applied: number;
  /** Documents whose vectors were stored. */
  documents_embedded: number;
  /** Whether every latest text document now has vectors from the embedder. */
  vectors_complete: boolean;
}

/**
 * Applies index changes queued at least `minAgeMs` ago (default: those that
 * look abandoned) and stores missing vectors from `embedder` for at most
 * `budgetMs` (default: until none are missing). Must not run inside a store
 * transaction.
 *
 * @example
 * ```ts ignore
 * const report = await catchUpSearchData(db, embedder, { budgetMs: 2000 });
 * report.vectors_complete; // false: the next add or a repair goes on
 * ```
 */
export async function catchUpSearchData(
  db: DatabaseSync,
  embedder: Embedder,
  options: { budgetMs?: number; minAgeMs?: number } = {},
): Promise<UpkeepReport> {
  const applied = await catchUpDocsIndexGently(db, options.minAgeMs ?? ABANDONED_AFTER_MS);
  const vectors = await storeMissingVectors(db, embedder, options.budgetMs ?? Infinity);
  return {
    index_changes_applied: applied,
    documents_embedded: vectors.stored,
    vectors_complete: vectors.complete,
  };
}

/**
 * Stores vectors from `embedder` for latest text documents that have none
 * from it, for at most `budgetMs`, and records in the store once none are
 * missing (so reads stop looking).
 */
export async function storeMissingVectors(
  db: DatabaseSync,
  embedder: Embedder,
  budgetMs: number,
): Promise<{ stored: number; complete: boolean }> {
  if (vectorsComplete(db, embedder.id)) return { stored: 0, complete: true };
  const started = performance.now();
  const sync = syncEmbedding(embedder);
  let stored = 0;
  for (;;) {
    // Each batch is stored before the next is read, so the first rows are always new ones.
    const missing = documentsNeedingVectors(db, embedder.id, 64);
    if (missing.length === 0) {
      transaction(db, () => markVectorsComplete(db, embedder.id));
      return { stored, complete: true };
    }
    if (performance.now() - started >= budgetMs) return { stored, complete: false };
    // A damaged document has no text: its vectors come from its title alone.
    const texts = missing.map((doc) => ({
      id: doc.id,
      title: doc.title,
      text: storedText(db, doc),
    }));
    if (sync !== undefined) {
      transaction(db, () => storeVectorsSync(db, embedder.id, sync, texts));
    } else {
      await embedPending(db, embedder, texts, (work) => transaction(db, work));
    }
    stored += texts.length;
  }
}

/**
 * Whether index changes wait that look abandoned by the process that queued
 * them: the keyword index lacks what they describe until a write applies them.
 */
export function abandonedIndexChanges(db: DatabaseSync): boolean {
  return indexChangesQueued(db, ABANDONED_AFTER_MS);
}
