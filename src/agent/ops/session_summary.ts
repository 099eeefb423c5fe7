/**
 * The session-list entry `get_peer_sessions` and `search_sessions` share,
 * so a `session_id` from either goes straight into `get_session_transcript`.
 *
 * @module
 */
import { z } from "zod";
import type { SessionRow } from "../../store/agent/sessions.ts";
import { ago, isoOrNull } from "./common.ts";

/** Schema of one session entry. */
export const sessionSummarySchema = z.object({
  session_id: z.string(),
  agent_source: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  model: z.string().optional(),
  started_at: z.string().nullable().describe(
    "The session's earliest recorded time; null when none of its records had one",
  ),
  last_activity_at: z.string().nullable().describe("null when none of its records had a time"),
  last_activity_ago: z.string(),
  message_count: z.number().int(),
  total_tokens: z.number().int(),
  cost_usd: z.number().describe("Cost of the priced model calls, USD"),
  unpriced_calls: z.number().int().describe(
    "Model calls whose model has no price (their cost is not in cost_usd)",
  ),
  person: z.string().optional().describe("Team mode: whose session (absent: the server owner's)"),
  host: z.string().optional().describe("The machine its hooks came from"),
});

/** One session entry. */
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

/** Builds the entry for a stored session. */
export function summarizeSession(session: SessionRow, now: number): SessionSummary {
  const summary: SessionSummary = {
    session_id: session.session_id,
    agent_source: session.agent,
    cwd: session.cwd ?? session.project ?? "",
    started_at: isoOrNull(session.started_at),
    last_activity_at: isoOrNull(session.last_activity_at),
    last_activity_ago: ago(session.last_activity_at, now),
    message_count: session.message_count,
    total_tokens: session.input_tokens + session.output_tokens + session.cache_read_tokens +
      session.cache_write_tokens,
    cost_usd: Math.round(session.cost_usd * 1e6) / 1e6,
    unpriced_calls: session.unpriced_calls,
  };
  if (session.title !== null) summary.title = session.title;
  if (session.model !== null) summary.model = session.model;
  if (session.person !== null) summary.person = session.person;
  if (session.host !== null) summary.host = session.host;
  return summary;
}
