/**
 * Writes of agent activity: hook events and transcript batches. Each write
 * is idempotent (delivery ids, message keys and usage keys are unique), so a
 * replayed spool or a re-read file never counts anything twice, and a
 * transcript batch commits its records together with the file offset. A
 * usage record whose key is stored already merges into it, each field
 * keeping the larger value: the final figures of a call win however its
 * lines were split across reads, and the session totals move by the
 * difference only.
 *
 * A session's `started_at` / `last_activity_at` are 0 while no record with a
 * time was seen ("unknown", never the epoch): the upserts below take the
 * earliest real start and ignore 0.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { type DatabaseSync, writing } from "./database.ts";
import type { EventInput, MessageInput, SessionFacts } from "./agent_records.ts";
import { statements } from "./statement_cache.ts";
import { applyDeltas, deltaFor, EARLIEST_START, type SessionDelta } from "./session_totals.ts";

export { insertUsage, repriceUsage } from "./usage_writes.ts";
export {
  getTranscriptCursor,
  listTranscriptCursors,
  saveTranscriptCursor,
  type TranscriptCursor,
} from "./transcript_cursors.ts";

/** Inserts a hook event once per delivery id; false when it was already stored. */
export function insertHookEvent(
  db: DatabaseSync,
  event: EventInput,
  deliveryId: string,
  receivedAt: number,
): boolean {
  return writing(db, () => {
    const inserted = statements(db).prepare(`
      INSERT OR IGNORE INTO events (delivery_id, agent, session_id, cwd, project, event_type, ts,
        tool_name, tool_use_id, file_path, command, command_prefix, success, error, duration_ms,
        prompt, model, received_at, raw)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    `).run(
      deliveryId,
      event.agent,
      event.session_id,
      event.cwd ?? null,
      event.project ?? event.cwd ?? null,
      event.event_type,
      event.ts,
      event.tool_name ?? null,
      event.tool_use_id ?? null,
      event.file_path ?? null,
      event.command ?? null,
      event.command_prefix ?? null,
      event.success === undefined ? null : event.success ? 1 : 0,
      event.error ?? null,
      event.duration_ms ?? null,
      event.prompt ?? null,
      event.model ?? null,
      receivedAt,
      JSON.stringify(event.raw ?? {}),
    );
    if (Number(inserted.changes) === 0) return false;
    statements(db).prepare(`
      INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, model,
        transcript_path, has_hooks, event_count)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, 1)
      ON CONFLICT (session_id) DO UPDATE SET
        cwd = coalesce(excluded.cwd, sessions.cwd),
        project = coalesce(sessions.project, excluded.project),
        started_at = ${EARLIEST_START},
        last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at),
        model = coalesce(excluded.model, sessions.model),
        transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
        has_hooks = 1,
        event_count = sessions.event_count + 1
    `).run(
      event.session_id,
      event.agent,
      event.cwd ?? null,
      event.project ?? event.cwd ?? null,
      event.ts,
      event.ts,
      event.model ?? null,
      event.transcript_path ?? null,
    );
    return true;
  });
}

/** Counts of what a transcript batch actually added. */
export interface BatchCounts {
  /** Messages newly stored. */
  messages: number;
  /** Usage records newly stored. */
  usage: number;
}

/**
 * Upserts what a transcript says about a session. A sub-agent's facts also make sure its
 * parent has a row (its file may not have been read yet), so the sub-agent is never listed
 * alone and the counts it adds to the parent have somewhere to go.
 */
export function upsertSessionFacts(
  db: DatabaseSync,
  facts: SessionFacts,
  transcriptPath?: string,
): void {
  return writing(db, () => {
    statements(db).prepare(`
      INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, model,
        git_branch, title, parent_session_id, transcript_path, is_subagent, subagent_type)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (session_id) DO UPDATE SET
        cwd = coalesce(sessions.cwd, excluded.cwd),
        project = coalesce(sessions.project, excluded.project),
        started_at = ${EARLIEST_START},
        model = coalesce(excluded.model, sessions.model),
        git_branch = coalesce(excluded.git_branch, sessions.git_branch),
        title = coalesce(excluded.title, sessions.title),
        parent_session_id = coalesce(sessions.parent_session_id, excluded.parent_session_id),
        transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
        is_subagent = max(sessions.is_subagent, excluded.is_subagent),
        subagent_type = coalesce(excluded.subagent_type, sessions.subagent_type)
    `).run(
      facts.session_id,
      facts.agent,
      facts.cwd ?? null,
      facts.cwd ?? null,
      facts.started_at ?? 0,
      facts.started_at ?? 0,
      facts.model ?? null,
      facts.git_branch ?? null,
      facts.title ?? null,
      facts.parent_session_id ?? null,
      transcriptPath ?? null,
      facts.is_subagent === true ? 1 : 0,
      facts.subagent_type ?? null,
    );
    const start = facts.started_at ?? 0;
    if (facts.is_subagent === true && facts.parent_session_id !== undefined && start > 0) {
      statements(db).prepare(`
        INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING
      `).run(
        facts.parent_session_id,
        facts.agent,
        facts.cwd ?? null,
        facts.cwd ?? null,
        start,
        start,
      );
    }
  });
}

const MESSAGE_COLUMNS = `session_id, agent, message_key, ts, role, message_type, text, tool_name,
  tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id`;
const MESSAGE_ROW = `(${Array(15).fill("?").join(", ")})`;

/**
 * Messages written by one statement: a backfill stores tens of thousands, and a statement per
 * message costs a quarter more than the rows themselves.
 */
const MESSAGES_PER_INSERT = 32;

function messageInsert(db: DatabaseSync, rows: number) {
  return statements(db).prepare(
    `INSERT OR IGNORE INTO messages (${MESSAGE_COLUMNS})
     VALUES ${Array(rows).fill(MESSAGE_ROW).join(", ")}`,
  );
}

function pushMessageValues(values: SQLInputValue[], m: MessageInput): void {
  values.push(
    m.session_id,
    m.agent,
    m.message_key,
    m.ts,
    m.role,
    m.message_type,
    m.text,
    m.tool_name ?? null,
    m.tool_use_id ?? null,
    m.is_error === undefined ? null : m.is_error ? 1 : 0,
    m.model ?? null,
    m.cwd ?? null,
    m.file_path ?? null,
    m.command_prefix ?? null,
    m.subagent_id ?? null,
  );
}

/** Stores messages (once per key) and bumps their sessions' counters. */
export function insertMessages(db: DatabaseSync, messages: readonly MessageInput[]): number {
  return writing(db, () => {
    if (messages.length === 0) return 0;
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    const stored = (m: MessageInput) => {
      added++;
      const delta = deltaFor(deltas, m.session_id, m.agent, m.ts);
      delta.messages++;
      if (m.message_type === "tool_use") delta.toolCalls++;
      if (delta.cwd === null && m.cwd !== undefined) delta.cwd = m.cwd;
      if (m.model !== undefined) delta.model = m.model;
    };
    // Rows a statement adds get ids above every id stored before it (nothing else writes inside
    // this transaction), so when it ignores some keys, the ones it stored are found by id.
    let maxId =
      (statements(db).prepare("SELECT coalesce(max(id), 0) AS id FROM messages").get() as {
        id: number;
      }).id;
    const storedSince = (after: number) =>
      new Set(
        (statements(db).prepare("SELECT session_id, message_key FROM messages WHERE id > ?").all(
          after,
        ) as Array<
          { session_id: string; message_key: string }
        >).map((row) => `${row.session_id}\u0000${row.message_key}`),
      );
    const run = (
      insert: ReturnType<typeof messageInsert>,
      from: number,
      to: number,
    ) => {
      const values: SQLInputValue[] = [];
      for (let i = from; i < to; i++) pushMessageValues(values, messages[i]);
      const result = insert.run(...values);
      const changes = Number(result.changes);
      if (changes === to - from) {
        for (let i = from; i < to; i++) stored(messages[i]);
      } else if (changes > 0) {
        const keys = storedSince(maxId);
        for (let i = from; i < to; i++) {
          const m = messages[i];
          // A key twice in one statement: its first row is the one stored.
          if (keys.delete(`${m.session_id}\u0000${m.message_key}`)) stored(m);
        }
      }
      if (changes > 0) maxId = Number(result.lastInsertRowid);
    };
    let next = 0;
    if (messages.length >= MESSAGES_PER_INSERT) {
      const many = messageInsert(db, MESSAGES_PER_INSERT);
      for (; next + MESSAGES_PER_INSERT <= messages.length; next += MESSAGES_PER_INSERT) {
        run(many, next, next + MESSAGES_PER_INSERT);
      }
    }
    if (next < messages.length) {
      const one = messageInsert(db, 1);
      for (; next < messages.length; next++) run(one, next, next + 1);
    }
    applyDeltas(db, deltas);
    return added;
  });
}
