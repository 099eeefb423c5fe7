/**
 * A stored document's bytes, verified, from whichever backend the process serves from: on
 * SQLite streamed chunk by chunk from the data home's packs (content_store.ts, which also
 * names a damaged chunk's pack and records the damage as the store's health), on a database
 * server read through the store interface (store_content.ts).
 *
 * @module
 */
import type { DocsContext } from "./ops/shared.ts";
import { type ContentLabel, readContentPieces } from "./content_store.ts";
import { readContentFrom } from "./store_content.ts";

/**
 * The verified bytes of the content `hash`, as pieces to write in order. A SQLite store's
 * pieces are read as they are taken, so a damaged chunk throws while they are written; a
 * server's are read here, so it throws here.
 *
 * @example
 * ```ts ignore
 * writeConfined(target, await storedPieces(docs, row.hash, { path: row.path, id: row.id }));
 * ```
 */
export async function storedPieces(
  docs: Pick<DocsContext, "db" | "store" | "serverSearch">,
  hash: string,
  label: ContentLabel,
): Promise<Iterable<Uint8Array>> {
  if (docs.serverSearch === undefined) return readContentPieces(docs.db, hash, label);
  return [await readContentFrom(docs.store, hash, label)];
}
