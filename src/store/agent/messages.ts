/**
 * Transcript messages: stored once per `(session, message key)`, so a file
 * read again never counts anything twice, with their sessions' counters
 * moved in the same write; and the reads of a session's messages (newest,
 * by page, for the timeline) and the substring search over them.
 *
 * @module
 */
import type { SQLInputValue, StatementSync } from "node:sqlite";
import type { TranscriptMessage } from "../../model/agent_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader, type SqlParam } from "../rows.ts";
import { prepared } from "../statements.ts";
import { applyDeltas, deltaFor, type SessionDelta } from "./session_totals.ts";

const MESSAGE_COLUMNS = `session_id, agent, message_key, ts, role, message_type, text, tool_name,
  tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id`;
const MESSAGE_ROW = `(${Array(15).fill("?").join(", ")})`;

/**
 * Messages written by one statement: a backfill stores tens of thousands, and a statement per
 * message costs a quarter more than the rows themselves.
 */
const MESSAGES_PER_INSERT = 32;

/** The statement inserting `rows` messages at once (two sizes are ever asked for: 32 and 1). */
function messageInsert(db: DatabaseSync, rows: number): StatementSync {
  return prepared(
    db,
    `INSERT OR IGNORE INTO messages (${MESSAGE_COLUMNS})
     VALUES ${Array(rows).fill(MESSAGE_ROW).join(", ")}`,
  );
}

/**
 * The parameters of a message's insert, in the order of its columns (`session_id, agent,
 * message_key, ts, role, message_type, text, tool_name, tool_use_id, is_error, model, cwd,
 * file_path, command_prefix, subagent_id`, on both backends).
 */
export function messageValues(m: TranscriptMessage): SqlParam[] {
  return [
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
  ];
}

/** Moves the totals of a newly stored message's session by that message (both backends). */
export function countMessage(deltas: Map<string, SessionDelta>, m: TranscriptMessage): void {
  const delta = deltaFor(deltas, m.session_id, m.agent, m.ts);
  delta.messages++;
  if (m.message_type === "tool_use") delta.toolCalls++;
  if (delta.cwd === null && m.cwd !== undefined) delta.cwd = m.cwd;
  if (m.model !== undefined) delta.model = m.model;
}

/** Reads a message's key (on either backend). */
export const MESSAGE_KEY = new RowReader<{ session_id: string; message_key: string }>(
  "message key",
  {
    session_id: "text",
    message_key: "text",
  },
);

/** Stores messages (once per key) and bumps their sessions' counters. */
export function insertMessages(db: DatabaseSync, messages: readonly TranscriptMessage[]): number {
  return writing(db, () => {
    if (messages.length === 0) return 0;
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    const stored = (m: TranscriptMessage) => {
      added++;
      countMessage(deltas, m);
    };
    // Rows a statement adds get ids above every id stored before it (nothing else writes inside
    // this transaction), so when it ignores some keys, the ones it stored are found by id.
    let maxId = maxMessageId(db);
    const storedSince = (after: number) =>
      new Set(
        MESSAGE_KEY.all(
          prepared(db, "SELECT session_id, message_key FROM messages WHERE id > ?").all(after),
        ).map((row) => `${row.session_id}\u0000${row.message_key}`),
      );
    const run = (insert: StatementSync, from: number, to: number) => {
      const values: SQLInputValue[] = [];
      for (let i = from; i < to; i++) values.push(...messageValues(messages[i]));
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

/** A stored message. */
export interface MessageRow {
  /** Row id (grows with insertion). */
  id: number;
  /** Session id. */
  session_id: string;
  /** Time, ms. */
  ts: number;
  /** Role. */
  role: string;
  /** Message type. */
  message_type: string;
  /** Text. */
  text: string;
  /** Tool name. */
  tool_name: string | null;
  /** 1 when a tool result failed. */
  is_error: number | null;
  /** File the tool touched. */
  file_path: string | null;
}

/** Reads {@linkcode MessageRow} rows (here and in the message index's search). */
export const MESSAGE = new RowReader<MessageRow>("message", {
  id: "number",
  session_id: "text",
  ts: "number",
  role: "text",
  message_type: "text",
  text: "text",
  tool_name: "text?",
  is_error: "number?",
  file_path: "text?",
});

/** The newest non-empty messages of a session, newest first. */
export function recentMessages(db: DatabaseSync, sessionId: string, limit: number): MessageRow[] {
  return MESSAGE.all(
    prepared(
      db,
      `SELECT ${MESSAGE.columns} FROM messages WHERE session_id = ? AND text != ''
     ORDER BY ts DESC, id DESC LIMIT ?`,
    ).all(sessionId, limit),
  );
}

/** A page of a session's messages: skip `offset` newest, take `limit` (+1 to tell if more exist). */
export function transcriptPage(
  db: DatabaseSync,
  sessionId: string,
  options: { limit: number; offset: number; messageType?: string },
): MessageRow[] {
  const filter = options.messageType === undefined ? "" : "AND message_type = ?";
  const params: Array<string | number> = [sessionId];
  if (options.messageType !== undefined) params.push(options.messageType);
  params.push(options.limit + 1, options.offset);
  return MESSAGE.all(
    prepared(
      db,
      `SELECT ${MESSAGE.columns} FROM messages WHERE session_id = ? ${filter}
     ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...params),
  );
}

/** Reads a count (on either backend). */
export const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/**
 * Messages containing `needle` (case-folded), newest first, within the
 * scope. Only the newest `scanCap` messages of the scope are examined, so a
 * search that finds nothing costs a bounded scan; `scanned_all` says whether
 * the scan covered the whole scope.
 */
export function searchMessagesBySubstring(
  db: DatabaseSync,
  needle: string,
  sessionIds: readonly string[] | null,
  since: number,
  cap: number,
  scanCap = 20_000,
): { rows: MessageRow[]; scanned_all: boolean } {
  if (sessionIds !== null && sessionIds.length === 0) return { rows: [], scanned_all: true };
  const pattern = `%${needle.toLowerCase().replace(/[!%_]/g, "!$&")}%`;
  const scope = sessionIds === null ? "" : "AND session_id IN (SELECT value FROM json_each(?))";
  const params: Array<string | number> = [since];
  if (sessionIds !== null) params.push(JSON.stringify(sessionIds));
  const window = COUNT.one(
    prepared(
      db,
      `SELECT count(*) AS n FROM (SELECT 1 FROM messages WHERE ts >= ? ${scope} ORDER BY id DESC LIMIT ?)`,
    ).get(...params, scanCap + 1),
  );
  const rows = MESSAGE.all(
    prepared(
      db,
      `SELECT ${MESSAGE.columns} FROM (
       SELECT ${MESSAGE.columns} FROM messages WHERE ts >= ? ${scope} ORDER BY id DESC LIMIT ?
     ) WHERE lower(text) LIKE ? ESCAPE '!' ORDER BY id DESC LIMIT ?`,
    ).all(...params, scanCap, pattern, cap),
  );
  return { rows, scanned_all: window.n <= scanCap };
}

/** One message as the timeline shows it (text cut short). */
export interface TimelineMessageRow {
  /** Row id. */
  id: number;
  /** Time, ms. */
  ts: number;
  /** Role. */
  role: string;
  /** Message type. */
  message_type: string;
  /** The first characters of the text. */
  text: string;
  /** Tool name. */
  tool_name: string | null;
  /** Pairs a tool_use with its tool_result. */
  tool_use_id: string | null;
  /** 1 when the tool result failed. */
  is_error: number | null;
  /** File the tool touched. */
  file_path: string | null;
  /** The command's first words. */
  command_prefix: string | null;
  /** The side chain (sub-agent) the message belongs to, inside a main transcript. */
  subagent_id: string | null;
}

/** Reads {@linkcode TimelineMessageRow} rows (on either backend). */
export const TIMELINE_MESSAGE = new RowReader<TimelineMessageRow>("timeline message", {
  id: "number",
  ts: "number",
  role: "text",
  message_type: "text",
  text: "text",
  tool_name: "text?",
  tool_use_id: "text?",
  is_error: "number?",
  file_path: "text?",
  command_prefix: "text?",
  subagent_id: "text?",
});

/**
 * A session's prompts, tool calls and results, compactions and API errors in time order (at
 * most `limit`).
 */
export function timelineMessages(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
  textChars: number,
): TimelineMessageRow[] {
  return TIMELINE_MESSAGE.all(
    prepared(
      db,
      `SELECT id, ts, role, message_type, substr(text, 1, ?) AS text, tool_name, tool_use_id,
       is_error, file_path, command_prefix, subagent_id
     FROM messages WHERE session_id = ?
       AND message_type IN ('user', 'tool_use', 'tool_result', 'compaction', 'api_error')
     ORDER BY ts, id LIMIT ?`,
    ).all(textChars, sessionId, limit),
  );
}

/** Reads the highest message id (on either backend). */
export const MAX_ID = new RowReader<{ id: number }>("highest message id", { id: "number" });

/** The highest message id stored (0 when none). */
export function maxMessageId(db: DatabaseSync): number {
  return MAX_ID.one(prepared(db, "SELECT coalesce(max(id), 0) AS id FROM messages").get()).id;
}
