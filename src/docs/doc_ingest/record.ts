/**
 * Recording one document: a file's bytes stored (or found unchanged by size and time), the
 * document row written, older versions of the path superseded (their collections carried over
 * to the new latest version), tags, metadata, collection and snapshot membership set, and the text indexed and embedded here or queued for the worker (or for an
 * embedding service once the add is stored).
 *
 * @module
 */
import { newDocumentRow } from "./new_row.ts";
import { type DatabaseSync, transaction } from "../../store/database.ts";
import { addToCollection, inheritCollections } from "../../store/docs/collections.ts";
import {
  addTags,
  type DocumentRow,
  insertDocument,
  latestDocumentForPath,
  pathVersions,
  refreshDocument,
  setMetadata,
  setVectorModel,
  supersedeOtherVersions,
} from "../../store/docs/documents.ts";
import {
  MAX_IN_MEMORY_BYTES,
  putContent,
  putFileContent,
  type PutResult,
} from "../content_store.ts";
import {
  embeddingPieces,
  embedPending,
  indexDocument,
  markVectorsIncomplete,
  MAX_INDEXED_BYTES,
  type PendingVectors,
  unindexDocument,
} from "../doc_index.ts";
import { extractText } from "../text_extract.ts";
import type { WorkerHandOff } from "./handoff.ts";
import { type FileEntry, isFileProblem, messageOf, readPrefix } from "./scan.ts";
import type { IngestSnapshot } from "./snapshot.ts";
import type { IngestedDocument, IngestOptions, IngestReport } from "./types.ts";

/** Records the documents of one add. */
export class DocumentRecorder {
  /** Milliseconds this thread spent embedding since the caller last set it to 0. */
  embeddingMs = 0;
  /** Documents waiting for an embedding service, embedded once the add is stored. */
  #pending: PendingVectors[] = [];
  #timedEmbed: ((text: string) => Float32Array) | undefined;
  #markedIncomplete = false;

  constructor(
    private readonly db: DatabaseSync,
    private readonly options: IngestOptions,
    private readonly report: IngestReport,
    private readonly snapshot: IngestSnapshot,
    private readonly handoff: WorkerHandOff,
    private readonly embed: ((text: string) => Float32Array) | undefined,
  ) {
    // Embedding here is timed on its own: it is the one part of this thread's work the worker
    // could have done, so the estimates leave it out of this thread's own costs.
    this.#timedEmbed = embed === undefined ? undefined : (text: string) => {
      const started = performance.now();
      const vector = embed(text);
      this.embeddingMs += performance.now() - started;
      return vector;
    };
  }

  /** Stores one file of a folder add and records it (inside the caller's transaction). */
  addFile(file: FileEntry): void {
    this.report.files_scanned++;
    let info: Deno.FileInfo;
    try {
      info = file.info ?? Deno.statSync(file.path);
    } catch (error) {
      this.report.skipped.push({ path: file.path, reason: messageOf(error) });
      return;
    }
    const times = {
      created: info.birthtime?.getTime() ?? info.mtime?.getTime() ?? this.options.now,
      modified: info.mtime?.getTime() ?? this.options.now,
    };
    if (this.options.skipUnchangedByStat) {
      const latest = latestDocumentForPath(this.db, file.path);
      if (
        latest !== undefined && latest.size === info.size && latest.modified_at === times.modified
      ) {
        this.#decorate(latest.id, file.relativePath);
        this.snapshot.include(latest);
        this.#note(latest, "unchanged");
        return;
      }
    }
    // Reading comes first, so a file that cannot be read is skipped before anything is written.
    // (No savepoint per file: FTS5 flushes its pending index at every savepoint.)
    try {
      if (info.size > MAX_IN_MEMORY_BYTES) {
        const prefix = readPrefix(file.path, MAX_INDEXED_BYTES);
        this.record(file, putFileContent(this.db, file.path, this.options.now), prefix, times);
      } else {
        const bytes = Deno.readFileSync(file.path);
        this.record(file, putContent(this.db, bytes, this.options.now), bytes, times);
      }
    } catch (error) {
      if (!isFileProblem(error)) throw error;
      this.report.skipped.push({ path: file.path, reason: messageOf(error) });
    }
  }

  /** Records one stored content as a document at `file.path`. */
  record(
    file: FileEntry,
    put: PutResult,
    bytes: Uint8Array,
    times: { created: number; modified: number },
  ): void {
    const db = this.db;
    const options = this.options;
    this.report.bytes += put.size;
    this.report.new_chunks += put.new_chunks;
    this.report.new_bytes += put.new_bytes;
    this.report.stored_bytes += put.stored_bytes;
    const { same: existing, latest: previous } = pathVersions(db, file.path, put.hash);
    if (existing !== undefined) {
      refreshDocument(db, existing.id, {
        relative_path: file.relativePath,
        modified_at: times.modified,
        session_id: options.session ?? undefined,
      });
      if (existing.is_latest === 0) {
        if (previous !== undefined) inheritCollections(db, previous.id, existing.id);
        for (const old of supersedeOtherVersions(db, file.path, existing.id)) this.#unindex(old);
        this.#index(existing.id, file.path, existing.title, bytes);
      }
      this.#decorate(existing.id, file.relativePath);
      this.snapshot.include(existing);
      this.#note(existing, "unchanged");
      return;
    }
    const prefix = bytes.length > MAX_INDEXED_BYTES ? bytes.subarray(0, MAX_INDEXED_BYTES) : bytes;
    const { row, extracted } = newDocumentRow({
      put,
      path: file.path,
      relativePath: file.relativePath,
      name: file.name,
      prefix,
      times,
      snapshotId: this.snapshot.id,
    }, options);
    const here = extracted.text !== undefined && this.handoff.embedsHere(extracted.text.length);
    const embedsNow = this.embed !== undefined && here;
    const id = insertDocument(db, { ...row, vector_model: embedsNow ? options.embedder.id : null });
    // A path is only ever latest once, so with no latest version there is nothing to supersede.
    if (previous !== undefined) {
      inheritCollections(db, previous.id, id);
      for (const old of supersedeOtherVersions(db, file.path, id)) this.#unindex(old);
    }
    this.#indexText(id, file.path, row.title, extracted.text, here, embedsNow);
    this.#decorate(id, file.relativePath);
    this.#note(
      { id, ...row, is_latest: 1, vector_model: null },
      previous === undefined ? "added" : "updated",
    );
  }

  #unindex(id: number): void {
    this.handoff.changes.push(unindexDocument(this.db, id));
  }

  #index(id: number, path: string, title: string, bytes: Uint8Array): void {
    const prefix = bytes.length > MAX_INDEXED_BYTES ? bytes.subarray(0, MAX_INDEXED_BYTES) : bytes;
    const text = extractText(path, prefix).text;
    const here = this.handoff.embedsHere(text?.length ?? 0);
    // Its old vectors are gone until the worker's land: a crash before then must leave it findable
    // by the backfill, which looks for documents without a vector model.
    if (!here) setVectorModel(this.db, id, null);
    this.#indexText(id, path, title, text, here);
  }

  #indexText(
    id: number,
    path: string,
    title: string,
    text: string | undefined,
    embedHere: boolean,
    modelRecorded = false,
  ): void {
    const onWorker = !embedHere;
    const change = indexDocument(
      this.db,
      { model: this.options.embedder.id, embed: onWorker ? undefined : this.#timedEmbed },
      { id, path, title, text, modelRecorded },
    );
    if (change !== undefined) {
      this.handoff.changes.push(change);
      if (this.handoff.indexes) {
        this.handoff.balance.toIndex(title.length + path.length + (change.text?.length ?? 0));
      }
    }
    if (onWorker && text !== undefined) {
      // Until the worker's vectors are stored, searches and the next add after a crash must know
      // to fill the gap.
      if (!this.#markedIncomplete) markVectorsIncomplete(this.db);
      this.#markedIncomplete = true;
      const pieces = embeddingPieces(title, text);
      let chars = 0;
      for (const piece of pieces) chars += piece.length;
      this.handoff.balance.toEmbed(chars);
      this.handoff.jobs.push({ id, pieces });
    } else if (this.embed === undefined && text !== undefined) {
      // Until the embedding service has answered, searches and the next add must know the gap.
      if (this.#pending.length === 0) markVectorsIncomplete(this.db);
      this.#pending.push({ id, title, text });
    }
  }

  /** Gives a document the add's tags, metadata and collection (at its path below the folder). */
  #decorate(id: number, relativePath: string): void {
    if (this.options.collection !== undefined) {
      addToCollection(this.db, id, this.options.collection, relativePath);
    }
    if (this.options.tags !== undefined && this.options.tags.length > 0) {
      addTags(this.db, id, this.options.tags);
    }
    if (this.options.metadata !== undefined && Object.keys(this.options.metadata).length > 0) {
      setMetadata(this.db, id, this.options.metadata);
    }
  }

  #note(doc: DocumentRow, status: IngestedDocument["status"]): void {
    if (status === "added") this.report.documents_added++;
    else if (status === "updated") this.report.documents_updated++;
    else this.report.documents_unchanged++;
    this.report.documents.push({
      id: doc.id,
      hash: doc.hash,
      path: doc.path,
      name: doc.name,
      size: doc.size,
      mime: doc.mime,
      status,
    });
  }

  /**
   * Embeds, through the embedding service, the documents stored without vectors. A failure is a
   * warning: the documents are stored and searchable by keyword, a search embeds them for itself,
   * and the next add or `docs.repair` stores their vectors.
   */
  async embedPending(): Promise<void> {
    if (this.#pending.length > 0) {
      try {
        await embedPending(
          this.db,
          this.options.embedder,
          this.#pending,
          (work) => transaction(this.db, work),
        );
      } catch (error) {
        this.report.warnings.push(
          `embedding with ${this.options.embedder.id} failed (${
            error instanceof Error ? error.message : String(error)
          }); searches embed these documents for themselves until the next add or docs.repair stores their vectors`,
        );
      }
      this.#pending = [];
    }
  }
}
