/**
 * The shape of a store verification's report — by document, by file, the
 * search index, counts — and what a repair needs beyond it.
 *
 * @module
 */

/** One damaged document. */
export interface DamagedDocument {
  /** Its id. */
  id: number;
  /** Its path. */
  path: string;
  /** Its content hash. */
  hash: string;
  /** Whether it is the newest version of its path. */
  latest: boolean;
  /** What is wrong, one line each. */
  problems: string[];
  /** The files involved (packs, or the store for bytes kept in rows). */
  files: string[];
}

/** What a file is to the store. */
export type FileKind = "store" | "docs_index" | "message_index" | "pack" | "earlier_index";

/** What was found in one file. */
export interface FileReport {
  /** The file. */
  path: string;
  /** What it is. */
  kind: FileKind;
  /**
   * `ok`; `damaged`; `missing`; `short` (a pack ending before its rows say);
   * `unreferenced` (a pack nothing uses: reclaimable, not damage);
   * `left_behind` (an index file of an earlier generation); `unchecked`.
   */
  status: "ok" | "damaged" | "missing" | "short" | "unreferenced" | "left_behind" | "unchecked";
  /** What is wrong, one line each. */
  problems: string[];
  /** Its size, for packs. */
  bytes?: number;
  /** Damaged chunks in it, for packs and the store. */
  chunks_damaged?: number;
}

/** What was found in the document search index. */
export interface IndexReport {
  /** The index file in use (null for an in-memory store, whose index is inside it). */
  file: string | null;
  /** `ok`, `damaged`, `missing`, `incomplete` or `unchecked`. */
  status: "ok" | "damaged" | "missing" | "incomplete" | "unchecked";
  /** Latest text documents (what it should hold). */
  expected: number;
  /** Documents it holds. */
  indexed: number;
  /** Documents with a change still queued (allowed to differ). */
  queued: number;
  /** Latest text documents it lacks. */
  missing: number;
  /** Documents it holds that it should not. */
  extra: number;
  /** The first missing ids. */
  missing_ids: number[];
  /** The first extra ids. */
  extra_ids: number[];
  /** What is wrong, one line each. */
  problems: string[];
}

/** The outcome of a verification. */
export interface VerifyReport {
  /** Nothing damaged (unreferenced packs and left-behind files are not damage). */
  ok: boolean;
  /** Whether chunk bytes were read (false: structure only). */
  chunks_checked: boolean;
  /** How long it took, ms. */
  duration_ms: number;
  /** What was checked. */
  checked: {
    documents: number;
    contents: number;
    chunks: number;
    bytes: number;
    stored_bytes: number;
    pack_files: number;
    files: number;
  };
  /** What was found damaged. */
  damaged: { documents: number; chunks: number; files: number };
  /** SQLite's structural check of the store file. */
  store: { file: string | null; status: FileReport["status"]; problems: string[] };
  /** The document search index. */
  index: IndexReport;
  /** The message search index. */
  message_index: { file: string | null; status: FileReport["status"]; problems: string[] };
  /** The store, index files, and packs with something to say. */
  files: FileReport[];
  /** Damaged documents (the first `maxDocuments`). */
  documents: DamagedDocument[];
  /** Whether more damaged documents were found than listed. */
  documents_truncated: boolean;
  /** Packs nothing uses: their space is reclaimed by the garbage collection. */
  reclaimable: { pack_files: number; bytes: number };
  /** One line per problem (damage only). */
  problems: string[];
  /** Things worth knowing that are not damage. */
  notes: string[];
  /** What to do about the damage found (empty when none). */
  what_to_do: string[];
}

/** A damaged chunk. */
export interface ChunkDamage {
  /** What is wrong with it. */
  problem: string;
  /** Where its bytes are (its pack, or the store). */
  file: string;
  /** Its pack, when it is in one. */
  pack?: number;
}

/** A content with damage. */
export interface ContentDamage {
  /** What is wrong, one line each. */
  problems: string[];
  /** The files involved. */
  files: Set<string>;
  /** Chunks of it that are damaged or not stored. */
  chunks: Set<string>;
  /** The content row itself is not stored. */
  missing: boolean;
}

/** A verification's report and what a repair needs beyond it. */
export interface VerifyFindings {
  /** The report. */
  report: VerifyReport;
  /** Damaged chunks by hash. */
  chunks: Map<string, ChunkDamage>;
  /** Contents with damage by hash (every damaged document's content is here). */
  contents: Map<string, ContentDamage>;
  /** Packs that are missing, short or hold damaged chunks. */
  damagedPacks: Set<number>;
}

/** `1 chunk`, `2 chunks`: counts in report lines. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
