/**
 * Finding one document (by hash prefix or by name) and reading it back:
 * its description, its verified bytes, or its text.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { DatabaseSync } from "../store/database.ts";
import type { DocsStore } from "../store/docs/docs_store.ts";
import type { DocumentRow } from "../store/docs/documents.ts";
import type { Answer, StoreMode } from "../store/repository.ts";
import { sqliteStore } from "../store/store.ts";
import { readContent, readContentPrefix } from "./content_store.ts";
import { isHashPrefix, MIN_HASH_PREFIX_LENGTH } from "./content_hash.ts";
import { extractText } from "./text_extract.ts";

/** A document as operations report it. */
export interface DocumentInfo {
  /** Document id. */
  id: number;
  /** SHA-256 of its bytes. */
  hash: string;
  /** Base name. */
  name: string;
  /** Stored path. */
  path: string;
  /** Title. */
  title: string;
  /** MIME type. */
  mime: string;
  /** `text` or `binary`. */
  type: "text" | "binary";
  /** Bytes. */
  size: number;
  /** Creation time (ISO 8601). */
  created: string;
  /** Modification time (ISO 8601). */
  modified: string;
  /** When this version was stored (ISO 8601). */
  indexed: string;
  /** The collections it is in (any number: they are labels). */
  collections: string[];
  /** Snapshot it was first stored in. */
  snapshot_id: string | null;
  /** Session it was added in. */
  session_id: string | null;
  /** URL it was downloaded from. */
  source_url: string | null;
  /** Team mode: the person who added it (absent: the server's owner). */
  person?: string;
  /** False for an older version of its path. */
  latest: boolean;
  /** Tags. */
  tags: string[];
  /** Key/value metadata. */
  metadata: Record<string, string>;
}

/**
 * Describes a document row, with its collections, tags and metadata, read from the store of
 * either backend.
 */
export async function describeDocument(
  docs: DocsStore<StoreMode>,
  row: DocumentRow,
): Promise<DocumentInfo> {
  return (await describeDocuments(docs, [row]))[0];
}

/**
 * Describes document rows, in their order, reading the collections, tags and metadata of all of
 * them at once: three reads for a listing, not three per document.
 */
export async function describeDocuments(
  docs: DocsStore<StoreMode>,
  rows: readonly DocumentRow[],
): Promise<DocumentInfo[]> {
  const ids = rows.map((row) => row.id);
  // Three independent reads: a server answers them side by side.
  const [collections, tags, metadata] = await Promise.all([
    docs.collectionsOfMany(ids),
    docs.tagsOfMany(ids),
    docs.metadataOfMany(ids),
  ]);
  return rows.map((row) =>
    described(row, collections.get(row.id)!, tags.get(row.id)!, metadata.get(row.id)!)
  );
}

/** One document as operations report it, from its row and what hangs off it. */
function described(
  row: DocumentRow,
  collections: string[],
  tags: string[],
  metadata: Record<string, string>,
): DocumentInfo {
  const info: DocumentInfo = {
    id: row.id,
    hash: row.hash,
    name: row.name,
    path: row.path,
    title: row.title,
    mime: row.mime,
    type: row.is_text === 1 ? "text" : "binary",
    size: row.size,
    created: new Date(row.created_at).toISOString(),
    modified: new Date(row.modified_at).toISOString(),
    indexed: new Date(row.indexed_at).toISOString(),
    collections,
    snapshot_id: row.snapshot_id,
    session_id: row.session_id,
    source_url: row.source_url,
    latest: row.is_latest === 1,
    tags,
    metadata,
  };
  if (row.person !== null) info.person = row.person;
  return info;
}

/** How a caller names one document. */
export interface DocumentSelector {
  /** Full hash or a prefix of at least 8 hex characters. */
  hash?: string;
  /** Path, base name, or path suffix. */
  name?: string;
}

/**
 * The document a selector names: by hash prefix (latest version first), or
 * by name (exact path, then newest match). Throws `not_found` or, for a
 * malformed hash, `invalid_arguments`. On SQLite's connection; see
 * {@linkcode resolveDocumentIn} for either backend.
 */
export function resolveDocument(db: DatabaseSync, selector: DocumentSelector): DocumentRow {
  return onlyMatch(findDocuments(db, selector, 1), selector);
}

/** {@linkcode resolveDocument} on the store of either backend. */
export async function resolveDocumentIn(
  docs: DocsStore<StoreMode>,
  selector: DocumentSelector,
): Promise<DocumentRow> {
  return onlyMatch(await documentsNamedBy(docs, selector, 1), selector);
}

/** The first of a selector's matches, or `not_found`. */
function onlyMatch(matches: readonly DocumentRow[], selector: DocumentSelector): DocumentRow {
  if (matches.length === 0) {
    const what = selector.hash !== undefined ? `hash ${selector.hash}` : `name '${selector.name}'`;
    throw new VantageError("not_found", `no stored document matches ${what}`, {
      details: { ...selector },
    });
  }
  return matches[0];
}

/**
 * Every document a selector matches (latest versions for names; any version for hashes), on
 * SQLite's connection; see {@linkcode findDocumentsIn} for either backend.
 */
export function findDocuments(
  db: DatabaseSync,
  selector: DocumentSelector,
  limit = 1000,
): DocumentRow[] {
  return documentsNamedBy(sqliteStore(db).docs, selector, limit);
}

/** {@linkcode findDocuments} on the store of either backend. */
export async function findDocumentsIn(
  docs: DocsStore<StoreMode>,
  selector: DocumentSelector,
  limit = 1000,
): Promise<DocumentRow[]> {
  return await documentsNamedBy(docs, selector, limit);
}

/**
 * Checks a selector and asks the store for its documents: the answer comes as the store gives
 * it, at once on SQLite (so the connection-taking functions above stay synchronous).
 */
function documentsNamedBy<M extends StoreMode>(
  docs: DocsStore<M>,
  selector: DocumentSelector,
  limit: number,
): Answer<DocumentRow[], M> {
  if (selector.hash !== undefined) {
    const hash = selector.hash.trim().toLowerCase();
    if (!isHashPrefix(hash)) {
      throw new VantageError(
        "invalid_arguments",
        `hash '${selector.hash}' is not a content hash or a prefix of at least ${MIN_HASH_PREFIX_LENGTH} hex characters`,
        { details: { hash: selector.hash } },
      );
    }
    return docs.documentsByHashPrefix(hash, false, limit);
  }
  if (selector.name !== undefined && selector.name.trim() !== "") {
    return docs.documentsByName(selector.name.trim(), limit);
  }
  throw new VantageError("invalid_arguments", "provide 'hash' or 'name' to name a document");
}

/** A document's bytes, verified against its hash. */
export function documentBytes(db: DatabaseSync, row: DocumentRow): Uint8Array {
  return readContent(db, row.hash, { path: row.path, id: row.id });
}

/** Bytes read for snippets and grep previews of very large documents. */
export const TEXT_PREVIEW_BYTES = 1024 * 1024;

/**
 * A text document's text (HTML reduced to visible text), from at most
 * `limit` bytes; "" for binaries. Chunks read are verified.
 */
export function documentText(
  db: DatabaseSync,
  row: DocumentRow,
  limit = TEXT_PREVIEW_BYTES,
): string {
  if (row.is_text !== 1) return "";
  const bytes = row.size <= limit
    ? readContent(db, row.hash, { path: row.path, id: row.id })
    : readContentPrefix(db, row.hash, { path: row.path, id: row.id }, limit);
  return extractText(row.path, bytes).text ?? "";
}
