/**
 * Finding the documents a selector names, through the store's interface: what SQLite's
 * `findDocuments` (../doc_read.ts) answers — every version whose hash starts with a prefix,
 * or the latest versions a name refers to — with the same refusals.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import { isHashPrefix, MIN_HASH_PREFIX_LENGTH } from "../content_hash.ts";
import type { DocumentSelector } from "../doc_read.ts";

/** Every document a selector matches (latest versions for names; any version for hashes). */
export async function findDocumentsIn(
  docs: DocsStore<StoreMode>,
  selector: DocumentSelector,
  limit = 1000,
): Promise<DocumentRow[]> {
  if (selector.hash !== undefined) {
    const hash = selector.hash.trim().toLowerCase();
    if (!isHashPrefix(hash)) {
      throw new VantageError(
        "invalid_arguments",
        `hash '${selector.hash}' is not a content hash or a prefix of at least ${MIN_HASH_PREFIX_LENGTH} hex characters`,
        { details: { hash: selector.hash } },
      );
    }
    return await docs.documentsByHashPrefix(hash, false, limit);
  }
  if (selector.name !== undefined && selector.name.trim() !== "") {
    return await docs.documentsByName(selector.name.trim(), limit);
  }
  throw new VantageError("invalid_arguments", "provide 'hash' or 'name' to name a document");
}
