/**
 * Transcript messages on PostgreSQL: stored once per `(session, message
 * key)` with their sessions' counters moved in the same write, the reads of
 * a session's messages, the substring search, and the word search over the
 * `tsvector` column the schema keeps beside each message — SQLite's
 * statements (../../agent/messages.ts, ../../agent/message_index.ts) in
 * PostgreSQL's dialect.
 *
 * @module
 */
import type { TranscriptMessage } from "../../../model/agent_records.ts";
import { MESSAGE, type MessageRow, type TimelineMessageRow } from "../../agent/messages.ts";
import { deltaFor, type SessionDelta } from "../../agent/session_totals.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { applyDeltas, lockSessions } from "./session_totals.ts";

/**
 * One statement stores a whole batch: each column travels as one array and `unnest` makes
 * the rows, in the batch's order (so a key given twice keeps its first message, as SQLite).
 */
const INSERT_MESSAGES = `
  INSERT INTO messages (session_id, agent, message_key, ts, role, message_type, text, tool_name,
    tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id)
  SELECT session_id, agent, message_key, ts, role, message_type, text, tool_name, tool_use_id,
    is_error, model, cwd, file_path, command_prefix, subagent_id
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::text[], $10::integer[], $11::text[], $12::text[], $13::text[],
    $14::text[], $15::text[])
    WITH ORDINALITY AS batch (session_id, agent, message_key, ts, role, message_type, text,
      tool_name, tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id, n)
  ORDER BY n
  ON CONFLICT (session_id, message_key) DO NOTHING
  RETURNING session_id, message_key`;

/** Messages per statement: large enough to amortize a round trip, small enough to stream. */
const MESSAGES_PER_INSERT = 2000;

/** Stores messages (once per key) and bumps their sessions' counters; answers how many were new. */
export function insertMessages(
  q: PgQueryable,
  messages: readonly TranscriptMessage[],
): Promise<number> {
  if (messages.length === 0) return Promise.resolve(0);
  return q.write(async (w) => {
    await lockSessions(w, messages.map((m) => m.session_id));
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    for (let from = 0; from < messages.length; from += MESSAGES_PER_INSERT) {
      const batch = messages.slice(from, from + MESSAGES_PER_INSERT);
      const column = <T>(pick: (m: TranscriptMessage) => T) => batch.map(pick);
      const rows = await w.query(INSERT_MESSAGES, [
        column((m) => m.session_id),
        column((m) => m.agent),
        column((m) => m.message_key),
        column((m) => m.ts),
        column((m) => m.role),
        column((m) => m.message_type),
        column((m) => m.text),
        column((m) => m.tool_name ?? null),
        column((m) => m.tool_use_id ?? null),
        column((m) => m.is_error === undefined ? null : m.is_error ? 1 : 0),
        column((m) => m.model ?? null),
        column((m) => m.cwd ?? null),
        column((m) => m.file_path ?? null),
        column((m) => m.command_prefix ?? null),
        column((m) => m.subagent_id ?? null),
      ]);
      const stored = new Set(rows.map((row) => `${row.session_id}\u0000${row.message_key}`));
      for (const m of batch) {
        // delete: a key given twice in the batch counts once, for its first message.
        if (!stored.delete(`${m.session_id}\u0000${m.message_key}`)) continue;
        added++;
        const delta = deltaFor(deltas, m.session_id, m.agent, m.ts);
        delta.messages++;
        if (m.message_type === "tool_use") delta.toolCalls++;
        if (delta.cwd === null && m.cwd !== undefined) delta.cwd = m.cwd;
        if (m.model !== undefined) delta.model = m.model;
      }
    }
    await applyDeltas(w, deltas);
    return added;
  });
}

/** The newest non-empty messages of a session, newest first. */
export async function recentMessages(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<MessageRow[]> {
  return MESSAGE.all(
    await q.query(
      `SELECT ${MESSAGE.columns} FROM messages WHERE session_id = $1 AND text <> ''
       ORDER BY ts DESC, id DESC LIMIT $2`,
      [sessionId, limit],
    ),
  );
}

/** A page of a session's messages: skip `offset` newest, take `limit` (+1 to tell if more exist). */
export async function transcriptPage(
  q: PgQueryable,
  sessionId: string,
  options: { limit: number; offset: number; messageType?: string },
): Promise<MessageRow[]> {
  const typed = options.messageType !== undefined;
  return MESSAGE.all(
    await q.query(
      `SELECT ${MESSAGE.columns} FROM messages WHERE session_id = $1
         ${typed ? "AND message_type = $4" : ""}
       ORDER BY ts DESC, id DESC LIMIT $2 OFFSET $3`,
      typed
        ? [sessionId, options.limit + 1, options.offset, options.messageType!]
        : [sessionId, options.limit + 1, options.offset],
    ),
  );
}

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/**
 * Messages containing `needle` (case-folded), newest first, within the scope, examining only
 * the newest `scanCap` messages of the scope; `scanned_all` says whether that was all of it.
 */
export async function searchMessagesBySubstring(
  q: PgQueryable,
  needle: string,
  sessionIds: readonly string[] | null,
  since: number,
  cap: number,
  scanCap = 20_000,
): Promise<{ rows: MessageRow[]; scanned_all: boolean }> {
  if (sessionIds !== null && sessionIds.length === 0) return { rows: [], scanned_all: true };
  const pattern = `%${needle.toLowerCase().replace(/[!%_]/g, "!$&")}%`;
  const scope = sessionIds === null ? "" : "AND session_id = ANY($2::text[])";
  const params = sessionIds === null ? [since] : [since, sessionIds];
  const next = params.length + 1;
  const window = COUNT.one(
    (await q.query(
      `SELECT count(*) AS n FROM (
         SELECT 1 FROM messages WHERE ts >= $1 ${scope} ORDER BY id DESC LIMIT $${next}
       ) scanned`,
      [...params, scanCap + 1],
    ))[0],
  );
  const rows = MESSAGE.all(
    await q.query(
      `SELECT ${MESSAGE.columns} FROM (
         SELECT ${MESSAGE.columns} FROM messages WHERE ts >= $1 ${scope} ORDER BY id DESC
         LIMIT $${next}
       ) scanned WHERE lower(text) LIKE $${next + 1} ESCAPE '!' ORDER BY id DESC LIMIT $${
        next + 2
      }`,
      [...params, scanCap, pattern, cap],
    ),
  );
  return { rows, scanned_all: window.n <= scanCap };
}

/**
 * The words of a message search, from the expression the search operation builds for SQLite's
 * FTS5 index (`"word" "word"`: every word, each quoted).
 */
function searchWords(ftsQuery: string): string[] {
  return [...ftsQuery.matchAll(/"((?:[^"]|"")*)"/g)].map((match) => match[1].replaceAll('""', '"'))
    .filter((word) => word.trim() !== "");
}

/**
 * Messages holding every word of an FTS5-style query (`"a" "b"`), newest first, within
 * `sessionIds` (all when null) and at or after `since`: the `tsvector` index finds them.
 */
export async function searchMessagesByTerms(
  q: PgQueryable,
  ftsQuery: string,
  sessionIds: readonly string[] | null,
  since: number,
  cap: number,
): Promise<MessageRow[]> {
  if (sessionIds !== null && sessionIds.length === 0) return [];
  const words = searchWords(ftsQuery);
  if (words.length === 0) return [];
  const scope = sessionIds === null ? "" : "AND session_id = ANY($4::text[])";
  const params = sessionIds === null
    ? [words.join(" "), since, cap]
    : [words.join(" "), since, cap, sessionIds];
  return MESSAGE.all(
    await q.query(
      `SELECT ${MESSAGE.columns} FROM messages
       WHERE search @@ plainto_tsquery('simple', $1) AND ts >= $2 ${scope}
       ORDER BY id DESC LIMIT $3`,
      params,
    ),
  );
}

const TIMELINE_MESSAGE = new RowReader<TimelineMessageRow>("timeline message", {
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

/** A session's prompts, tool calls and results, compactions and API errors in time order. */
export async function timelineMessages(
  q: PgQueryable,
  sessionId: string,
  limit: number,
  textChars: number,
): Promise<TimelineMessageRow[]> {
  return TIMELINE_MESSAGE.all(
    await q.query(
      `SELECT id, ts, role, message_type, left(text, $1) AS text, tool_name, tool_use_id,
         is_error, file_path, command_prefix, subagent_id
       FROM messages WHERE session_id = $2
         AND message_type IN ('user', 'tool_use', 'tool_result', 'compaction', 'api_error')
       ORDER BY ts, id LIMIT $3`,
      [textChars, sessionId, limit],
    ),
  );
}

/** The highest message id stored (0 when none). */
export async function maxMessageId(q: PgQueryable): Promise<number> {
  const rows = await q.query("SELECT coalesce(max(id), 0) AS id FROM messages");
  return new RowReader<{ id: number }>("highest message id", { id: "number" }).one(rows[0]).id;
}
