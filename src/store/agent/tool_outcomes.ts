/**
 * Tool outcomes read from transcripts, and the hook events they complete.
 *
 * Codex's PostToolUse hook carries a command's output but not its exit code, so its events are
 * stored with `success` unknown. The rollout records the exit code under the same call id,
 * sometimes before the hook arrives and sometimes after: the outcome is kept here, an event
 * stored after it takes it at intake, and an event stored before it is completed when it is
 * recorded. Either way the event ends up as if its hook had said it.
 *
 * @module
 */
import type { ToolOutcome } from "../../model/agent_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader, type SqlParam } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A stored outcome. */
export interface StoredToolOutcome {
  /** `true` when the call succeeded. */
  success: boolean;
  /** Exit code, when the transcript gave one. */
  exit_code?: number;
  /** Error summary of a failed call. */
  error?: string;
}

/** A hook event whose unknown outcome a recorded outcome completed. */
export interface CompletedToolEvent {
  /** Session of the event. */
  session_id: string;
  /** Call id shared by the event and the outcome. */
  tool_use_id: string;
  /** The outcome it took. */
  success: boolean;
  /** Error summary, for a failure. */
  error?: string;
}

/**
 * Records outcomes (the first per call wins) and completes the tool result events of the same
 * calls whose outcome was unknown. Answers the events completed, one entry per call.
 */
export function recordToolOutcomes(
  db: DatabaseSync,
  outcomes: readonly ToolOutcome[],
): CompletedToolEvent[] {
  if (outcomes.length === 0) return [];
  return writing(db, () => {
    const insert = prepared(
      db,
      `
      INSERT OR IGNORE INTO tool_outcomes (session_id, tool_use_id, agent, ts, success, exit_code,
        error)
      VALUES (?, ?, ?, ?, ?, ?, ?)
    `,
    );
    const complete = prepared(
      db,
      `
      UPDATE events SET success = ?, error = coalesce(error, ?)
      WHERE session_id = ? AND tool_use_id = ? AND success IS NULL
        AND event_type IN ('PostToolUse', 'PostToolUseFailure')
    `,
    );
    const completed: CompletedToolEvent[] = [];
    for (const outcome of outcomes) {
      // A call already recorded (a later line of the same call, a re-read file) changes nothing.
      if (Number(insert.run(...outcomeValues(outcome)).changes) === 0) continue;
      const completion = completionOf(outcome);
      if (Number(complete.run(...completion.values).changes) > 0) completed.push(completion.event);
    }
    return completed;
  });
}

/**
 * The parameters of the insert of an outcome (`session_id, tool_use_id, agent, ts, success,
 * exit_code, error`, on both backends).
 */
export function outcomeValues(outcome: ToolOutcome): SqlParam[] {
  return [
    outcome.session_id,
    outcome.tool_use_id,
    outcome.agent,
    outcome.ts,
    outcome.success ? 1 : 0,
    outcome.exit_code ?? null,
    outcome.error ?? null,
  ];
}

/**
 * What a newly recorded outcome does to its call's hook events: the parameters of the
 * update that completes them (`success, error, session_id, tool_use_id`), and the event to
 * report when it completed one (both backends).
 */
export function completionOf(
  outcome: ToolOutcome,
): { values: SqlParam[]; event: CompletedToolEvent } {
  const error = outcome.success ? null : outcome.error ?? null;
  const event: CompletedToolEvent = {
    session_id: outcome.session_id,
    tool_use_id: outcome.tool_use_id,
    success: outcome.success,
  };
  if (error !== null) event.error = error;
  return {
    values: [outcome.success ? 1 : 0, error, outcome.session_id, outcome.tool_use_id],
    event,
  };
}

/** Reads a stored outcome's row (on either backend; {@linkcode storedOutcome} gives its record). */
export const OUTCOME = new RowReader<
  { success: number; exit_code: number | null; error: string | null }
>("tool outcome", { success: "number", exit_code: "number?", error: "text?" });

/** The record of a stored outcome's row (both backends). */
export function storedOutcome(
  row: { success: number; exit_code: number | null; error: string | null } | undefined,
): StoredToolOutcome | undefined {
  if (row === undefined) return undefined;
  const outcome: StoredToolOutcome = { success: row.success === 1 };
  if (row.exit_code !== null) outcome.exit_code = row.exit_code;
  if (row.error !== null) outcome.error = row.error;
  return outcome;
}

/** The recorded outcome of one call, if a transcript has told it yet. */
export function findToolOutcome(
  db: DatabaseSync,
  sessionId: string,
  toolUseId: string,
): StoredToolOutcome | undefined {
  return storedOutcome(OUTCOME.optional(
    prepared(
      db,
      `SELECT success, exit_code, error FROM tool_outcomes WHERE session_id = ? AND tool_use_id = ?`,
    ).get(sessionId, toolUseId),
  ));
}
