/**
 * What the document engine on a database server works with: the whole store (for its writes)
 * and the server's keyword search over documents. The operations pick this engine when the
 * process serves from a database server (`docsContext(…).serverSearch` is defined); SQLite's
 * engine (../doc_ingest.ts, ../doc_update.ts, ../doc_delete.ts) stays the data home's.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { Store } from "../../store/store.ts";

/** A database server's document store and keyword search. */
export interface ServerDocs {
  /** The whole store: its `transaction` makes several writes one. */
  readonly store: Store<StoreMode>;
  /** The keyword index beside the documents. */
  readonly search: PgDocsSearch;
}

/** The document store outside any write (each call its own statement). */
export function docsOf(server: ServerDocs): DocsStore<StoreMode> {
  return server.store.docs;
}

/**
 * Runs `work` as one write on the server, handing it the document store bound to that
 * write's connection. The work awaits each answer, which only a server's store allows (a
 * SQLite transaction must never span an `await`), so it is never given SQLite's store. The
 * server may run a write again, whole, after a deadlock: `work` must change nothing outside
 * the store, returning what it found for the caller to take in once the write committed.
 */
export async function writeOn<T>(
  server: ServerDocs,
  work: (docs: DocsStore<StoreMode>) => Promise<T>,
): Promise<T> {
  return await server.store.transaction((inside) => work(inside.docs));
}

/** Times a write is run again after another writer stored the same row first. */
const STORED_MEANWHILE_ATTEMPTS = 4;

/**
 * {@linkcode writeOn} for a write that may insert what a concurrent writer inserts too, a
 * chunk shared by two new contents: the one that commits second fails on the row's unique key
 * (SQLSTATE 23505), and is run again, whole, reading the row the other committed (then it adds
 * a reference to the chunk instead). The locks an add takes keep this to different contents
 * sharing chunks; a duplicate that persists is a real failure, and is thrown.
 */
export async function writeAgainIfStoredMeanwhile<T>(
  server: ServerDocs,
  work: (docs: DocsStore<StoreMode>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await writeOn(server, work);
    } catch (error) {
      if (!storedMeanwhile(error) || attempt >= STORED_MEANWHILE_ATTEMPTS) throw error;
    }
  }
}

/** Whether a write failed on a unique key: another writer stored the same row first. */
function storedMeanwhile(error: unknown): boolean {
  return error instanceof VantageError && error.details?.code === "23505";
}
