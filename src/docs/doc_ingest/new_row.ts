/**
 * The row a new document version is stored as, on either engine: its name, extension, MIME
 * type, text flag and title from what text extraction found in its first bytes, its times, and
 * the add's snapshot, session, source URL and person.
 *
 * @module
 */
import { basename, extname } from "node:path";
import type { NewDocument } from "../../store/docs/documents.ts";
import { type ExtractedText, extractText } from "../text_extract.ts";
import type { IngestOptions } from "./types.ts";

/** What the row of a new document is made from. */
export interface NewRowFacts {
  /** The stored content's hash and size. */
  put: { hash: string; size: number };
  /** The path it is stored under. */
  path: string;
  /** Its path below the folder added. */
  relativePath: string;
  /** A given name (inline content), read in place of the path. */
  name?: string;
  /** Its first bytes (at most the indexing budget), for extraction. */
  prefix: Uint8Array;
  /** File creation and modification times, ms. */
  times: { created: number; modified: number };
  /** The snapshot the add records it in. */
  snapshotId: string;
}

/**
 * The new document's row and what extraction found (its text among it).
 *
 * @example
 * ```ts ignore
 * const { row, extracted } = newDocumentRow(facts, options);
 * ```
 */
export function newDocumentRow(
  facts: NewRowFacts,
  options: IngestOptions,
): { row: NewDocument & { person: string | null }; extracted: ExtractedText } {
  const name = basename(facts.name ?? facts.path) || facts.relativePath;
  const extracted = extractText(facts.name ?? facts.path, facts.prefix);
  return {
    extracted,
    row: {
      hash: facts.put.hash,
      path: facts.path,
      relative_path: facts.relativePath,
      name,
      extension: extname(name).toLowerCase(),
      mime: extracted.mime,
      is_text: extracted.isText ? 1 : 0,
      size: facts.put.size,
      title: (extracted.title ?? name).slice(0, 500),
      created_at: facts.times.created,
      modified_at: facts.times.modified,
      indexed_at: options.now,
      snapshot_id: facts.snapshotId,
      session_id: options.session,
      source_url: options.sourceUrl ?? null,
      person: options.person ?? null,
    },
  };
}
