/**
 * The message search index: a worker that indexes new messages in the
 * background (message_index_worker.ts), and the reads that use it.
 * Indexing off the main thread keeps hooks answered while a large backfill
 * runs, and uses the second core.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { VantageError } from "../../core/errors.ts";
import { startModuleWorker } from "../../core/module_worker.ts";
import { makeFilesPrivate, sqliteFiles } from "../../core/private_files.ts";
import { storeFailure } from "../database.ts";
import { numberColumn, RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { MESSAGE, type MessageRow } from "./messages.ts";
import { MESSAGE_INDEX_SCHEMA, messageIndexPath } from "./schema.ts";
import type { MessageIndexReply, MessageIndexRequest } from "./message_index_worker.ts";

/** Opens (creating when needed) the index file of a store, for searching. */
export function openMessageIndex(storePath: string): DatabaseSync {
  const path = messageIndexPath(storePath);
  const db = new DatabaseSync(path, { timeout: 5000 });
  makeFilesPrivate(...sqliteFiles(path));
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(MESSAGE_INDEX_SCHEMA);
  } catch (error) {
    db.close();
    throw storeFailure(error, "could not open the message search index", path);
  }
  return db;
}

const INDEX_CURSOR = new RowReader<{ value: number }>("message index cursor", {
  value: "number",
});

/** The highest message id the index covers. */
export function indexedTo(index: DatabaseSync): number {
  return INDEX_CURSOR.optional(
    prepared(index, "SELECT value FROM index_state WHERE key = 'indexed_to'").get(),
  )?.value ?? 0;
}

/** Keeps a store's message index up to date from a worker. */
export class MessageIndexer {
  #worker: Worker;
  #inFlight = false;
  #again = false;
  #indexedTo = 0;
  /** The highest message id stored when the worker was last asked for a backlog. */
  #askedTo = 0;
  #waiters: Array<{ target: number; resolve: () => void; reject: (error: Error) => void }> = [];
  #maxId: () => number;
  #onError: (message: string) => void;

  private constructor(worker: Worker, maxId: () => number, onError: (message: string) => void) {
    this.#worker = worker;
    this.#maxId = maxId;
    this.#onError = onError;
  }

  /**
   * Starts the worker for the store at `storePath`; `maxId` reads the
   * store's highest message id (so {@link caughtUp} knows what to wait for).
   */
  static async start(
    storePath: string,
    maxId: () => number,
    onError: (message: string) => void = () => {},
  ): Promise<MessageIndexer> {
    const worker = startModuleWorker(
      new URL("./message_index_worker.ts", import.meta.url),
      "message index",
    );
    const indexer = new MessageIndexer(worker, maxId, onError);
    // A worker that could not open the index (a damaged file) must not outlive the failure.
    await new Promise<void>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<MessageIndexReply>) => {
        if (event.data.type === "opened") {
          // The worker may have made the file: it is as private as the store.
          makeFilesPrivate(...sqliteFiles(messageIndexPath(storePath)));
          resolve();
        } else if (event.data.type === "error") {
          reject(new VantageError("unavailable", `message index: ${event.data.message}`));
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        reject(new VantageError("unavailable", `message index worker failed: ${event.message}`));
      };
      post(worker, { type: "open", storePath, indexPath: messageIndexPath(storePath) });
    }).catch((error) => {
      worker.terminate();
      throw error;
    });
    worker.onmessage = (event: MessageEvent<MessageIndexReply>) => indexer.#receive(event.data);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      indexer.#fail(`message index worker failed: ${event.message}`);
    };
    return indexer;
  }

  /**
   * Asks the worker to index whatever is new; bursts of kicks coalesce. With `backlog`, only
   * once at least that many messages wait: a backfill commits a transaction per small file, and
   * a kick for each made the worker write (and later merge) an index segment per file. Such a
   * kick does not wait for the worker's answer to the one before: a backfill reads its files
   * synchronously, so its thread takes no message until it is done, and the worker would wait
   * with it.
   */
  kick(backlog = 1): void {
    if (backlog > 1) {
      const stored = this.#maxId();
      if (stored - Math.max(this.#indexedTo, this.#askedTo) < backlog) return;
      this.#askedTo = stored;
      post(this.#worker, { type: "kick" });
      return;
    }
    if (this.#inFlight) {
      this.#again = true;
      return;
    }
    this.#inFlight = true;
    post(this.#worker, { type: "kick" });
  }

  /** Resolves once every message stored so far is indexed. */
  caughtUp(): Promise<void> {
    const target = this.#maxId();
    if (this.#indexedTo >= target) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) =>
      this.#waiters.push({ target, resolve, reject })
    );
    this.kick();
    return done;
  }

  /** Stops the worker. */
  close(): void {
    this.#worker.terminate();
    this.#fail("the message index was closed");
  }

  #receive(message: MessageIndexReply): void {
    this.#inFlight = false;
    if (message.type === "error") {
      this.#onError(message.message);
      this.#fail(`message index: ${message.message}`);
      return;
    }
    if (message.type === "indexed") this.#indexedTo = Math.max(this.#indexedTo, message.to);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (waiter.target > this.#indexedTo) return true;
      waiter.resolve();
      return false;
    });
    if (this.#again || this.#waiters.length > 0) {
      this.#again = false;
      this.kick();
    }
  }

  #fail(message: string): void {
    for (const waiter of this.#waiters) waiter.reject(new VantageError("unavailable", message));
    this.#waiters = [];
  }
}

/** Posts a request the worker understands. */
function post(worker: Worker, request: MessageIndexRequest): void {
  worker.postMessage(request);
}

/**
 * Messages matching an FTS5 query, newest first, within `sessionIds` (all
 * sessions when null) and at or after `since`. The index is walked newest
 * first in chunks and each chunk is filtered in the store, so the work is
 * bounded by `cap` hits or `walkCap` index entries however common the words.
 */
export function searchMessagesByTerms(
  store: DatabaseSync,
  index: DatabaseSync,
  ftsQuery: string,
  sessionIds: readonly string[] | null,
  since: number,
  cap: number,
  walkCap = 100_000,
): MessageRow[] {
  if (sessionIds !== null && sessionIds.length === 0) return [];
  const page = prepared(
    index,
    "SELECT rowid AS id FROM messages_fts WHERE messages_fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?",
  );
  const scope = sessionIds === null ? "" : "AND session_id IN (SELECT value FROM json_each(?))";
  const fetch = prepared(
    store,
    `SELECT ${MESSAGE.columns} FROM messages WHERE id IN (SELECT value FROM json_each(?)) AND ts >= ? ${scope}
     ORDER BY id DESC`,
  );
  const scopeJson = sessionIds === null ? undefined : JSON.stringify(sessionIds);
  const hits: MessageRow[] = [];
  let before = Number.MAX_SAFE_INTEGER;
  let walked = 0;
  let chunk = 256;
  while (hits.length < cap && walked < walkCap) {
    let ids: number[];
    try {
      ids = numberColumn(page.all(ftsQuery, before, chunk), "id");
    } catch (error) {
      throw storeFailure(error, "searching messages", index.location() ?? undefined);
    }
    if (ids.length === 0) break;
    walked += ids.length;
    before = ids[ids.length - 1];
    const params: Array<string | number> = [JSON.stringify(ids), since];
    if (scopeJson !== undefined) params.push(scopeJson);
    for (const row of MESSAGE.all(fetch.all(...params))) {
      hits.push(row);
      if (hits.length === cap) break;
    }
    if (ids.length < chunk) break;
    // Widen the chunk while the scope filters most hits out.
    chunk = Math.min(chunk * 4, 8192);
  }
  return hits;
}

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** How many indexed messages contain an FTS5 query (for benchmarks and stats). */
export function countMatches(index: DatabaseSync, ftsQuery: string): number {
  return COUNT.one(
    prepared(index, "SELECT count(*) AS n FROM messages_fts WHERE messages_fts MATCH ?").get(
      ftsQuery,
    ),
  ).n;
}
