/**
 * How a session's sub-agents are shown: each with its type and its own counts, and the
 * parent's own share beside its totals (which include every sub-agent, as ccusage counts a
 * session). Shared by `list_sessions` and `session_timeline`.
 *
 * @module
 */
import { z } from "zod";
import type { SessionRow, SubagentTotals } from "../../store/agent/sessions.ts";
import { durationMin, isoOrNull } from "./common.ts";

/** Schema of a session's counters. */
export const sessionCountsSchema = z.object({
  message_count: z.number().int(),
  tool_calls: z.number().int(),
  tokens: z.object({
    input: z.number().int(),
    output: z.number().int(),
    cache_read: z.number().int(),
    cache_write: z.number().int(),
  }),
  total_tokens: z.number().int(),
  cost_usd: z.number(),
  unpriced_calls: z.number().int().describe(
    "Model calls no price fits: their cost is not in cost_usd (unpriced, not free)",
  ),
});

/** A session's counters. */
export type SessionCounts = z.infer<typeof sessionCountsSchema>;

/** Schema of one sub-agent under its parent. */
export const subagentEntrySchema = sessionCountsSchema.extend({
  session_id: z.string(),
  subagent_type: z.string().optional(),
  title: z.string().optional().describe("The task description the parent gave it"),
  model: z.string().optional(),
  started_at: z.string().nullable().describe("null when no record gave a time"),
  last_activity_at: z.string().nullable(),
  duration_min: z.number().nullable().describe("null when the start is not known"),
});

/** One sub-agent under its parent. */
export type SubagentEntry = z.infer<typeof subagentEntrySchema>;

/** The counters of a stored session row. */
export function countsOf(row: SessionRow): SessionCounts {
  return {
    message_count: row.message_count,
    tool_calls: row.tool_calls,
    tokens: {
      input: row.input_tokens,
      output: row.output_tokens,
      cache_read: row.cache_read_tokens,
      cache_write: row.cache_write_tokens,
    },
    total_tokens: row.input_tokens + row.output_tokens + row.cache_read_tokens +
      row.cache_write_tokens,
    cost_usd: roundUsd(row.cost_usd),
    unpriced_calls: row.unpriced_calls,
  };
}

/** A sub-agent's entry. */
export function subagentEntry(row: SessionRow): SubagentEntry {
  const entry: SubagentEntry = {
    session_id: row.session_id,
    started_at: isoOrNull(row.started_at),
    last_activity_at: isoOrNull(row.last_activity_at),
    duration_min: durationMin(row.started_at, row.last_activity_at),
    ...countsOf(row),
  };
  if (row.subagent_type !== null) entry.subagent_type = row.subagent_type;
  if (row.title !== null) entry.title = row.title;
  if (row.model !== null) entry.model = row.model;
  return entry;
}

/** The parent's own share: its totals less what its sub-agents add up to. */
export function ownCounts(parent: SessionRow, children: SubagentTotals): SessionCounts {
  const less = (total: number, part: number) => Math.max(0, total - part);
  const input = less(parent.input_tokens, children.input_tokens);
  const output = less(parent.output_tokens, children.output_tokens);
  const cacheRead = less(parent.cache_read_tokens, children.cache_read_tokens);
  const cacheWrite = less(parent.cache_write_tokens, children.cache_write_tokens);
  return {
    message_count: less(parent.message_count, children.message_count),
    tool_calls: less(parent.tool_calls, children.tool_calls),
    tokens: { input, output, cache_read: cacheRead, cache_write: cacheWrite },
    total_tokens: input + output + cacheRead + cacheWrite,
    cost_usd: roundUsd(less(parent.cost_usd, children.cost_usd)),
    unpriced_calls: less(parent.unpriced_calls, children.unpriced_calls),
  };
}

function roundUsd(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
