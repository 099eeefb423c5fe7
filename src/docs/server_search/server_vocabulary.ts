/**
 * The words of a database server's keyword index, held by the process for fuzzy search
 * (server_fuzzy.ts) with a trigram map to find the words close to a query word: what SQLite's
 * index file keeps as a table with a trigram index, which a server's store does not.
 *
 * Reading the words of every document is one pass over the whole index, too slow to repeat
 * after each add on a large store. So the process remembers which documents it has read, and
 * when the store's `index_generation` counter moves (every write that changes what search sees
 * bumps it) it lists the ids the index holds and reads only the documents new to it — by id
 * set, not "after the last id", since a server hands out ids before commit and a write can
 * commit after a later one. The words of a document since removed stay until more than a
 * quarter of the documents read are gone, when the words are read again whole: a stale word
 * can only widen a query to a word that finds nothing more.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";

/** Each server search's vocabulary (a search object lives as long as its pool). */
const HELD = new WeakMap<object, ServerVocabulary>();

/** The unpadded trigrams of a word (none under three letters). */
function innerTrigrams(word: string): Set<string> {
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= word.length; i++) grams.add(word.slice(i, i + 3));
  return grams;
}

/** The index's words as this process holds them. */
export class ServerVocabulary {
  readonly #words = new Set<string>();
  readonly #byTrigram = new Map<string, string[]>();
  /** Documents whose words were read. */
  #read = new Set<number>();
  #generation = -1;
  /** The refresh under way, so concurrent searches read the store once, in turn. */
  #pending: Promise<void> = Promise.resolve();

  /** The vocabulary of `search`'s index, brought up to date with `store`'s generation. */
  static async for(store: DocsStore<StoreMode>, search: PgDocsSearch): Promise<ServerVocabulary> {
    let vocabulary = HELD.get(search);
    if (vocabulary === undefined) {
      vocabulary = new ServerVocabulary();
      HELD.set(search, vocabulary);
    }
    await vocabulary.refresh(store, search);
    return vocabulary;
  }

  /** Distinct words held. */
  get size(): number {
    return this.#words.size;
  }

  /** Documents whose words are held. */
  get documents(): number {
    return this.#read.size;
  }

  /** Reads the words of documents indexed since the last refresh (all, the first time). */
  refresh(store: DocsStore<StoreMode>, search: PgDocsSearch): Promise<void> {
    const next = this.#pending.then(() => this.#refresh(store, search));
    // A failed refresh is not remembered as done: the next search tries again.
    this.#pending = next.catch(() => {
      this.#generation = -1;
    });
    return next;
  }

  async #refresh(store: DocsStore<StoreMode>, search: PgDocsSearch): Promise<void> {
    const generation = await store.readCounter("index_generation");
    if (generation === this.#generation) return;
    const ids = await search.indexedDocumentIds();
    const indexed = new Set(ids);
    let gone = 0;
    for (const id of this.#read) if (!indexed.has(id)) gone++;
    if (this.#read.size === 0 || gone * 4 > this.#read.size) {
      this.#words.clear();
      this.#byTrigram.clear();
      this.#add(await search.searchVocabulary());
    } else {
      const fresh = ids.filter((id) => !this.#read.has(id));
      if (fresh.length > 0) this.#add(await search.searchVocabulary(fresh));
    }
    this.#read = indexed;
    this.#generation = generation;
  }

  #add(words: readonly string[]): void {
    for (const word of words) {
      if (this.#words.has(word)) continue;
      this.#words.add(word);
      for (const gram of innerTrigrams(word)) {
        let list = this.#byTrigram.get(gram);
        if (list === undefined) {
          list = [];
          this.#byTrigram.set(gram, list);
        }
        list.push(word);
      }
    }
  }

  /** Words sharing any unpadded trigram with `word`. */
  candidates(word: string): Set<string> {
    const found = new Set<string>();
    for (const gram of innerTrigrams(word)) {
      for (const candidate of this.#byTrigram.get(gram) ?? []) found.add(candidate);
    }
    return found;
  }
}
