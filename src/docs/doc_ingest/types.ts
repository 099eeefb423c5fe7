/**
 * The shapes of an add: its options, its report, and inline content to add.
 *
 * @module
 */
import type { Embedder } from "../embedder.ts";

/** How documents are added. */
export interface IngestOptions {
  /** Tags to add to every document. */
  tags?: readonly string[];
  /** Metadata to set on every document. */
  metadata?: Record<string, string>;
  /** Collection to put documents in. */
  collection?: string;
  /** Snapshot id to use (default: a new ISO-timestamp id). */
  snapshotId?: string;
  /** Snapshot label. */
  snapshotLabel?: string;
  /** Session the documents are added in (null: none). */
  session: string | null;
  /** Globs a file's path below the folder must match (default: all). */
  include?: readonly string[];
  /** Globs that exclude files below the folder. */
  exclude?: readonly string[];
  /** Descend into sub-folders (default true). */
  recursive?: boolean;
  /** Folders never to descend into (the data home). */
  skipFolders?: readonly string[];
  /** Skip files whose size and modification time match the stored latest version. */
  skipUnchangedByStat?: boolean;
  /** URL a downloaded document came from. */
  sourceUrl?: string;
  /** Team mode: the person adding them (new versions are theirs); null: the server's owner. */
  person?: string | null;
  /** The embedder. */
  embedder: Embedder;
  /** "Now", ms. */
  now: number;
  /** Stops a long add between batches. */
  signal?: AbortSignal;
}

/** What happened to one document. */
export interface IngestedDocument {
  /** Document id. */
  id: number;
  /** Content hash. */
  hash: string;
  /** Stored path. */
  path: string;
  /** Base name. */
  name: string;
  /** Bytes. */
  size: number;
  /** MIME type. */
  mime: string;
  /** `added` (new path), `updated` (new content for a known path) or `unchanged`. */
  status: "added" | "updated" | "unchanged";
}

/** The outcome of an add. */
export interface IngestReport {
  /** Snapshot the documents were recorded in. */
  snapshot_id: string;
  /** Session they were added in. */
  session_id: string | null;
  /** Files looked at. */
  files_scanned: number;
  /** New paths. */
  documents_added: number;
  /** Known paths with new content. */
  documents_updated: number;
  /** Documents whose content was already stored under the same path. */
  documents_unchanged: number;
  /** Bytes of every document added. */
  bytes: number;
  /** Chunks that were not stored before. */
  new_chunks: number;
  /** Raw bytes of those chunks. */
  new_bytes: number;
  /** Their compressed size. */
  stored_bytes: number;
  /** Each document, in the order processed. */
  documents: IngestedDocument[];
  /** Files that could not be added, with the reason. */
  skipped: Array<{ path: string; reason: string }>;
  /** Problems that did not stop the add (an embedding service that did not answer). */
  warnings: string[];
}

/** Inline content to add. */
export interface InlineDocument {
  /** Name (also used as its path). */
  name: string;
  /** The bytes. */
  bytes: Uint8Array;
  /** Path to store it under (default: the name). */
  path?: string;
  /** Modification time, ms (default now). */
  modified?: number;
}
