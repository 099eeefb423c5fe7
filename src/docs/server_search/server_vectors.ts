/**
 * Exact cosine search over the vectors a database server stores (rows of float32 bytes, see
 * store/postgres/docs/graph_and_vectors.ts), for document search on a server's store.
 *
 * A server keeps no vector files, so a process reads one model's vectors through the store's
 * interface into memory, column by column as SQLite's tail is held (vector_index.ts's
 * `MemoryColumns`), and ranks them with the same {@linkcode ColumnScorer}: the scores are the
 * same 32-bit floats SQLite's index computes for the same vectors, and equal scores rank the
 * older vector first there too.
 *
 * What a process holds is kept for its next search, and checked at each one against the
 * store's change counters. A removal bumps `vector_removals`: the vectors are read again
 * whole. Otherwise each search reads what follows the last id held (one query, usually no
 * rows). That alone would not do on a server: ids are handed out when a row is inserted, not
 * when its transaction commits, so a write that commits late can hold a lower id than one
 * already read. So when `index_generation` has moved (a write that changes what search sees
 * bumps it, in the transaction that stores the vectors), the store's count of vectors is
 * compared with those held, and any difference — a vector missed, or another model's
 * vectors, which the count includes — reads them again whole. With one model in use, as
 * usual, an add costs the next search its new vectors and a count, not every vector.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import { ColumnScorer, MemoryColumns, type VectorHit } from "../vector_index.ts";

/** Vectors read from the store per query. */
const PAGE = 4096;

/** Each store's indexes, by model (a store object lives as long as its pool). */
const INDEXES = new WeakMap<object, Map<string, ServerVectorIndex>>();

/** One model's vectors of a server's store, held in this process. */
export class ServerVectorIndex {
  /** Embedding model id. */
  readonly model: string;
  #columns: MemoryColumns | undefined;
  #after = 0;
  #generation = -1;
  #removals = -1;
  readonly #scorer = new ColumnScorer();
  /** The refresh under way, so concurrent searches read the store once, in turn. */
  #pending: Promise<void> = Promise.resolve();

  /** Creates an empty index of `model`. */
  constructor(model: string) {
    this.model = model;
  }

  /** The shared index of `model` on `docs`, brought up to date. */
  static async for(docs: DocsStore<StoreMode>, model: string): Promise<ServerVectorIndex> {
    let byModel = INDEXES.get(docs);
    if (byModel === undefined) {
      byModel = new Map();
      INDEXES.set(docs, byModel);
    }
    let index = byModel.get(model);
    if (index === undefined) {
      index = new ServerVectorIndex(model);
      byModel.set(model, index);
    }
    await index.refresh(docs);
    return index;
  }

  /** Vectors held. */
  get size(): number {
    return this.#columns?.rows ?? 0;
  }

  /** Brings the held vectors up to date with the store. */
  refresh(docs: DocsStore<StoreMode>): Promise<void> {
    // Chained, so two searches never append the same page twice; after a failed refresh the
    // next one reads every vector again rather than trusting a half-read state.
    const next = this.#pending.then(() => this.#refresh(docs));
    this.#pending = next.catch(() => {
      this.#generation = -1;
      this.#removals = -1;
    });
    return next;
  }

  async #refresh(docs: DocsStore<StoreMode>): Promise<void> {
    const generation = await docs.readCounter("index_generation");
    const removals = await docs.readCounter("vector_removals");
    if (removals !== this.#removals) this.#clear();
    await this.#readAfter(docs);
    if (generation !== this.#generation && this.#after > 0) {
      if (await docs.vectorCount() !== this.size) {
        this.#clear();
        await this.#readAfter(docs);
      }
    }
    this.#generation = generation;
    this.#removals = removals;
  }

  /** Forgets every vector held. */
  #clear(): void {
    this.#columns = undefined;
    this.#after = 0;
  }

  /** Reads the vectors after the last one held. */
  async #readAfter(docs: DocsStore<StoreMode>): Promise<void> {
    while (true) {
      const page = await docs.vectorsAfter(this.model, this.#after, PAGE);
      for (const row of page) {
        // The first vector fixes the length compared, as SQLite's index does.
        this.#columns ??= new MemoryColumns(row.vector.length >> 2);
        this.#columns.append(row);
      }
      if (page.length > 0) this.#after = page[page.length - 1].id;
      if (page.length < PAGE) break;
    }
  }

  /**
   * The `limit` documents most similar to `query` (a unit vector), each scored by its best
   * piece; `allow` restricts which documents count.
   */
  search(query: Float32Array, limit: number, allow?: (id: number) => boolean): VectorHit[] {
    const columns = this.#columns;
    if (columns === undefined) return [];
    return this.#scorer.rank([columns], columns.rows, columns.dimensions, query, limit, allow);
  }
}
