/**
 * One `vantage sync` run: a local store's history and documents pushed to
 * a team server in batches bounded in bytes, each acknowledged before the
 * next, with a cursor per table kept in the local store (`store_meta`,
 * per server store) that moves only past what the server acknowledged.
 *
 * What a run sends, in order:
 *
 * 1. **Hook events**, **messages** and **model calls** after their cursors,
 *    up to where each table stood when the run began, each batch with the
 *    facts of the sessions it names (the server claims them from those).
 *    The cursor moves to a batch's last record once the server took it; at
 *    the end of a table, to where it stood when the run began.
 * 2. **Sessions** those records belong to: their facts as they are now
 *    (last, so a session's latest model and title win), their model calls
 *    sent by an earlier run (a call's figures grow while its answer
 *    streams, and a merge keeps its position, so a call sent at a partial
 *    count is sent again at its current one) and their tool outcomes. The
 *    cursors these are counted from stay in the store until a run has sent
 *    them all, so a run stopped before then leaves them to the next.
 * 3. **Documents**, every version, in the order they were stored.
 *
 * A run stopped at any point (a `kill -9` included) leaves the cursors at
 * the last acknowledged batch; the next run sends from there, and what it
 * sends again the server stores once by its key.
 *
 * @module
 */
import type { DocumentRow } from "../store/docs/documents.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import type { SyncMarks, SyncSession } from "../model/sync_records.ts";
import { BatchBody } from "./batch_body.ts";
import type { DocumentPushReport } from "./push_documents.ts";
import type { HistoryPushReport, RefusedSession } from "./push_history.ts";
import type { TeamServer } from "./team_server.ts";
import type { SyncDocument } from "./wire.ts";

/** Bytes of one history batch by default: each one short write on the server. */
export const HISTORY_BATCH_BYTES = 1024 * 1024;

/** Bytes of one documents batch by default (a larger document goes alone). */
export const DOCUMENT_BATCH_BYTES = 8 * 1024 * 1024;

/** The largest document sent, bytes; larger ones are left out and listed. */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;

/** Records read from the store at a time. */
const PAGE = 2_000;

/** Sessions whose facts, calls and outcomes are read at a time. */
const SESSION_PAGE = 200;

/** The tables a run moves a cursor through. */
export type SyncTable = "events" | "messages" | "usage" | "documents";

/** Where a run stands, as it tells after each acknowledged batch. */
export interface SyncProgress {
  /** What it sends now. */
  phase: "sessions" | SyncTable;
  /** Batches acknowledged so far. */
  batches: number;
  /** Bytes sent so far (acknowledged batches). */
  bytes: number;
  /** Records acknowledged in this phase so far. */
  records: number;
  /** Records this phase has to send in all (documents: not known up front). */
  total?: number;
}

/** What one run did. */
export interface SyncSummary {
  /** The server's store id (cursors are kept per id). */
  server_id: string;
  /** Whose the records became on the server (null: its owner). */
  person: string | null;
  /** Batches sent and acknowledged. */
  batches: number;
  /** Bytes of those batches. */
  bytes: number;
  /** Records sent per kind (sessions: facts sent, again each run that touches them). */
  sent: { sessions: number; events: number; messages: number; usage: number; outcomes: number };
  /** What was new to the server. */
  stored: { events: number; messages: number; usage: number; sessions_created: number };
  /** Documents: versions sent, and what the server made of them. */
  documents: {
    sent: number;
    added: number;
    updated: number;
    unchanged: number;
    /** Why none were sent: the server takes none (they wait here for a later sync). */
    not_sent?: string;
  };
  /** Records refused (another person's sessions or documents), with the first sessions named. */
  refused: { records: number; sessions: RefusedSession[]; documents: string[] };
  /** Records the server could not take, with why. */
  invalid: Array<{ what: string; reason: string }>;
  /** Documents left out as too large. */
  too_large: Array<{ path: string; size: number }>;
  /** Where each cursor stands now. */
  cursors: Record<SyncTable, number>;
}

/** What a run needs. */
export interface SyncRunOptions {
  /** The local store. */
  store: Store<StoreMode>;
  /** A stored document's bytes (a server's store answers them later). */
  documentBytes(row: DocumentRow): Uint8Array | Promise<Uint8Array>;
  /** The team server. */
  server: TeamServer;
  /** Ignore the cursors and send everything again (the server keeps each record once). */
  fromStart?: boolean;
  /** Bytes of one history batch (default {@linkcode HISTORY_BATCH_BYTES}). */
  batchBytes?: number;
  /** Bytes of one documents batch (default {@linkcode DOCUMENT_BATCH_BYTES}). */
  documentBatchBytes?: number;
  /** Told after each acknowledged batch. */
  onProgress?(progress: SyncProgress): void;
  /** Stops the run between batches (the cursors stay at the last acknowledged one). */
  signal?: AbortSignal;
}

const TABLES: readonly SyncTable[] = ["events", "messages", "usage", "documents"];
const HISTORY_SECTIONS = ["sessions", "events", "messages", "usage", "outcomes"] as const;
type HistorySection = typeof HISTORY_SECTIONS[number];

const ENCODED_EMPTY = new TextEncoder().encode("{}");

/** The store_meta key of one cursor for one server store. */
export function cursorKey(serverId: string, table: SyncTable): string {
  return `sync.cursor.${serverId}.${table}`;
}

/** The store_meta key of the cursors a run began from, until a run sends its sessions. */
function pendingKey(serverId: string): string {
  return `sync.sessions_from.${serverId}`;
}

/**
 * Runs one sync; answers what it did. Raises what the server refused, or that it stopped
 * answering, with the cursors at the last acknowledged batch.
 *
 * @example
 * ```ts ignore
 * const summary = await runSync({ store, documentBytes, server: new TeamServer({ url, token }) });
 * summary.stored.messages; // messages new to the team server
 * ```
 */
export async function runSync(options: SyncRunOptions): Promise<SyncSummary> {
  return await new SyncRun(options).run();
}

class SyncRun {
  readonly #options: SyncRunOptions;
  readonly #store: Store<StoreMode>;
  #serverId = "";
  #cursors: Record<SyncTable, number> = { events: 0, messages: 0, usage: 0, documents: 0 };
  readonly #facts = new Map<string, SyncSession | null>();
  #summary!: SyncSummary;

  constructor(options: SyncRunOptions) {
    this.#options = options;
    this.#store = options.store;
  }

  async run(): Promise<SyncSummary> {
    const hello = await this.#options.server.call("sync.hello", ENCODED_EMPTY, this.#signal) as {
      server_id: string;
      person: string | null;
      /** Absent from servers older than the answer: they take documents. */
      documents?: { taken: boolean; reason?: string };
    };
    this.#serverId = hello.server_id;
    for (const table of TABLES) {
      const stored = this.#options.fromStart
        ? undefined
        : await this.#store.getStoreMeta(cursorKey(this.#serverId, table));
      this.#cursors[table] = stored === undefined ? 0 : Number(stored) || 0;
    }
    this.#summary = {
      server_id: hello.server_id,
      person: hello.person,
      batches: 0,
      bytes: 0,
      sent: { sessions: 0, events: 0, messages: 0, usage: 0, outcomes: 0 },
      stored: { events: 0, messages: 0, usage: 0, sessions_created: 0 },
      documents: { sent: 0, added: 0, updated: 0, unchanged: 0 },
      refused: { records: 0, sessions: [], documents: [] },
      invalid: [],
      too_large: [],
      cursors: this.#cursors,
    };
    const through = await this.#store.agent.syncHighWater();
    const from = await this.#sessionsFrom();
    await this.#sendTable("events", through.events);
    await this.#sendTable("messages", through.messages);
    await this.#sendTable("usage", through.usage);
    await this.#sendSessions(from, through);
    await this.#store.setStoreMeta(pendingKey(this.#serverId), "");
    // Documents a server cannot take stay behind their cursor, for a sync to one that can.
    if (hello.documents?.taken === false) {
      this.#summary.documents.not_sent = hello.documents.reason ?? "the server takes no documents";
    } else {
      await this.#sendDocuments();
    }
    return this.#summary;
  }

  /**
   * Where the sessions to send again are counted from: the cursors when the first run that
   * did not finish its sessions began (kept in the store until one does), else now.
   */
  async #sessionsFrom(): Promise<SyncMarks> {
    const key = pendingKey(this.#serverId);
    const kept = this.#options.fromStart ? undefined : await this.#store.getStoreMeta(key);
    if (kept !== undefined && kept !== "") {
      const marks = JSON.parse(kept) as SyncMarks;
      return {
        events: Math.min(marks.events, this.#cursors.events),
        messages: Math.min(marks.messages, this.#cursors.messages),
        usage: Math.min(marks.usage, this.#cursors.usage),
      };
    }
    const marks: SyncMarks = {
      events: this.#cursors.events,
      messages: this.#cursors.messages,
      usage: this.#cursors.usage,
    };
    await this.#store.setStoreMeta(key, JSON.stringify(marks));
    return marks;
  }

  get #signal(): AbortSignal | undefined {
    return this.#options.signal;
  }

  get #batchBytes(): number {
    return this.#options.batchBytes ?? HISTORY_BATCH_BYTES;
  }

  /** The facts of sessions, read once per run (null: the store has no row for it). */
  async #factsOf(ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.#facts.has(id));
    for (let i = 0; i < missing.length; i += SESSION_PAGE) {
      const page = missing.slice(i, i + SESSION_PAGE);
      for (const id of page) this.#facts.set(id, null);
      for (const facts of await this.#store.agent.sessionFacts(page)) {
        this.#facts.set(facts.session_id, facts);
      }
    }
  }

  /** Phase 2: the touched sessions' facts, calls sent before and tool outcomes. */
  async #sendSessions(from: SyncMarks, through: SyncMarks): Promise<void> {
    const touched = await this.#store.agent.sessionsTouched(from, through);
    const batch = new HistoryBatch(this.#batchBytes);
    for (let i = 0; i < touched.length; i += SESSION_PAGE) {
      const page = touched.slice(i, i + SESSION_PAGE);
      await this.#factsOf(page);
      const records: Array<[HistorySection, string, unknown]> = [];
      for (const id of page) records.push(["sessions", id, null]);
      for (const { usage } of await this.#store.agent.usageOfSessions(page, from.usage)) {
        records.push(["usage", usage.session_id, usage]);
      }
      for (const outcome of await this.#store.agent.toolOutcomesOf(page)) {
        records.push(["outcomes", outcome.session_id, outcome]);
      }
      for (const [section, sessionId, record] of records) {
        const facts = this.#facts.get(sessionId) ?? undefined;
        if (!batch.tryAdd(section, record, facts, sessionId)) {
          await this.#pushHistory(batch, "sessions", touched.length);
          batch.clear();
          batch.tryAdd(section, record, facts, sessionId);
        }
      }
    }
    if (batch.records > 0) await this.#pushHistory(batch, "sessions", touched.length);
  }

  /**
   * Phase 1: one table's records after its cursor, up to where it stood at the start. The next
   * batch is read and encoded while the server takes the last one (one batch in flight); the
   * cursor moves past a batch only once it was acknowledged, in order.
   */
  async #sendTable(table: "events" | "messages" | "usage", through: number): Promise<void> {
    let batch = new HistoryBatch(this.#batchBytes);
    let acknowledged = 0;
    const total = Math.max(0, through - this.#cursors[table]);
    let after = this.#cursors[table];
    let lastSeq = after;
    let inFlight: Promise<void> | undefined;
    const send = async (full: HistoryBatch, upTo: number) => {
      if (inFlight !== undefined) await inFlight;
      const sending = (async () => {
        acknowledged += full.counts[table];
        await this.#pushHistory(full, table, total, acknowledged);
        await this.#moveCursor(table, upTo);
      })();
      // Awaited before the next batch goes; handled now, so a failure waits to be raised there.
      sending.catch(() => {});
      inFlight = sending;
    };
    for (;;) {
      this.#signal?.throwIfAborted();
      const page = await this.#page(table, after, through);
      if (page.length === 0) break;
      after = page[page.length - 1].seq;
      await this.#factsOf(page.map((entry) => entry.session_id));
      for (const entry of page) {
        const facts = this.#facts.get(entry.session_id) ?? undefined;
        if (!batch.tryAdd(table, entry.record, facts, entry.session_id)) {
          await send(batch, lastSeq);
          batch = new HistoryBatch(this.#batchBytes);
          batch.tryAdd(table, entry.record, facts, entry.session_id);
        }
        lastSeq = entry.seq;
      }
    }
    if (batch.records > 0) await send(batch, lastSeq);
    if (inFlight !== undefined) await inFlight;
    // Positions past the last record (rows removed since, or never read: other agents') are done.
    await this.#moveCursor(table, Math.max(lastSeq, through));
  }

  async #page(
    table: "events" | "messages" | "usage",
    after: number,
    through: number,
  ): Promise<Array<{ seq: number; session_id: string; record: unknown }>> {
    const agent = this.#store.agent;
    if (table === "events") {
      return (await agent.eventsAfter(after, through, PAGE)).map((entry) => ({
        seq: entry.seq,
        session_id: entry.event.session_id,
        record: {
          delivery_id: entry.delivery_id,
          received_at: entry.received_at,
          event: entry.event,
        },
      }));
    }
    if (table === "messages") {
      return (await agent.messagesAfter(after, through, PAGE)).map((entry) => ({
        seq: entry.seq,
        session_id: entry.message.session_id,
        record: entry.message,
      }));
    }
    return (await agent.usageAfter(after, through, PAGE)).map((entry) => ({
      seq: entry.seq,
      session_id: entry.usage.session_id,
      record: entry.usage,
    }));
  }

  async #moveCursor(table: SyncTable, to: number): Promise<void> {
    if (to <= this.#cursors[table]) return;
    this.#cursors[table] = to;
    await this.#store.setStoreMeta(cursorKey(this.#serverId, table), String(to));
  }

  /** Sends a batch; `records` is how many of the phase's records are acknowledged with it. */
  async #pushHistory(
    batch: HistoryBatch,
    phase: SyncProgress["phase"],
    total: number,
    records = batch.sessionsSent,
  ): Promise<void> {
    const body = batch.body.bytes();
    const report = await this.#options.server.call(
      "sync.push",
      body,
      this.#signal,
    ) as HistoryPushReport;
    const summary = this.#summary;
    summary.batches++;
    summary.bytes += body.length;
    for (const section of HISTORY_SECTIONS) summary.sent[section] += batch.counts[section];
    summary.stored.events += report.events;
    summary.stored.messages += report.messages;
    summary.stored.usage += report.usage;
    summary.stored.sessions_created += report.sessions_created;
    summary.refused.records += report.refused;
    for (const refused of report.refused_sessions) {
      if (summary.refused.sessions.length >= 50) break;
      if (!summary.refused.sessions.some((s) => s.session_id === refused.session_id)) {
        summary.refused.sessions.push(refused);
      }
    }
    summary.invalid.push(...report.invalid.slice(0, Math.max(0, 50 - summary.invalid.length)));
    this.#options.onProgress?.({
      phase,
      batches: summary.batches,
      bytes: summary.bytes,
      records,
      total,
    });
  }

  /** Phase 3: every document version after the cursor. */
  async #sendDocuments(): Promise<void> {
    const limit = this.#options.documentBatchBytes ?? DOCUMENT_BATCH_BYTES;
    let body = new BatchBody(["documents"]);
    let lastId = this.#cursors.documents;
    let sent = 0;
    const flush = async () => {
      if (body.records === 0) return;
      const bytes = body.bytes();
      const report = await this.#options.server.call(
        "sync.push_documents",
        bytes,
        this.#signal,
      ) as DocumentPushReport;
      const summary = this.#summary;
      summary.batches++;
      summary.bytes += bytes.length;
      summary.documents.sent += body.records;
      summary.documents.added += report.added;
      summary.documents.updated += report.updated;
      summary.documents.unchanged += report.unchanged;
      for (const refused of report.refused) {
        summary.refused.records++;
        if (summary.refused.documents.length < 50) summary.refused.documents.push(refused.path);
      }
      for (const invalid of report.invalid) {
        if (summary.invalid.length < 50) {
          summary.invalid.push({ what: `document ${invalid.path}`, reason: invalid.reason });
        }
      }
      sent += body.records;
      await this.#moveCursor("documents", lastId);
      this.#options.onProgress?.({
        phase: "documents",
        batches: summary.batches,
        bytes: summary.bytes,
        records: sent,
      });
      body = new BatchBody(["documents"]);
    };
    let after = this.#cursors.documents;
    for (;;) {
      this.#signal?.throwIfAborted();
      const rows = await this.#store.docs.documentsAfter(after, 100);
      if (rows.length === 0) break;
      after = rows[rows.length - 1].id;
      for (const row of rows) {
        if (row.size > MAX_DOCUMENT_BYTES) {
          if (this.#summary.too_large.length < 50) {
            this.#summary.too_large.push({ path: row.path, size: row.size });
          }
          if (body.records === 0) await this.#moveCursor("documents", row.id);
          else lastId = row.id;
          continue;
        }
        const encoded = BatchBody.encode(await this.#document(row));
        if (body.records > 0 && body.size + body.growth("documents", encoded.length) > limit) {
          await flush();
        }
        body.addEncoded("documents", encoded);
        lastId = row.id;
      }
    }
    await flush();
  }

  async #document(row: DocumentRow): Promise<SyncDocument> {
    const docs = this.#store.docs;
    const collections: SyncDocument["collections"] = [];
    for (const name of await docs.collectionsOf(row.id)) {
      const paths = await docs.collectionPaths(name);
      collections.push({ name, relative_path: paths.get(row.id) ?? row.relative_path });
    }
    const doc: SyncDocument = {
      path: row.path,
      relative_path: row.relative_path,
      hash: row.hash,
      content_base64: (await this.#options.documentBytes(row)).toBase64(),
      modified_at: row.modified_at,
      tags: await docs.tagsOf(row.id),
      metadata: await docs.metadataOf(row.id),
      collections,
    };
    if (row.source_url !== null) doc.source_url = row.source_url;
    return doc;
  }
}

/**
 * A history batch being filled: its body, the sessions whose facts it carries (each once,
 * before the first record that names it) and how many records of each kind it holds.
 */
class HistoryBatch {
  body = new BatchBody(HISTORY_SECTIONS);
  counts: Record<HistorySection, number> = {
    sessions: 0,
    events: 0,
    messages: 0,
    usage: 0,
    outcomes: 0,
  };
  /** Sessions named by a `sessions` record, across the batches of a run's first phase. */
  sessionsSent = 0;
  #carried = new Set<string>();

  constructor(readonly limit: number) {}

  /** Records in the body, carried facts included. */
  get records(): number {
    return this.body.records;
  }

  /**
   * Adds a record (for a `sessions` record: the session's facts alone) with its session's
   * facts when the batch does not carry them yet; answers false, adding nothing, when that
   * would take a batch holding something past its limit.
   */
  tryAdd(
    section: HistorySection,
    record: unknown,
    facts: SyncSession | undefined,
    sessionId: string,
  ): boolean {
    const carry = facts !== undefined && !this.#carried.has(sessionId)
      ? BatchBody.encode(facts)
      : undefined;
    const encoded = section === "sessions" ? undefined : BatchBody.encode(record);
    if (this.body.records > 0) {
      let growth = carry === undefined ? 0 : this.body.growth("sessions", carry.length);
      if (encoded !== undefined) growth += this.body.growth(section, encoded.length);
      if (this.body.size + growth > this.limit) return false;
    }
    this.#carried.add(sessionId);
    if (carry !== undefined) {
      this.body.addEncoded("sessions", carry);
      this.counts.sessions++;
    }
    if (encoded === undefined) {
      this.sessionsSent++;
    } else {
      this.body.addEncoded(section, encoded);
      this.counts[section]++;
    }
    return true;
  }

  /** Empties it for the next batch. */
  clear(): void {
    this.body = new BatchBody(HISTORY_SECTIONS);
    for (const section of HISTORY_SECTIONS) this.counts[section] = 0;
    this.#carried = new Set();
  }
}
