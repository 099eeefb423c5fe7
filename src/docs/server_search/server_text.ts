/**
 * A stored document's text read through the {@linkcode DocsStore} interface (verified, as
 * store_content.ts reads), for the parts of document search that run on a database server:
 * the text its keyword index and its vectors are made from, and the text snippets and grep
 * read. The same cuts and the same extraction as SQLite's doc_index.ts (`storedText`) and
 * doc_read.ts (`documentText`).
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { StoreMode } from "../../store/repository.ts";
import { MAX_INDEXED_BYTES } from "../doc_index.ts";
import { TEXT_PREVIEW_BYTES } from "../doc_read.ts";
import { readContentFrom } from "../store_content.ts";
import { extractText } from "../text_extract.ts";

/**
 * The indexable text of a stored document (its first {@linkcode MAX_INDEXED_BYTES}, extracted
 * as an add extracts it); empty when the document cannot be read intact, as SQLite's
 * `storedText` answers (get and grep report the damage).
 *
 * @example
 * ```ts ignore
 * await indexedTextFrom(store.docs, { id: 7, hash, path: "/notes/a.md" });
 * ```
 */
export async function indexedTextFrom(
  docs: DocsStore<StoreMode>,
  doc: { id: number; hash: string; path: string },
): Promise<string> {
  try {
    const bytes = await readContentFrom(
      docs,
      doc.hash,
      { path: doc.path, id: doc.id },
      MAX_INDEXED_BYTES,
    );
    return extractText(doc.path, bytes).text ?? "";
  } catch {
    return "";
  }
}

/**
 * A text document's text (HTML reduced to visible text) from at most `limit` bytes; "" for
 * binaries. Damage is thrown (a `CorruptContentError` naming the chunk), for the caller to
 * report.
 *
 * @example
 * ```ts ignore
 * const text = await documentTextFrom(store.docs, row);
 * ```
 */
export async function documentTextFrom(
  docs: DocsStore<StoreMode>,
  row: DocumentRow,
  limit = TEXT_PREVIEW_BYTES,
): Promise<string> {
  if (row.is_text !== 1) return "";
  const label = { path: row.path, id: row.id };
  const bytes = await readContentFrom(docs, row.hash, label, row.size <= limit ? Infinity : limit);
  return extractText(row.path, bytes).text ?? "";
}
