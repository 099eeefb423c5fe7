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
import {
  COUNT,
  countMessage,
  MAX_ID,
  MESSAGE,
  MESSAGE_KEY,
  type MessageRow,
  messageValues,
  TIMELINE_MESSAGE,
  type TimelineMessageRow,
} from "../../agent/messages.ts";
import type { SessionDelta } from "../../agent/session_totals.ts";
import { Params } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { COPY_MIN_ROWS, copyInsert } from "../copy_rows.ts";
import { readRow, readRows } from "../reads.ts";
import { type UnnestColumns, unnestInsert } from "../unnest.ts";
import { applyDeltas, lockSessions } from "./session_totals.ts";

/** The columns of a stored message, in `messageValues`' order. */
const MESSAGE_COLUMNS: UnnestColumns = {
  session_id: "text",
  agent: "text",
  message_key: "text",
  ts: "bigint",
  role: "text",
  message_type: "text",
  text: "text",
  tool_name: "text",
  tool_use_id: "text",
  is_error: "integer",
  model: "text",
  cwd: "text",
  file_path: "text",
  command_prefix: "text",
  subagent_id: "text",
};

/** Both paths keep a key's first message, as SQLite, and answer the keys they stored. */
const STORED_ONCE =
  "ON CONFLICT (session_id, message_key) DO NOTHING RETURNING session_id, message_key";

/** One statement stores a part of a batch. */
const INSERT_MESSAGES = unnestInsert("messages", MESSAGE_COLUMNS, STORED_ONCE);

/** A large batch is copied into a staging table, then moved by one statement. */
const COPY_MESSAGES = copyInsert("messages", MESSAGE_COLUMNS, STORED_ONCE);

/** Messages per statement: large enough to amortize a round trip, small enough to stream. */
const MESSAGES_PER_INSERT = 2000;

/**
 * Stores messages (once per key) and bumps their sessions' counters; answers how many were new.
 * `path` picks how they travel: by the batch's size (`auto`), or one way whatever the size (the
 * benchmark measures both on the same batches; both store the same rows).
 */
export function insertMessages(
  q: PgQueryable,
  messages: readonly TranscriptMessage[],
  path: "auto" | "rows" | "copy" = "auto",
): Promise<number> {
  if (messages.length === 0) return Promise.resolve(0);
  return q.write(async (w) => {
    await lockSessions(w, messages.map((m) => m.session_id));
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    const copying = path === "copy" || (path === "auto" && messages.length >= COPY_MIN_ROWS);
    const part = copying ? messages.length : MESSAGES_PER_INSERT;
    for (let from = 0; from < messages.length; from += part) {
      const batch = messages.slice(from, from + part);
      const insert = copying ? COPY_MESSAGES : INSERT_MESSAGES;
      const rows = MESSAGE_KEY.all(await insert.run(w, batch.map(messageValues)));
      const stored = new Set(rows.map((row) => `${row.session_id}\u0000${row.message_key}`));
      for (const m of batch) {
        // delete: a key given twice in the batch counts once, for its first message.
        if (!stored.delete(`${m.session_id}\u0000${m.message_key}`)) continue;
        added++;
        countMessage(deltas, m);
      }
    }
    await applyDeltas(w, deltas);
    return added;
  });
}

/** The newest non-empty messages of a session, newest first. */
export function recentMessages(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<MessageRow[]> {
  return readRows(
    q,
    MESSAGE,
    `SELECT ${MESSAGE.columns} FROM messages WHERE session_id = $1 AND text <> ''
     ORDER BY ts DESC, id DESC LIMIT $2`,
    [sessionId, limit],
  );
}

/** A page of a session's messages: skip `offset` newest, take `limit` (+1 to tell if more exist). */
export function transcriptPage(
  q: PgQueryable,
  sessionId: string,
  options: { limit: number; offset: number; messageType?: string },
): Promise<MessageRow[]> {
  const p = new Params();
  const session = `session_id = ${p.add(sessionId)}`;
  const typed = options.messageType === undefined
    ? ""
    : `AND message_type = ${p.add(options.messageType)}`;
  return readRows(
    q,
    MESSAGE,
    `SELECT ${MESSAGE.columns} FROM messages WHERE ${session} ${typed}
     ORDER BY ts DESC, id DESC LIMIT ${p.add(options.limit + 1)} OFFSET ${p.add(options.offset)}`,
    p.values,
  );
}

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
  const scanned = (columns: string) =>
    `SELECT ${columns} FROM messages WHERE ts >= $1 ${scope} ORDER BY id DESC LIMIT $${next}`;
  const window = await readRow(q, COUNT, `SELECT count(*) AS n FROM (${scanned("1")}) scanned`, [
    ...params,
    scanCap + 1,
  ]);
  const rows = await readRows(
    q,
    MESSAGE,
    `SELECT ${MESSAGE.columns} FROM (${scanned(MESSAGE.columns)}) scanned
     WHERE lower(text) LIKE $${next + 1} ESCAPE '!' ORDER BY id DESC LIMIT $${next + 2}`,
    [...params, scanCap, pattern, cap],
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
export function searchMessagesByTerms(
  q: PgQueryable,
  ftsQuery: string,
  sessionIds: readonly string[] | null,
  since: number,
  cap: number,
): Promise<MessageRow[]> {
  const words = searchWords(ftsQuery);
  if ((sessionIds !== null && sessionIds.length === 0) || words.length === 0) {
    return Promise.resolve([]);
  }
  const p = new Params();
  const scope = sessionIds === null ? "" : `AND session_id = ANY(${p.add(sessionIds)}::text[])`;
  return q.query(
    `SELECT ${MESSAGE.columns} FROM messages
     WHERE search @@ plainto_tsquery('simple', ${p.add(words.join(" "))})
       AND ts >= ${p.add(since)} ${scope}
     ORDER BY id DESC LIMIT ${p.add(cap)}`,
    p.values,
    // Planned for its words each time: walking the newest messages suits a common word, the
    // GIN index a rare one. The generic plan a prepared statement settles on after five runs
    // took a project's common word from 16 to 200 ms at 1M messages (deno task bench team).
    { prepare: false },
  ).then((rows) => MESSAGE.all(rows));
}

/** A session's prompts, tool calls and results, compactions and API errors in time order. */
export function timelineMessages(
  q: PgQueryable,
  sessionId: string,
  limit: number,
  textChars: number,
): Promise<TimelineMessageRow[]> {
  return readRows(
    q,
    TIMELINE_MESSAGE,
    `SELECT id, ts, role, message_type, left(text, $1) AS text, tool_name, tool_use_id,
       is_error, file_path, command_prefix, subagent_id
     FROM messages WHERE session_id = $2
       AND message_type IN ('user', 'tool_use', 'tool_result', 'compaction', 'api_error')
     ORDER BY ts, id LIMIT $3`,
    [textChars, sessionId, limit],
  );
}

/** The highest message id stored (0 when none). */
export async function maxMessageId(q: PgQueryable): Promise<number> {
  return (await readRow(q, MAX_ID, "SELECT coalesce(max(id), 0) AS id FROM messages")).id;
}
