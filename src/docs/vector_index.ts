/**
 * Exact (brute-force) cosine search over the stored vectors, without loading
 * them all first. Most vectors sit in sealed column files (see
 * `vector_segments.ts`), laid out one dimension after another; scoring a
 * query walks only its non-zero dimensions (a hashed-embedder query touches a
 * tenth of them), so a new process reads only those columns, and keeps each
 * column it read for the next search. The few vectors stored since the last
 * seal (the tail) are read from the store, dimension-major in memory too.
 *
 * Every process sees the others' writes: the segment list and a removal
 * counter are read at each search. A new segment adds its file; a merge
 * replaces files; a removal makes readers skip the removed vectors in the
 * files that still hold them and read the tail again.
 *
 * Scores and ranking are those of one pass over every vector in id order:
 * each score sums the query's dimensions in the same order, and equal scores
 * rank the older vector first.
 *
 * @module
 */
import { releaseOnClose } from "../store/connection_releases.ts";
import type { DatabaseSync } from "../store/database.ts";
import { readCounter } from "../store/docs/state.ts";
import { SegmentFile, vectorFolder } from "../store/docs/vector_files.ts";
import {
  removedVectorIds,
  type VectorRow,
  vectorsAfter,
  type VectorSegmentRow,
  vectorSegments,
} from "../store/docs/vectors.ts";

/** One document found by vector search. */
export interface VectorHit {
  /** Document id. */
  id: number;
  /** Best cosine similarity among the document's pieces. */
  score: number;
}

const PAGE = 4096;
const INDEXES = new WeakMap<DatabaseSync, Map<string, VectorIndex>>();

/** Vectors held column by column: from a sealed file, or read from the store. */
export interface Columns {
  /** Vectors held. */
  rows: number;
  /** Their ids, ascending. */
  ids: Float64Array;
  /** Their documents. */
  documents: Int32Array;
  /** Removed vectors (1) to skip, or undefined when none is. */
  dead: Uint8Array | undefined;
  /** How many are marked in `dead`. */
  deadCount: number;
  /** The column of dimension `d`. */
  column(d: number): Float32Array;
}

/** A sealed segment whose columns are read from its file as queries need them. */
class FileColumns implements Columns {
  readonly rows: number;
  readonly ids: Float64Array;
  readonly documents: Int32Array;
  dead: Uint8Array | undefined;
  deadCount = 0;
  readonly #file: SegmentFile;
  readonly #columns: Array<Float32Array | undefined>;

  constructor(file: SegmentFile) {
    this.#file = file;
    this.ids = file.ids;
    this.documents = file.documents;
    this.rows = file.ids.length;
    this.#columns = new Array(file.dimensions);
  }

  column(d: number): Float32Array {
    let column = this.#columns[d];
    if (column === undefined) {
      column = this.#file.column(d);
      this.#columns[d] = column;
    }
    return column;
  }

  close(): void {
    this.#file.close();
  }
}

/**
 * Vectors read from the store rows and turned column by column in memory (the tail here; every
 * vector of a server's store in server_search/server_vectors.ts).
 */
export class MemoryColumns implements Columns {
  rows = 0;
  ids = new Float64Array(0);
  documents = new Int32Array(0);
  dead: Uint8Array | undefined = undefined;
  deadCount = 0;
  #columns: Float32Array[] = [];
  #capacity = 0;

  /** Holds vectors of `dimensions` floats. */
  constructor(readonly dimensions: number) {}

  /** The column of dimension `d` (its first `rows` entries are vectors). */
  column(d: number): Float32Array {
    return this.#columns[d];
  }

  /** Appends one vector (one of another length cannot be compared and is left out). */
  append(row: VectorRow): void {
    const vector = floatsOf(row.vector);
    if (vector.length !== this.dimensions) return;
    if (this.rows === this.#capacity) this.#grow();
    const at = this.rows++;
    for (let d = 0; d < vector.length; d++) this.#columns[d][at] = vector[d];
    this.ids[at] = row.id;
    this.documents[at] = row.document_id;
  }

  #grow(): void {
    const capacity = Math.max(1024, Math.ceil(this.#capacity * 1.5));
    const columns: Float32Array[] = [];
    for (let d = 0; d < this.dimensions; d++) {
      const column = new Float32Array(capacity);
      if (this.#columns[d] !== undefined) column.set(this.#columns[d].subarray(0, this.rows));
      columns.push(column);
    }
    const ids = new Float64Array(capacity);
    ids.set(this.ids.subarray(0, this.rows));
    const documents = new Int32Array(capacity);
    documents.set(this.documents.subarray(0, this.rows));
    this.#columns = columns;
    this.ids = ids;
    this.documents = documents;
    this.#capacity = capacity;
  }
}

/** A segment as this process holds it. */
interface HeldSegment {
  row: VectorSegmentRow;
  columns: FileColumns;
}

/** The vectors of one embedding model on one connection, as a search reads them. */
export class VectorIndex {
  /** Embedding model id. */
  readonly model: string;
  #segments: HeldSegment[] = [];
  /** The segment ids the store listed at the last refresh. */
  #listed: number[] = [];
  #removals = -1;
  #tail: MemoryColumns | undefined;
  #tailAfter = 0;
  #dimensions = 0;
  readonly #scorer = new ColumnScorer();
  #damage: string | undefined;

  /** Creates an empty index for `model`. */
  constructor(model: string) {
    this.model = model;
  }

  /** The shared index of `model` on `db`, brought up to date. */
  static for(db: DatabaseSync, model: string): VectorIndex {
    let byModel = INDEXES.get(db);
    if (byModel === undefined) {
      byModel = new Map();
      INDEXES.set(db, byModel);
      // The column files close with the connection, whoever closes it.
      releaseOnClose(db, "vector indexes", () => closeVectorIndexes(db));
    }
    let index = byModel.get(model);
    if (index === undefined) {
      index = new VectorIndex(model);
      byModel.set(model, index);
    }
    index.refresh(db);
    return index;
  }

  /** Vectors searched (removed ones left out). */
  get size(): number {
    let size = this.#tail?.rows ?? 0;
    for (const segment of this.#segments) {
      size += segment.columns.rows - segment.columns.deadCount;
    }
    return size;
  }

  /** Vectors read from the store because no sealed file holds them yet. */
  get tailSize(): number {
    return this.#tail?.rows ?? 0;
  }

  /** Sealed segments searched. */
  get segmentCount(): number {
    return this.#segments.length;
  }

  /**
   * What is wrong with a sealed file, when one is damaged: until the files
   * are sealed again, this index reads every vector from the store.
   */
  get damage(): string | undefined {
    return this.#damage;
  }

  /** Closes its files; the index is empty until the next refresh. */
  close(): void {
    for (const segment of this.#segments) segment.columns.close();
    this.#segments = [];
    this.#listed = [];
    this.#tail = undefined;
    this.#removals = -1;
  }

  /**
   * Brings the index up to date with the store: segments sealed or merged
   * since, removals, and vectors stored since the last seal.
   */
  refresh(db: DatabaseSync): void {
    // A file that vanished was merged into another after the list was read: list again. One
    // still listed after that is lost, which is damage.
    for (let attempt = 0;; attempt++) {
      try {
        this.#refresh(db, attempt >= 3);
        return;
      } catch (error) {
        if (!(error instanceof SegmentGone)) throw error;
      }
    }
  }

  #refresh(db: DatabaseSync, goneIsDamage: boolean): void {
    const rows = vectorSegments(db, this.model);
    const removals = readCounter(db, "vector_removals");
    const changed = rows.length !== this.#listed.length ||
      rows.some((row, i) => row.id !== this.#listed[i]);
    if (changed) {
      this.#damage = undefined;
      try {
        this.#useSegments(db, rows);
      } catch (error) {
        const damage = error instanceof SegmentGone && goneIsDamage
          ? `vector file ${error.message} is missing`
          : error instanceof SegmentDamaged
          ? error.message
          : undefined;
        if (damage === undefined) throw error;
        // Every vector is still in the store: read them all from there, as before files existed.
        this.#damage = damage;
        this.#useSegments(db, []);
      }
      this.#listed = rows.map((row) => row.id);
    }
    const sealed = this.#segments.reduce((top, segment) => Math.max(top, segment.row.last_id), 0);
    if (changed || removals !== this.#removals) {
      this.#markRemoved(db, sealed);
      // The tail may have lost vectors or been sealed: read it again.
      this.#tail = undefined;
      this.#tailAfter = sealed;
      this.#removals = removals;
    }
    while (true) {
      const page = vectorsAfter(db, this.model, this.#tailAfter, PAGE);
      for (const row of page) {
        if (this.#dimensions === 0) this.#dimensions = row.vector.length >> 2;
        this.#tail ??= new MemoryColumns(this.#dimensions);
        this.#tail.append(row);
      }
      if (page.length > 0) this.#tailAfter = page[page.length - 1].id;
      if (page.length < PAGE) break;
    }
  }

  #useSegments(db: DatabaseSync, rows: VectorSegmentRow[]): void {
    const held = new Map(this.#segments.map((segment) => [segment.row.id, segment]));
    const next: HeldSegment[] = [];
    const folder = vectorFolder(db);
    const opened: HeldSegment[] = [];
    try {
      for (const row of rows) {
        const kept = held.get(row.id);
        if (kept !== undefined) {
          next.push(kept);
          continue;
        }
        const segment = { row, columns: openSegment(folder, row) };
        opened.push(segment);
        next.push(segment);
      }
    } catch (error) {
      for (const segment of opened) segment.columns.close();
      throw error;
    }
    const keep = new Set(next);
    for (const segment of this.#segments) if (!keep.has(segment)) segment.columns.close();
    this.#segments = next;
    if (next.length > 0) this.#dimensions = next[0].row.dimensions;
  }

  /** Marks the removed vectors in every segment (ids only ever grow, so a binary search finds them). */
  #markRemoved(db: DatabaseSync, sealed: number): void {
    for (const segment of this.#segments) {
      segment.columns.dead = undefined;
      segment.columns.deadCount = 0;
    }
    if (this.#segments.length === 0) return;
    for (const id of removedVectorIds(db, this.model, sealed)) {
      for (const segment of this.#segments) {
        const columns = segment.columns;
        if (id < segment.row.first_id || id > segment.row.last_id) continue;
        const at = indexOf(columns.ids, columns.rows, id);
        if (at < 0) continue;
        columns.dead ??= new Uint8Array(columns.rows);
        if (columns.dead[at] === 0) columns.deadCount++;
        columns.dead[at] = 1;
      }
    }
  }

  /**
   * The `limit` documents most similar to `query` (a unit vector), each
   * scored by its best piece; `allow` restricts which documents count.
   */
  search(query: Float32Array, limit: number, allow?: (id: number) => boolean): VectorHit[] {
    const parts: Columns[] = this.#segments.map((segment) => segment.columns);
    if (this.#tail !== undefined) parts.push(this.#tail);
    return this.#scorer.rank(parts, this.size, this.#dimensions, query, limit, allow);
  }
}

/**
 * Scores vectors held column by column against a query, keeping its scratch scores between
 * searches. Both backends' vector searches rank with it, so a vector scores the same float on
 * either: each score sums the query's non-zero dimensions in order, in 32-bit floats.
 */
export class ColumnScorer {
  #scores = new Float32Array(0);

  /**
   * The `limit` documents most similar to `query` (a unit vector) among `parts`, which hold
   * `total` live vectors of `dimensions` each, every document scored by its best piece;
   * `allow` restricts which documents count. Equal scores rank the older vector first.
   */
  rank(
    parts: readonly Columns[],
    total: number,
    dimensions: number,
    query: Float32Array,
    limit: number,
    allow?: (id: number) => boolean,
  ): VectorHit[] {
    if (total === 0 || query.length !== dimensions || limit <= 0) return [];
    const dims: number[] = [];
    for (let d = 0; d < query.length; d++) if (query[d] !== 0) dims.push(d);
    // The best pieces in a small sorted buffer (score descending, then vector id ascending);
    // documents are merged afterwards because a document's several pieces may all rank high.
    const keep = Math.min(total, limit * 4 + 16);
    const top = new TopPieces(keep);
    for (const part of parts) {
      const rows = part.rows;
      if (this.#scores.length < rows) this.#scores = new Float32Array(rows);
      const scores = this.#scores;
      scores.fill(0, 0, rows);
      for (const d of dims) addScaled(scores, part.column(d), query[d], rows);
      select(top, scores, part, allow);
    }
    return top.documents(limit);
  }
}

// The two loops every search runs over every vector are small functions of their own: V8
// optimizes a small hot function after a few calls, where a loop inside a large one waits
// longer, and a new process's first search runs them cold.

/** `scores[r] += weight * column[r]` for the first `rows` vectors. */
function addScaled(scores: Float32Array, column: Float32Array, weight: number, rows: number): void {
  for (let r = 0; r < rows; r++) scores[r] += weight * column[r];
}

/** Offers every scored vector of `part` to `top`. */
function select(
  top: TopPieces,
  scores: Float32Array,
  part: Columns,
  allow: ((id: number) => boolean) | undefined,
): void {
  const rows = part.rows;
  const dead = part.dead;
  const documents = part.documents;
  const ids = part.ids;
  let floor = top.floor;
  for (let r = 0; r < rows; r++) {
    const score = scores[r];
    // Orthogonal or opposite vectors share nothing; they are not results.
    if (score <= 0 || score < floor) continue;
    if (score === floor && !top.admits(score, ids[r])) continue;
    if (dead !== undefined && dead[r] === 1) continue;
    if (allow !== undefined && !allow(documents[r])) continue;
    top.add(score, ids[r], documents[r]);
    floor = top.floor;
  }
}

/**
 * Closes the vector files the indexes of `db` hold open (when the connection
 * closes; a later search opens them again).
 */
export function closeVectorIndexes(db: DatabaseSync): void {
  for (const index of INDEXES.get(db)?.values() ?? []) index.close();
  INDEXES.delete(db);
}

/** The best `size` pieces seen, kept sorted by score (descending) and vector id (ascending). */
class TopPieces {
  readonly #scores: Float32Array;
  readonly #ids: Float64Array;
  readonly #documents: Int32Array;
  #count = 0;

  constructor(readonly size: number) {
    this.#scores = new Float32Array(size);
    this.#ids = new Float64Array(size);
    this.#documents = new Int32Array(size);
  }

  /** The score a piece must reach to enter (-Infinity until the buffer is full). */
  get floor(): number {
    return this.#count < this.size ? -Infinity : this.#scores[this.size - 1];
  }

  /** Whether a piece would enter the buffer. */
  admits(score: number, id: number): boolean {
    if (this.#count < this.size) return true;
    const last = this.size - 1;
    const floor = this.#scores[last];
    return score > floor || (score === floor && id < this.#ids[last]);
  }

  add(score: number, id: number, document: number): void {
    let at = Math.min(this.#count, this.size - 1);
    if (this.#count < this.size) this.#count++;
    while (
      at > 0 &&
      (this.#scores[at - 1] < score || (this.#scores[at - 1] === score && this.#ids[at - 1] > id))
    ) {
      this.#scores[at] = this.#scores[at - 1];
      this.#ids[at] = this.#ids[at - 1];
      this.#documents[at] = this.#documents[at - 1];
      at--;
    }
    this.#scores[at] = score;
    this.#ids[at] = id;
    this.#documents[at] = document;
  }

  /** The best `limit` documents, each by its best piece. */
  documents(limit: number): VectorHit[] {
    const best = new Map<number, number>();
    for (let i = 0; i < this.#count; i++) {
      const id = this.#documents[i];
      if (!best.has(id)) best.set(id, this.#scores[i]);
    }
    return [...best].slice(0, limit).map(([id, score]) => ({ id, score }));
  }
}

/** Thrown when a segment's file is gone: a merge replaced it after the list was read. */
class SegmentGone extends Error {}

/** Thrown when a segment's file is damaged: every vector is read from the store instead. */
class SegmentDamaged extends Error {}

function openSegment(folder: string | undefined, row: VectorSegmentRow): FileColumns {
  if (folder === undefined) throw new SegmentDamaged(`no folder for vector file ${row.file}`);
  let file: SegmentFile | undefined;
  try {
    file = SegmentFile.open(folder, row.file, row.rows, row.dimensions);
  } catch (error) {
    throw new SegmentDamaged(error instanceof Error ? error.message : String(error));
  }
  if (file === undefined) throw new SegmentGone(row.file);
  return new FileColumns(file);
}

function indexOf(ids: Float64Array, rows: number, id: number): number {
  let low = 0;
  let high = rows - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = ids[middle];
    if (value === id) return middle;
    if (value < id) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

function floatsOf(bytes: Uint8Array): Float32Array {
  const length = bytes.length >> 2;
  if (bytes.byteOffset % 4 === 0 && isLittleEndian) {
    return new Float32Array(bytes.buffer, bytes.byteOffset, length);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
