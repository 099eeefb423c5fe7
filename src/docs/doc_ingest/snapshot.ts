/**
 * The snapshot an add records its documents in: its id (new, or the one asked for), the row
 * written with the add's first write, membership for documents stored before under another
 * snapshot, and the file count once the add is done.
 *
 * @module
 */
import type { DatabaseSync } from "../../store/database.ts";
import type { DocumentRow } from "../../store/docs/documents.ts";
import {
  addSnapshotMember,
  refreshSnapshotCount,
  snapshotExists,
  upsertSnapshot,
} from "../../store/docs/snapshots.ts";
import type { IngestOptions } from "./types.ts";

/** Git facts about the added folder, recorded with the snapshot. */
export interface GitFacts {
  /** Commit checked out. */
  commit: string | null;
  /** Branch checked out. */
  branch: string | null;
  /** The origin's URL. */
  remote: string | null;
}

/** No git facts (a single file, inline content). */
export const NO_GIT: GitFacts = { commit: null, branch: null, remote: null };

/**
 * A new snapshot id: the ISO time with three extra random digits for uniqueness.
 *
 * @example
 * ```ts
 * newSnapshotId(0); // e.g. "1970-01-01T00:00:00.000417Z"
 * ```
 */
export function newSnapshotId(now: number): string {
  const iso = new Date(now).toISOString();
  const extra = Math.floor(Math.random() * 1000).toString().padStart(3, "0");
  return iso.replace("Z", `${extra}Z`);
}

/** The snapshot of one add. */
export class IngestSnapshot {
  #id = "";
  #saved = false;
  #row: Parameters<typeof upsertSnapshot>[1] | undefined;

  constructor(private readonly db: DatabaseSync, private readonly options: IngestOptions) {}

  /** The snapshot's id (empty until {@linkcode IngestSnapshot.open}). */
  get id(): string {
    return this.#id;
  }

  /** Whether its row has been written (by a committed write). */
  get saved(): boolean {
    return this.#saved;
  }

  /**
   * Picks the id (the options' or a new one no snapshot has) and prepares the row, which the
   * add's first write stores.
   */
  open(directory: string | null, git: GitFacts): string {
    let id = this.options.snapshotId ?? newSnapshotId(this.options.now);
    if (this.options.snapshotId === undefined) {
      while (snapshotExists(this.db, id)) id = newSnapshotId(this.options.now);
    }
    this.#id = id;
    this.#row = {
      snapshot_id: id,
      label: this.options.snapshotLabel ?? null,
      created_at: this.options.now,
      directory_path: directory,
      collection: this.options.collection ?? null,
      session_id: this.options.session,
      git_commit: git.commit,
      git_branch: git.branch,
      git_remote: git.remote,
      files_count: 0,
    };
    return id;
  }

  /** Writes the row (inside the caller's transaction). */
  save(): void {
    upsertSnapshot(this.db, this.#row!);
  }

  /** Notes that the transaction that wrote the row committed. */
  markSaved(): void {
    this.#saved = true;
  }

  /** Makes a document stored before, under another snapshot, a member of this one. */
  include(doc: DocumentRow): void {
    if (doc.snapshot_id !== this.#id) addSnapshotMember(this.db, this.#id, doc.id);
  }

  /** Counts the snapshot's files (inside the caller's transaction). */
  refreshCount(): void {
    refreshSnapshotCount(this.db, this.#id);
  }
}
