/**
 * Keeping the sealed vector files in shape, so a new process's first search
 * reads a few columns of a few files instead of every vector (see
 * `vector_index.ts` for the reading side, the store's `docs/vector_files.ts`
 * for the files).
 *
 * - **Seal**: vectors stored since a model's last seal (the tail, read from
 *   the store by every new searcher) become a new file once there are
 *   {@linkcode SEAL_MIN_ROWS} of them, at most {@linkcode SEAL_MAX_ROWS} per
 *   file.
 * - **Merge**: files are grouped in tiers by size (each tier 4 times the one
 *   below); four files of one tier are merged into one of the next, so a
 *   search reads from a handful of files (at most three per tier) and each
 *   vector is rewritten once per tier it climbs. A file with a quarter of its vectors removed is written again
 *   without them.
 * - **Repair**: a damaged file makes every file of the model go; the vectors
 *   are all still in the store and are sealed again.
 *
 * Files are written outside the store's writer lock; each step then commits
 * in one short transaction that first checks nobody else did the same step
 * meanwhile (two processes maintaining at once waste a file, never lose a
 * vector). Runs after every add and vector backfill, and from a search that
 * found a large tail.
 *
 * @module
 */
import { type DatabaseSync, transaction } from "../store/database.ts";
import {
  removeSegmentFile,
  SegmentFile,
  sweepSegmentFiles,
  vectorFolder,
  writeSegmentFile,
} from "../store/docs/vector_files.ts";
import {
  deleteVectorSegments,
  forgetRemovedVectors,
  insertVectorSegment,
  largestVectorId,
  removedVectorIds,
  removedVectorIdsBetween,
  sealedThrough,
  vectorsAfter,
  vectorSegmentFiles,
  type VectorSegmentRow,
  vectorSegments,
} from "../store/docs/vectors.ts";

/** Tail vectors that make a file of their own (a first search reads fewer than this from the store). */
export const SEAL_MIN_ROWS = 1024;

/** Most vectors sealed into one new file: bounds the memory a seal takes (25 MB at 384 dimensions). */
export const SEAL_MAX_ROWS = 16_384;

/** Files of one tier merged into one of the next. */
const MERGE_FANIN = 4;

/** A file with this share of its vectors removed is written again without them. */
const REWRITE_REMOVED_SHARE = 0.25;

/** Files no segment names are removed once this old: a writer may be about to name a newer one. */
const ORPHAN_AGE_MS = 10 * 60_000;

/** What one maintenance pass did. */
export interface VectorMaintenance {
  /** Files written from the tail. */
  sealed: number;
  /** Files written by merging or rewriting others. */
  merged: number;
  /** Whether damaged files made every file of the model go. */
  rebuilt: boolean;
  /** Leftover files removed. */
  swept: number;
}

/**
 * Seals, merges and repairs the vector files of `model`. Nothing to do for a
 * store without a file. Must not be called inside a transaction on `db`.
 *
 * @example
 * ```ts ignore
 * await maintainVectorIndex(db, "hashed-v1-384");
 * ```
 */
export async function maintainVectorIndex(
  db: DatabaseSync,
  model: string,
): Promise<VectorMaintenance> {
  const done: VectorMaintenance = { sealed: 0, merged: 0, rebuilt: false, swept: 0 };
  const folder = vectorFolder(db);
  if (folder === undefined) return done;
  done.rebuilt = dropIfDamaged(db, folder, model);
  while (sealTail(db, folder, model)) {
    done.sealed++;
    await pause();
  }
  for (let sources = planMerge(db, folder, model); sources !== undefined;) {
    if (!mergeSegments(db, folder, model, sources)) break;
    done.merged++;
    await pause();
    sources = planMerge(db, folder, model);
  }
  done.swept = sweepSegmentFiles(folder, vectorSegmentFiles(db), ORPHAN_AGE_MS);
  return done;
}

const SOON = new WeakMap<DatabaseSync, Promise<void>>();

/**
 * Runs {@linkcode maintainVectorIndex} once the current work has answered
 * (at most one at a time per connection). Failures are dropped: the vectors
 * stay in the store, and the next add or search tries again.
 */
export function maintainVectorIndexSoon(db: DatabaseSync, model: string): void {
  if (SOON.has(db)) return;
  const run = (async () => {
    await pause();
    try {
      await maintainVectorIndex(db, model);
    } catch {
      // The connection closed meanwhile, or the disk refused a file: a later pass seals.
    } finally {
      SOON.delete(db);
    }
  })();
  SOON.set(db, run);
}

/** Waits for the maintenance {@linkcode maintainVectorIndexSoon} started on `db`, if any. */
export async function vectorMaintenanceSettled(db: DatabaseSync): Promise<void> {
  await SOON.get(db);
}

/** Lets other work (a server's requests) run between two steps. */
function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Seals up to {@linkcode SEAL_MAX_ROWS} tail vectors into a new file, when
 * there are at least {@linkcode SEAL_MIN_ROWS}; returns whether it did.
 */
function sealTail(db: DatabaseSync, folder: string, model: string): boolean {
  const sealed = sealedThrough(db, model);
  // Ids only grow, so the tail holds at most this many: a small add reads nothing back.
  if (largestVectorId(db) - sealed < SEAL_MIN_ROWS) return false;
  const rows = vectorsAfter(db, model, sealed, SEAL_MAX_ROWS);
  if (rows.length < SEAL_MIN_ROWS) return false;
  const dimensions = rows[0].vector.length >> 2;
  // A vector of another length cannot be compared with the others; searches never counted it.
  const kept = rows.filter((row) => row.vector.length === dimensions * 4);
  const count = kept.length;
  const ids = new Float64Array(count);
  const documents = new Int32Array(count);
  const columns = new Float32Array(count * dimensions);
  for (let r = 0; r < count; r++) {
    const row = kept[r];
    ids[r] = row.id;
    documents[r] = row.document_id;
    const view = new DataView(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength);
    for (let d = 0; d < dimensions; d++) columns[d * count + r] = view.getFloat32(d * 4, true);
  }
  const file = writeSegmentFile(folder, {
    ids,
    documents,
    dimensions,
    column: (d) => columns.subarray(d * count, (d + 1) * count),
  });
  const lastId = rows[rows.length - 1].id;
  let committed = false;
  try {
    committed = transaction(db, () => {
      // Someone sealed these vectors first: theirs stands.
      if (sealedThrough(db, model) !== sealed) return false;
      insertVectorSegment(db, {
        model,
        file,
        rows: count,
        dimensions,
        first_id: rows[0].id,
        last_id: lastId,
        created_at: Date.now(),
      });
      // Removals in the sealed range of vectors gone before they were read here concern no
      // file; those removed since are in this one and stay marked.
      const inFile = new Set(ids);
      forgetRemovedVectors(
        db,
        removedVectorIdsBetween(db, model, sealed + 1, lastId).filter((id) => !inFile.has(id)),
      );
      return true;
    });
  } finally {
    if (!committed) removeSegmentFile(folder, file);
  }
  return committed;
}

/** A segment with its file open and its removed vectors counted. */
interface OpenSegment {
  row: VectorSegmentRow;
  file: SegmentFile;
  removed: Set<number>;
}

function tierOf(rows: number): number {
  let tier = 0;
  for (let size = SEAL_MIN_ROWS * MERGE_FANIN; rows >= size; size *= MERGE_FANIN) tier++;
  return tier;
}

/**
 * The segments to merge next: a tier holding {@linkcode MERGE_FANIN} files
 * (the lowest such tier), or else one file with enough of its vectors
 * removed (or all of them); undefined when nothing needs it. Only files that
 * may hold removed vectors, and the chosen ones, are opened.
 */
function planMerge(db: DatabaseSync, folder: string, model: string): OpenSegment[] | undefined {
  const rows = vectorSegments(db, model);
  if (rows.length === 0) return undefined;
  const sealed = rows.reduce((top, row) => Math.max(top, row.last_id), 0);
  const removed = removedVectorIds(db, model, sealed);
  const open = new Map<number, OpenSegment>();
  const removedIn = (row: VectorSegmentRow): number => {
    if (!hasBetween(removed, row.first_id, row.last_id)) return 0;
    return openSegment(folder, row, removed, open)?.removed.size ?? 0;
  };
  const byTier = new Map<number, VectorSegmentRow[]>();
  let rewrite: VectorSegmentRow | undefined;
  for (const row of rows) {
    const gone = removedIn(row);
    const live = row.rows - gone;
    if (rewrite === undefined && (live === 0 || gone >= row.rows * REWRITE_REMOVED_SHARE)) {
      rewrite = row;
    }
    const tier = tierOf(live);
    byTier.set(tier, [...(byTier.get(tier) ?? []), row]);
  }
  const tiers = [...byTier.keys()].sort((a, b) => a - b);
  const full = tiers.find((tier) => byTier.get(tier)!.length >= MERGE_FANIN);
  const chosen = full !== undefined
    ? byTier.get(full)!
    : rewrite !== undefined
    ? [rewrite]
    : undefined;
  const sources = chosen?.map((row) => openSegment(folder, row, removed, open));
  for (const [id, segment] of open) {
    if (!chosen?.some((row) => row.id === id)) segment.file.close();
  }
  if (sources === undefined) return undefined;
  if (sources.some((segment) => segment === undefined)) {
    // A file vanished (merged by another process) or is damaged: the next pass sees the outcome.
    for (const segment of sources) segment?.file.close();
    return undefined;
  }
  return sources as OpenSegment[];
}

/** A segment's file opened (once) with its removed vectors; undefined when gone or damaged. */
function openSegment(
  folder: string,
  row: VectorSegmentRow,
  removed: readonly number[],
  open: Map<number, OpenSegment>,
): OpenSegment | undefined {
  const already = open.get(row.id);
  if (already !== undefined) return already;
  let file: SegmentFile | undefined;
  try {
    file = SegmentFile.open(folder, row.file, row.rows, row.dimensions);
  } catch {
    return undefined;
  }
  if (file === undefined) return undefined;
  const ids = new Set<number>();
  for (const id of removed) {
    if (id >= row.first_id && id <= row.last_id && contains(file.ids, id)) ids.add(id);
  }
  const segment = { row, file, removed: ids };
  open.set(row.id, segment);
  return segment;
}

/** Whether the ascending `ids` hold one from `first` to `last`. */
function hasBetween(ids: readonly number[], first: number, last: number): boolean {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] < first) low = middle + 1;
    else high = middle;
  }
  return low < ids.length && ids[low] <= last;
}

/**
 * Merges `sources` into one file without their removed vectors (none at all
 * when every one was removed); returns whether it committed. Closes the
 * sources' files.
 */
function mergeSegments(
  db: DatabaseSync,
  folder: string,
  model: string,
  sources: OpenSegment[],
): boolean {
  let file: string | undefined;
  let committed = false;
  try {
    // The vectors kept, in id order across the sources (each source is in id order).
    const order: Array<{ source: number; row: number; id: number }> = [];
    for (const [source, segment] of sources.entries()) {
      const ids = segment.file.ids;
      for (let row = 0; row < ids.length; row++) {
        if (!segment.removed.has(ids[row])) order.push({ source, row, id: ids[row] });
      }
    }
    order.sort((a, b) => a.id - b.id);
    const count = order.length;
    const dimensions = sources[0].row.dimensions;
    if (count > 0) {
      const ids = new Float64Array(count);
      const documents = new Int32Array(count);
      for (let p = 0; p < count; p++) {
        ids[p] = order[p].id;
        documents[p] = sources[order[p].source].file.documents[order[p].row];
      }
      const out = new Float32Array(count);
      file = writeSegmentFile(folder, {
        ids,
        documents,
        dimensions,
        column: (d) => {
          const columns = sources.map((segment) => segment.file.column(d));
          for (let p = 0; p < count; p++) out[p] = columns[order[p].source][order[p].row];
          return out;
        },
      });
    }
    const first = count > 0 ? order[0].id : 0;
    const last = count > 0 ? order[count - 1].id : 0;
    committed = transaction(db, () => {
      // Another process merged or dropped one of them first: its result stands.
      const listed = new Set(vectorSegments(db, model).map((row) => row.id));
      if (!sources.every((segment) => listed.has(segment.row.id))) return false;
      deleteVectorSegments(db, sources.map((segment) => segment.row.id));
      if (file !== undefined) {
        insertVectorSegment(db, {
          model,
          file,
          rows: count,
          dimensions,
          first_id: first,
          last_id: last,
          created_at: Date.now(),
        });
      }
      // The vectors left out are in no file any more.
      forgetRemovedVectors(db, sources.flatMap((segment) => [...segment.removed]));
      return true;
    });
  } finally {
    for (const segment of sources) segment.file.close();
    if (!committed && file !== undefined) removeSegmentFile(folder, file);
  }
  if (committed) {
    for (const segment of sources) removeSegmentFile(folder, segment.row.file);
  }
  return committed;
}

/**
 * Drops every segment of the model when one's file is damaged or lost (its
 * vectors are all still in the store, and the next seals write them again);
 * returns whether it did.
 */
function dropIfDamaged(db: DatabaseSync, folder: string, model: string): boolean {
  const rows = vectorSegments(db, model);
  const bad = rows.filter((row) => {
    try {
      const file = SegmentFile.open(folder, row.file, row.rows, row.dimensions);
      file?.close();
      return file === undefined;
    } catch {
      return true;
    }
  });
  if (bad.length === 0) return false;
  // A file that vanished may have been merged by another process meanwhile: only rows still
  // listed with their file missing or damaged count.
  const dropped = transaction(db, () => {
    const listed = new Set(vectorSegments(db, model).map((row) => row.id));
    if (!bad.some((row) => listed.has(row.id))) return [];
    const all = vectorSegments(db, model);
    deleteVectorSegments(db, all.map((row) => row.id));
    const sealed = all.reduce((top, row) => Math.max(top, row.last_id), 0);
    forgetRemovedVectors(db, removedVectorIds(db, model, sealed));
    return all;
  });
  for (const row of dropped) removeSegmentFile(folder, row.file);
  return dropped.length > 0;
}

function contains(ids: Float64Array, id: number): boolean {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (ids[middle] === id) return true;
    if (ids[middle] < id) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
