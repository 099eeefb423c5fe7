/**
 * Catching up the keyword index on a database server: applying the changes a write queued
 * (`docs_index_queue`) that nobody applied, because the process that wrote them stopped
 * between its commit and its keyword rows. SQLite's engine does the same for its index file
 * (../doc_index.ts, `catchUpDocsIndex`), with the same wait: a change queued for less than
 * {@linkcode ABANDONED_AFTER_MS} is most likely being applied by its writer at that moment.
 *
 * Any server process may catch up, several at once: each takes a page of changes as a lease
 * (`leaseIndexChanges` restarts their wait, so another process leaves them alone), settles each
 * document's row from what the store holds now rather than from the queued operation (an old
 * "remove" must not take out a document that has since become latest again), and deletes the
 * entries. A process that stops midway leaves its lease to run out and the changes to be taken
 * again; settling a document twice writes the same row.
 *
 * @module
 */
import { ABANDONED_AFTER_MS } from "../doc_index.ts";
import type { ServerDocs } from "./server_docs.ts";
import { type KeywordRows, settleKeywordRow } from "./server_index.ts";

/** Changes taken per lease: small, so a lease runs out long after its page is applied. */
const PAGE = 64;

/**
 * Applies the keyword changes queued for at least `minAgeMs`; answers how many queue entries
 * it applied. Costs one statement when nothing is waiting. Must not run inside a write.
 *
 * @example
 * ```ts ignore
 * await catchUpKeywordIndexOnServer(server); // as an add or a repair starts
 * ```
 */
export async function catchUpKeywordIndexOnServer(
  server: Pick<ServerDocs, "store"> & { search: KeywordRows },
  minAgeMs = ABANDONED_AFTER_MS,
): Promise<number> {
  const docs = server.store.docs;
  let applied = 0;
  for (;;) {
    const page = await docs.leaseIndexChanges(PAGE, minAgeMs);
    if (page.length === 0) return applied;
    // One settle per document, whatever it had queued: the row follows the document's state.
    for (const id of new Set(page.map((change) => change.id))) {
      await settleKeywordRow(server.search, docs, id);
    }
    await docs.deleteIndexChanges(page.map((change) => change.seq));
    applied += page.length;
  }
}
