/**
 * Applying changes to the document search index (see search_index.ts):
 * the fuzzy vocabulary, and writing a batch of changes. The main thread runs this, and so does the index worker of a
 * large add (src/docs/doc_index_worker.ts); that is why it lives apart and
 * imports no Node built-in but `node:sqlite`: a worker loads every module
 * its module imports when it starts, and what search_index.ts needs besides
 * (`node:path`, database.ts and its `node:fs`) would make it start tens of
 * milliseconds later (see src/core/module_worker.ts).
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { RowReader, textColumn } from "../rows.ts";
import { prepared } from "../statements.ts";
import { DOCS_INDEX_SCHEMA } from "./schema.ts";

/** Characters of a document scanned for fuzzy-vocabulary words. */
export const MAX_VOCABULARY_CHARS = 4 * 1024;

/** One change to the index: a document's text added, or a document removed. */
export interface IndexChange {
  /** Its position in the store's queue. */
  seq: number;
  /** `add` (re)indexes the document; `remove` takes it out. */
  op: "add" | "remove";
  /** Document id. */
  id: number;
  /** Title (adds). */
  title?: string;
  /** Path (adds). */
  path?: string;
  /** Text, already limited to the indexing budget (adds). */
  text?: string;
}

/**
 * Opens an index file on a connection of its own, for the index worker of a
 * large add: the store's process has made the file (see `openDocsIndex` in
 * search_index.ts) before it starts the worker. Bulk indexing gets a 64 MiB page
 * cache.
 */
export function openDocsIndexFile(path: string): DatabaseSync {
  const index = new DatabaseSync(path, { timeout: 5000 });
  try {
    index.exec("PRAGMA journal_mode = WAL");
    index.exec("PRAGMA synchronous = NORMAL");
    index.exec("PRAGMA cache_size = -65536");
    index.exec(DOCS_INDEX_SCHEMA);
    return index;
  } catch (error) {
    index.close();
    throw error;
  }
}

const TERMS_THROUGH = new RowReader<{ value: string }>("index state", { value: "text" });
const LAST_TERM = new RowReader<{ id: number }>("vocabulary", { id: "number" });

/**
 * Applies changes in order to an index connection (inside the caller's
 * index transaction): a document's row is replaced or removed, new words go
 * to the vocabulary (`known` holds the words already there), and the
 * trigram index is brought up to date in one bulk statement.
 */
export function applyIndexChanges(
  index: DatabaseSync,
  changes: readonly IndexChange[],
  known: KnownWords,
  vocabularyChars: number,
): void {
  const remove = prepared(index, "DELETE FROM docs_fts WHERE rowid = ?");
  const insert = prepared(
    index,
    "INSERT INTO docs_fts (rowid, title, path, body) VALUES (?, ?, ?, ?)",
  );
  // The vocabulary is scanned for the whole batch before any row is inserted: FTS5's large
  // term buffer would otherwise push the vocabulary out of the CPU caches between documents.
  const fresh: string[] = [];
  for (const change of changes) {
    if (change.op !== "add") continue;
    const text = (change.text ?? "").slice(0, vocabularyChars);
    known.collect(`${change.title ?? ""} ${change.path ?? ""} ${text}`, fresh);
  }
  for (const change of changes) {
    // A contentless table accepts a second row under the same rowid, so every add replaces.
    remove.run(change.id);
    if (change.op !== "add") continue;
    insert.run(change.id, change.title ?? "", change.path ?? "", change.text ?? "");
  }
  if (fresh.length > 0) {
    // One statement for the batch's new words, in the order they were met.
    prepared(
      index,
      "INSERT OR IGNORE INTO docs_terms (term) SELECT value FROM json_each(?) ORDER BY key",
    ).run(JSON.stringify(fresh));
  }
  const state = TERMS_THROUGH.optional(
    prepared(index, "SELECT value FROM docs_index_state WHERE key = 'terms_indexed_through'").get(),
  );
  const through = Number(state?.value ?? "0");
  const last = LAST_TERM.one(
    prepared(index, "SELECT coalesce(max(id), 0) AS id FROM docs_terms").get(),
  ).id;
  if (last > through) {
    prepared(
      index,
      "INSERT INTO docs_terms_fts (rowid, term) SELECT id, term FROM docs_terms WHERE id > ? AND id <= ?",
    ).run(through, last);
    prepared(
      index,
      `INSERT INTO docs_index_state (key, value) VALUES ('terms_indexed_through', ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ).run(String(last));
  }
}

/**
 * The words of an index's fuzzy vocabulary, and the scan that finds a text's
 * new ones. Vocabulary words are lowercase, 3–32 characters, without digits
 * (numbers, hashes and numbered identifiers are not what people misspell, and
 * they would swamp the vocabulary). Letters, digits and `_` make words; any
 * non-ASCII character counts as a letter.
 *
 * This scan runs over every stored text, so ASCII words (nearly all) are
 * hashed as they are read and looked up without being cut out of the text:
 * only a word not seen before becomes a string (a `Set<string>` would make a
 * string of every word and hash it again). With the batch scanned before its
 * rows are indexed, the vocabulary of the 198 MB benchmark tree went from
 * 0.8 s of the worker's time to 0.2 s.
 *
 * @example
 * ```ts
 * import { KnownWords } from "./search_index_apply.ts";
 * const known = new KnownWords(["the"]);
 * const fresh: string[] = [];
 * known.collect("Parse the HTTP2 request, parse it", fresh);
 * fresh; // ["parse", "request"]
 * ```
 */
export class KnownWords {
  /** Per slot: the word's index in `#words` plus one; 0 marks an empty slot. */
  #slots = new Int32Array(1 << 12);
  /** Per slot: the word's hash, compared before any characters are. */
  #hashes = new Int32Array(1 << 12);
  #words: string[] = [];

  /** A vocabulary holding `words` (lowercase, as stored). */
  constructor(words: Iterable<string> = []) {
    for (const word of words) this.add(word);
  }

  /** Words held. */
  get size(): number {
    return this.#words.length;
  }

  /** Whether `word` (lowercase) is held. */
  has(word: string): boolean {
    return this.#find(KnownWords.hash(word), word) >= 0;
  }

  /** Adds a lowercase word; false when it was already held. */
  add(word: string): boolean {
    const hash = KnownWords.hash(word);
    if (this.#find(hash, word) >= 0) return false;
    this.#insert(hash, word);
    return true;
  }

  /** FNV-1a over the word's UTF-16 code units. */
  static hash(word: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
    return hash;
  }

  /**
   * Finds the vocabulary words of `text` not held yet: each is added and
   * appended to `fresh`, in the order met.
   */
  collect(text: string, fresh: string[]): void {
    let start = -1;
    let digit = false;
    let other = false;
    let hash = 0x811c9dc5;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 32;
      if (c >= 97 && c <= 122) {
        if (start < 0) {
          start = i;
          digit = false;
          other = false;
          hash = 0x811c9dc5;
        }
        hash = Math.imul(hash ^ c, 0x01000193);
        continue;
      }
      const isDigit = c >= 48 && c <= 57;
      const isUpper = c >= 65 && c <= 90;
      const isOther = c > 127 && c !== 0xa0 && !(c >= 0x2000 && c <= 0x206f) && c !== 0x3000;
      if (isDigit || isUpper || isOther || c === 95) {
        if (start < 0) {
          start = i;
          digit = false;
          other = false;
          hash = 0x811c9dc5;
        }
        if (isDigit) digit = true;
        else if (isOther) other = true;
        // ASCII capitals are hashed as the lowercase letter the stored word has.
        hash = Math.imul(hash ^ (isUpper ? c + 32 : c), 0x01000193);
      } else if (start >= 0) {
        const length = i - start;
        if (length >= 3 && length <= 32 && !digit) {
          if (other) {
            // Non-ASCII may have a lowercase form of another length: the string decides.
            const word = text.slice(start, i).toLowerCase();
            if (this.add(word)) fresh.push(word);
          } else if (this.#findIn(hash, text, start, i) < 0) {
            const word = text.slice(start, i).toLowerCase();
            this.#insert(hash, word);
            fresh.push(word);
          }
        }
        start = -1;
      }
    }
  }

  #find(hash: number, word: string): number {
    const mask = this.#slots.length - 1;
    for (let slot = KnownWords.#mix(hash) & mask;; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot];
      if (entry === 0) return -1;
      if (this.#hashes[slot] === hash && this.#words[entry - 1] === word) return slot;
    }
  }

  /** Like `#find`, for the ASCII word `text[start, end)` compared as lowercase. */
  #findIn(hash: number, text: string, start: number, end: number): number {
    const mask = this.#slots.length - 1;
    for (let slot = KnownWords.#mix(hash) & mask;; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot];
      if (entry === 0) return -1;
      if (this.#hashes[slot] !== hash) continue;
      const word = this.#words[entry - 1];
      if (word.length !== end - start) continue;
      let same = true;
      for (let k = 0; k < word.length; k++) {
        const c = text.charCodeAt(start + k);
        if ((c >= 65 && c <= 90 ? c + 32 : c) !== word.charCodeAt(k)) {
          same = false;
          break;
        }
      }
      if (same) return slot;
    }
  }

  #insert(hash: number, word: string): void {
    this.#words.push(word);
    if (this.#words.length * 2 > this.#slots.length) {
      this.#rehash(this.#slots.length * 2);
      return;
    }
    this.#place(hash, this.#words.length);
  }

  #place(hash: number, entry: number): void {
    const mask = this.#slots.length - 1;
    let slot = KnownWords.#mix(hash) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = entry;
    this.#hashes[slot] = hash;
  }

  #rehash(capacity: number): void {
    this.#slots = new Int32Array(capacity);
    this.#hashes = new Int32Array(capacity);
    for (let i = 0; i < this.#words.length; i++) {
      this.#place(KnownWords.hash(this.#words[i]), i + 1);
    }
  }

  /** FNV leaves low bits poorly mixed; slots come from the low bits. */
  static #mix(hash: number): number {
    const h = Math.imul(hash ^ (hash >>> 16), 0x7feb352d);
    return Math.imul(h ^ (h >>> 15), 0x846ca68b) ^ (h >>> 16);
  }
}

/** Every word in the fuzzy vocabulary of an index. */
export function allTerms(index: DatabaseSync): string[] {
  return textColumn(prepared(index, "SELECT term FROM docs_terms").all(), "term");
}

/**
 * Applies changes in one immediate transaction of an index connection of
 * its own, as the index worker does; rolled back (unless SQLite already
 * did) when anything fails, and the failure thrown. The main thread runs
 * {@linkcode applyIndexChanges} inside database.ts's `transaction` instead,
 * which on a connection like this one (no writer lock, no participants)
 * does the same, but costs a worker its start-up time to import.
 */
export function applyIndexBatch(
  index: DatabaseSync,
  changes: readonly IndexChange[],
  known: KnownWords,
  vocabularyChars: number = MAX_VOCABULARY_CHARS,
): void {
  index.exec("BEGIN IMMEDIATE");
  try {
    applyIndexChanges(index, changes, known, vocabularyChars);
    index.exec("COMMIT");
  } catch (error) {
    if (index.isTransaction) {
      try {
        index.exec("ROLLBACK");
      } catch {
        // The error that made the rollback necessary is the one to report.
      }
    }
    throw error;
  }
}
