/**
 * Transcript cursors and tool outcomes on PostgreSQL: how far each
 * transcript file was read, and how each tool call ended (completing the
 * hook events that did not say) — SQLite's statements
 * (../../agent/transcript_cursors.ts, ../../agent/tool_outcomes.ts) in
 * PostgreSQL's dialect.
 *
 * @module
 */
import type { ToolOutcome } from "../../../model/agent_records.ts";
import type { CompletedToolEvent, StoredToolOutcome } from "../../agent/tool_outcomes.ts";
import type { TranscriptCursor } from "../../agent/transcript_cursors.ts";
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { lockSessions } from "./session_totals.ts";

const CURSOR = new RowReader<TranscriptCursor>("transcript cursor", {
  path: "text",
  agent: "text",
  byte_offset: "number",
  file_size: "number",
  parser_state: "text",
  lines: "number",
  malformed: "number",
  unknown_types: "number",
});

/** The stored cursor of a transcript file, if it was read before. */
export async function getTranscriptCursor(
  q: PgQueryable,
  path: string,
): Promise<TranscriptCursor | undefined> {
  return CURSOR.optional(
    (await q.query(`SELECT ${CURSOR.columns} FROM transcript_files WHERE path = $1`, [path]))[0],
  );
}

/** Every stored transcript cursor. */
export async function listTranscriptCursors(q: PgQueryable): Promise<TranscriptCursor[]> {
  return CURSOR.all(await q.query(`SELECT ${CURSOR.columns} FROM transcript_files`));
}

/** Saves a transcript file's cursor (call in the same write as its records). */
export async function saveTranscriptCursor(
  q: PgQueryable,
  cursor: TranscriptCursor,
  now: number,
): Promise<void> {
  await q.query(
    `INSERT INTO transcript_files (path, agent, byte_offset, file_size, parser_state, lines,
       malformed, unknown_types, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (path) DO UPDATE SET byte_offset = excluded.byte_offset,
       file_size = excluded.file_size, parser_state = excluded.parser_state,
       lines = excluded.lines, malformed = excluded.malformed,
       unknown_types = excluded.unknown_types, updated_at = excluded.updated_at`,
    [
      cursor.path,
      cursor.agent,
      cursor.byte_offset,
      cursor.file_size,
      cursor.parser_state,
      cursor.lines,
      cursor.malformed,
      cursor.unknown_types,
      now,
    ],
  );
}

/**
 * Records outcomes (the first per call wins) and completes the tool result events of the same
 * calls whose outcome was unknown; answers the events completed, one entry per call.
 */
export function recordToolOutcomes(
  q: PgQueryable,
  outcomes: readonly ToolOutcome[],
): Promise<CompletedToolEvent[]> {
  if (outcomes.length === 0) return Promise.resolve([]);
  return q.write(async (w) => {
    await lockSessions(w, outcomes.map((o) => o.session_id));
    const completed: CompletedToolEvent[] = [];
    for (const outcome of outcomes) {
      const inserted = await w.query(
        `INSERT INTO tool_outcomes (session_id, tool_use_id, agent, ts, success, exit_code, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING ts`,
        [
          outcome.session_id,
          outcome.tool_use_id,
          outcome.agent,
          outcome.ts,
          outcome.success ? 1 : 0,
          outcome.exit_code ?? null,
          outcome.error ?? null,
        ],
      );
      if (inserted.length === 0) continue;
      const error = outcome.success ? null : outcome.error ?? null;
      const updated = await w.query(
        `UPDATE events SET success = $1, error = coalesce(error, $2)
         WHERE session_id = $3 AND tool_use_id = $4 AND success IS NULL
           AND event_type IN ('PostToolUse', 'PostToolUseFailure')
         RETURNING id`,
        [outcome.success ? 1 : 0, error, outcome.session_id, outcome.tool_use_id],
      );
      if (updated.length === 0) continue;
      const entry: CompletedToolEvent = {
        session_id: outcome.session_id,
        tool_use_id: outcome.tool_use_id,
        success: outcome.success,
      };
      if (error !== null) entry.error = error;
      completed.push(entry);
    }
    return completed;
  });
}

const OUTCOME = new RowReader<{ success: number; exit_code: number | null; error: string | null }>(
  "tool outcome",
  { success: "number", exit_code: "number?", error: "text?" },
);

/** The recorded outcome of one call, if a transcript has told it yet. */
export async function findToolOutcome(
  q: PgQueryable,
  sessionId: string,
  toolUseId: string,
): Promise<StoredToolOutcome | undefined> {
  const row = OUTCOME.optional(
    (await q.query(
      `SELECT success, exit_code, error FROM tool_outcomes WHERE session_id = $1 AND tool_use_id = $2`,
      [sessionId, toolUseId],
    ))[0],
  );
  if (row === undefined) return undefined;
  const outcome: StoredToolOutcome = { success: row.success === 1 };
  if (row.exit_code !== null) outcome.exit_code = row.exit_code;
  if (row.error !== null) outcome.error = row.error;
  return outcome;
}
