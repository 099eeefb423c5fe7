/**
 * What the document engine on a database server works with: the whole store (for its writes)
 * and the server's keyword search over documents. The operations pick this engine when the
 * process serves from a database server (`docsContext(…).serverSearch` is defined); SQLite's
 * engine (../doc_ingest.ts, ../doc_update.ts, ../doc_delete.ts) stays the data home's.
 *
 * @module
 */
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
