/**
 * The snapshot an add on a database server records its documents in: SQLite's
 * (../doc_ingest/snapshot.ts) over the store's interface — the id (the one asked for, or a new
 * one no snapshot has), the row written with the add's first write, membership for documents
 * stored before under another snapshot, and the file count once the add is done.
 *
 * @module
 */
import type { DocumentRow } from "../../store/docs/documents.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { SnapshotRow } from "../../store/docs/snapshots.ts";
import type { StoreMode } from "../../store/repository.ts";
import { type GitFacts, newSnapshotId } from "../doc_ingest/snapshot.ts";
import type { IngestOptions } from "../doc_ingest/types.ts";

/** The snapshot of one add on a server. */
export class ServerSnapshot {
  readonly #row: SnapshotRow;
  #saved = false;

  private constructor(row: SnapshotRow) {
    this.#row = row;
  }

  /**
   * Picks the id (the options' or a new one no snapshot has) and prepares the row, which the
   * add's first write stores.
   */
  static async open(
    docs: DocsStore<StoreMode>,
    options: IngestOptions,
    directory: string | null,
    git: GitFacts,
  ): Promise<ServerSnapshot> {
    let id = options.snapshotId ?? newSnapshotId(options.now);
    if (options.snapshotId === undefined) {
      while (await docs.snapshotExists(id)) id = newSnapshotId(options.now);
    }
    return new ServerSnapshot({
      snapshot_id: id,
      label: options.snapshotLabel ?? null,
      created_at: options.now,
      directory_path: directory,
      collection: options.collection ?? null,
      session_id: options.session,
      git_commit: git.commit,
      git_branch: git.branch,
      git_remote: git.remote,
      files_count: 0,
    });
  }

  /** The snapshot's id. */
  get id(): string {
    return this.#row.snapshot_id;
  }

  /**
   * Writes the row unless a committed write already did (inside the caller's write); the
   * caller marks it saved once that write commits.
   */
  async saveIn(docs: DocsStore<StoreMode>): Promise<void> {
    if (!this.#saved) await docs.upsertSnapshot(this.#row);
  }

  /** Notes that a write that saved the row committed. */
  markSaved(): void {
    this.#saved = true;
  }

  /** Makes a document stored before, under another snapshot, a member of this one. */
  async include(docs: DocsStore<StoreMode>, doc: DocumentRow): Promise<void> {
    if (doc.snapshot_id !== this.id) await docs.addSnapshotMember(this.id, doc.id);
  }
}
