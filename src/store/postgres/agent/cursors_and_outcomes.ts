/**
 * Transcript cursors and tool outcomes on PostgreSQL: how far each
 * transcript file was read, and how each tool call ended (completing the
 * hook events that did not say) — SQLite's statements
 * (../../agent/transcript_cursors.ts, ../../agent/tool_outcomes.ts, whose
 * readers and parameters are used as they are) in PostgreSQL's dialect.
 *
 * @module
 */
import type { ToolOutcome } from "../../../model/agent_records.ts";
import {
  type CompletedToolEvent,
  completionOf,
  OUTCOME,
  outcomeValues,
  storedOutcome,
  type StoredToolOutcome,
} from "../../agent/tool_outcomes.ts";
import { CURSOR, type TranscriptCursor } from "../../agent/transcript_cursors.ts";
import type { PgQueryable } from "../connection.ts";
import { readOptionalRow, readRows, wroteAny } from "../reads.ts";
import { lockSessions } from "./session_totals.ts";

/** The stored cursor of a transcript file, if it was read before. */
export function getTranscriptCursor(
  q: PgQueryable,
  path: string,
): Promise<TranscriptCursor | undefined> {
  const sql = `SELECT ${CURSOR.columns} FROM transcript_files WHERE path = $1`;
  return readOptionalRow(q, CURSOR, sql, [path]);
}

/** Every stored transcript cursor. */
export function listTranscriptCursors(q: PgQueryable): Promise<TranscriptCursor[]> {
  return readRows(q, CURSOR, `SELECT ${CURSOR.columns} FROM transcript_files`);
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
    [...CURSOR.valuesOf(cursor), now],
  );
}

const INSERT_OUTCOME = `
  INSERT INTO tool_outcomes (session_id, tool_use_id, agent, ts, success, exit_code, error)
  VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING ts`;

const COMPLETE_EVENTS = `
  UPDATE events SET success = $1, error = coalesce(error, $2)
  WHERE session_id = $3 AND tool_use_id = $4 AND success IS NULL
    AND event_type IN ('PostToolUse', 'PostToolUseFailure')
  RETURNING id`;

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
      if (!await wroteAny(w, INSERT_OUTCOME, outcomeValues(outcome))) continue;
      const completion = completionOf(outcome);
      if (await wroteAny(w, COMPLETE_EVENTS, completion.values)) completed.push(completion.event);
    }
    return completed;
  });
}

/** The recorded outcome of one call, if a transcript has told it yet. */
export async function findToolOutcome(
  q: PgQueryable,
  sessionId: string,
  toolUseId: string,
): Promise<StoredToolOutcome | undefined> {
  const sql =
    `SELECT success, exit_code, error FROM tool_outcomes WHERE session_id = $1 AND tool_use_id = $2`;
  return storedOutcome(await readOptionalRow(q, OUTCOME, sql, [sessionId, toolUseId]));
}
