/**
 * One add in progress on a database server: each file read, then stored and recorded in a
 * short write of its own (the server's writers interleave, and a long add never holds a path
 * another writer waits for longer than one file takes), what the write did counted once it
 * committed, the keyword index brought up to date after each commit, and the add's end (the
 * snapshot's count, the vectors an embedding service computes).
 *
 * SQLite's add (../doc_ingest/ingest.ts) batches files into longer synchronous transactions
 * and hands work to an index worker; a server's add has neither, as every statement is a round
 * trip and the server indexes on its own cores.
 *
 * @module
 */
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { PendingVectors } from "../doc_index.ts";
import { type FileEntry, isFileProblem, messageOf } from "../doc_ingest/scan.ts";
import type { GitFacts } from "../doc_ingest/snapshot.ts";
import type { IngestOptions, IngestReport, InlineDocument } from "../doc_ingest/types.ts";
import { syncEmbedding } from "../embedding_config.ts";
import { docsOf, type ServerDocs, writeAgainIfStoredMeanwhile } from "./server_docs.ts";
import { preparedBytes, type PreparedFile, prepareFile, timesOf } from "./server_files.ts";
import { applyKeywordChanges } from "./server_index.ts";
import {
  type RecordContext,
  type Recorded,
  recordIn,
  recordUnchangedByStatIn,
} from "./server_record.ts";
import { ServerSnapshot } from "./server_snapshot.ts";
import { embedPendingOnServer } from "./server_vectors.ts";

/** An add in progress on a server. */
export class ServerAdd {
  /** Texts waiting for an embedding service, embedded once the add is stored. */
  #pending: PendingVectors[] = [];
  /** Queue entries whose keyword changes are applied, deleted by the next write. */
  #applied: number[] = [];

  private constructor(
    private readonly server: ServerDocs,
    private readonly context: RecordContext,
    private readonly report: IngestReport,
  ) {}

  /** Starts an add: picks its snapshot (written with its first write). */
  static async open(
    server: ServerDocs,
    options: IngestOptions,
    report: IngestReport,
    directory: string | null,
    git: GitFacts,
  ): Promise<ServerAdd> {
    const snapshot = await ServerSnapshot.open(docsOf(server), options, directory, git);
    report.snapshot_id = snapshot.id;
    const embedding = { model: options.embedder.id, embed: syncEmbedding(options.embedder) };
    return new ServerAdd(server, { options, snapshot, embedding }, report);
  }

  /** Stores one file of a folder (or a single file); one that cannot be read is skipped. */
  async addFile(entry: FileEntry): Promise<void> {
    const options = this.context.options;
    this.report.files_scanned++;
    let info: Deno.FileInfo;
    try {
      info = entry.info ?? await Deno.stat(entry.path);
    } catch (error) {
      this.report.skipped.push({ path: entry.path, reason: messageOf(error) });
      return;
    }
    if (options.skipUnchangedByStat) {
      const modified = timesOf(info, options.now).modified;
      const unchanged = await this.#write((docs) =>
        recordUnchangedByStatIn(docs, this.context, entry, info, modified)
      );
      if (unchanged !== undefined) return await this.#take(unchanged);
    }
    // Reading comes first, so a file that cannot be read is skipped before anything is written;
    // a file that changes while it is stored is skipped with its write rolled back.
    let recorded: Recorded;
    try {
      const prepared = await prepareFile(entry, info, options.now);
      recorded = await this.#record(prepared);
    } catch (error) {
      if (!isFileProblem(error)) throw error;
      this.report.skipped.push({ path: entry.path, reason: messageOf(error) });
      return;
    }
    await this.#take(recorded);
  }

  /** Stores inline content (a `content` + `name` add, or downloaded bytes). */
  async addInline(doc: InlineDocument): Promise<void> {
    this.report.files_scanned++;
    const modified = doc.modified ?? this.context.options.now;
    const entry = { path: doc.path ?? doc.name, relativePath: doc.name, name: doc.name };
    const prepared = preparedBytes(entry, doc.bytes, { created: modified, modified });
    await this.#take(await this.#record(prepared));
  }

  /**
   * Ends the add once everything is stored: the snapshot row (an add that stored nothing still
   * records it) and its file count, then the vectors an embedding service computes. A server
   * keeps no pack files and a failed write leaves no chunks behind, so there is nothing to
   * collect or compact as SQLite's add does.
   */
  async finish(): Promise<void> {
    const snapshot = this.context.snapshot;
    await this.#write(async (docs) => {
      await snapshot.saveIn(docs);
      await docs.refreshSnapshotCount(snapshot.id);
      return true;
    });
    if (this.#pending.length === 0) return;
    const embedder = this.context.options.embedder;
    try {
      await embedPendingOnServer(this.server, embedder, this.#pending);
    } catch (error) {
      this.report.warnings.push(
        `embedding with ${embedder.id} failed (${
          messageOf(error)
        }); searches embed these documents for themselves until the next add or docs.repair stores their vectors`,
      );
    }
    this.#pending = [];
  }

  async #record(file: PreparedFile): Promise<Recorded> {
    return (await this.#write((docs) => recordIn(docs, this.context, file)))!;
  }

  /**
   * Runs `work` as one write that also moves the search generation and deletes the queue
   * entries of keyword changes applied since the last write. A result means the work wrote
   * the snapshot's row (every recording does), so later writes need not.
   */
  async #write<T>(
    work: (docs: DocsStore<StoreMode>) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const applied = this.#applied;
    const result = await writeAgainIfStoredMeanwhile(this.server, async (docs) => {
      // Sent ahead of the work's first statements and answered with them: no round trip of its
      // own. Run again with the write when it is run again (a rolled-back delete deleted nothing).
      const [, out] = await Promise.all([docs.deleteIndexChanges(applied), work(docs)]);
      if (out !== undefined) await docs.bumpCounter("index_generation");
      return out;
    });
    this.#applied = [];
    if (result !== undefined) this.context.snapshot.markSaved();
    return result;
  }

  /** Counts what a committed write recorded, and brings the keyword index up to date. */
  async #take(recorded: Recorded): Promise<void> {
    const report = this.report;
    if (recorded.put !== undefined) {
      report.bytes += recorded.put.size;
      report.new_chunks += recorded.put.new_chunks;
      report.new_bytes += recorded.put.new_bytes;
      report.stored_bytes += recorded.put.stored_bytes;
    }
    const status = recorded.document.status;
    if (status === "added") report.documents_added++;
    else if (status === "updated") report.documents_updated++;
    else report.documents_unchanged++;
    report.documents.push(recorded.document);
    if (recorded.pending !== undefined) this.#pending.push(recorded.pending);
    await applyKeywordChanges(this.server.search, docsOf(this.server), recorded.keywords);
    this.#applied.push(...recorded.keywords.queued);
  }
}
