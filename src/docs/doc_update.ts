/**
 * Changing what is known about stored documents without touching their
 * bytes: tags, key/value metadata (YAMS `key=value` strings or an object)
 * and the collections they are in.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type DatabaseSync, transaction } from "../store/database.ts";
import { addToCollection, removeFromCollection } from "../store/docs/collections.ts";
import {
  addTags,
  type DocumentRow,
  removeMetadata,
  removeTags,
  setMetadata,
} from "../store/docs/documents.ts";
import { bumpCounter } from "../store/docs/state.ts";
import { type DocumentSelector, findDocuments } from "./doc_read.ts";

/** The changes to apply. */
export interface UpdateRequest {
  /** Which documents (every latest match of a name; every version with a hash prefix). */
  selector: DocumentSelector;
  /** Tags to add. */
  tags?: readonly string[];
  /** Tags to remove. */
  removeTags?: readonly string[];
  /** Metadata to set. */
  metadata?: Record<string, string>;
  /** Metadata keys to remove. */
  removeMetadata?: readonly string[];
  /** Collections to put the documents in (each at its current relative path). */
  collections?: readonly string[];
  /** Collections to take them out of (they stay stored; see `docs.delete` to delete). */
  removeCollections?: readonly string[];
  /** Throws for a matched document the caller may not change (nothing is then changed). */
  mayChange?: (row: DocumentRow) => void;
}

/** The outcome of an update. */
export interface UpdateReport {
  /** Documents changed. */
  matched: number;
  /** Them. */
  documents: Array<{ id: number; hash: string; path: string }>;
}

/**
 * Parses metadata given as `key=value` strings (YAMS) or as an object.
 *
 * @example
 * ```ts
 * import { parseMetadata } from "./doc_update.ts";
 * parseMetadata(["status=reviewed", "priority=high"]); // { status: "reviewed", priority: "high" }
 * ```
 */
export function parseMetadata(
  value: readonly string[] | Record<string, unknown>,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(value)) {
    for (const entry of value as readonly string[]) {
      const at = entry.indexOf("=");
      if (at <= 0) {
        throw new VantageError(
          "invalid_arguments",
          `metadata entry '${entry}' must look like key=value`,
          { details: { entry } },
        );
      }
      out[entry.slice(0, at).trim()] = entry.slice(at + 1);
    }
    return out;
  }
  for (const [key, raw] of Object.entries(value)) {
    out[key] = typeof raw === "string" ? raw : JSON.stringify(raw);
  }
  return out;
}

/** Applies an update to every document the selector matches. */
export function updateDocuments(db: DatabaseSync, request: UpdateRequest): UpdateReport {
  const rows = findDocuments(db, request.selector);
  if (rows.length === 0) {
    const what = request.selector.hash ?? request.selector.name;
    throw new VantageError("not_found", `no stored document matches '${what}'`, {
      details: { ...request.selector },
    });
  }
  for (const row of rows) request.mayChange?.(row);
  transaction(db, () => {
    for (const row of rows) {
      if (request.tags !== undefined) addTags(db, row.id, request.tags);
      if (request.removeTags !== undefined) removeTags(db, row.id, request.removeTags);
      if (request.metadata !== undefined) setMetadata(db, row.id, request.metadata);
      if (request.removeMetadata !== undefined) removeMetadata(db, row.id, request.removeMetadata);
      for (const collection of request.collections ?? []) {
        addToCollection(db, row.id, collection, row.relative_path);
      }
      for (const collection of request.removeCollections ?? []) {
        removeFromCollection(db, row.id, collection);
      }
    }
    bumpCounter(db, "index_generation");
  });
  return {
    matched: rows.length,
    documents: rows.map((row) => ({ id: row.id, hash: row.hash, path: row.path })),
  };
}
