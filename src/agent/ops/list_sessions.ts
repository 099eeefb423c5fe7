/**
 * `list_sessions`: the sessions of every agent, filtered by agent, project,
 * time window, cost, open anomalies and (on a team server) person, most
 * recently active first, one page at a time. The dashboard's session list reads through it.
 *
 * Sub-agent runs (Claude Code Task/Agent calls, its compaction agent) are not
 * listed on their own: each parent carries them under `subagents`, with their
 * type and own counts, and the parent's counts include theirs (as ccusage
 * counts a session) with its own share under `own`. Filters and paging apply
 * to parents.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { PATH_MAX_CHARS } from "../../core/limits.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  agentContext,
  agentSourceSchema,
  clamp,
  durationMin,
  personFilterSchema,
  READ_ONLY,
  resolveAgentFilter,
  resolveProject,
} from "./common.ts";
import { resolveWindow, sinceMinSchema, untilMinSchema, windowEnd } from "./dashboard_window.ts";
import { sessionSummarySchema, summarizeSession } from "./session_summary.ts";
import {
  ownCounts,
  sessionCountsSchema,
  subagentEntry,
  subagentEntrySchema,
} from "./subagent_entries.ts";

/** Sub-agents listed at most under one parent (`subagent_count` says how many there are). */
const SUBAGENTS_PER_PARENT = 100;

/** Schema of one listed session. */
export const listedSessionSchema = sessionSummarySchema.extend({
  project: z.string(),
  git_branch: z.string().optional(),
  parent_session_id: z.string().optional(),
  has_hooks: z.boolean(),
  event_count: z.number().int(),
  tool_calls: z.number().int(),
  anomaly_count: z.number().int(),
  tokens: z.object({
    input: z.number().int(),
    output: z.number().int(),
    cache_read: z.number().int(),
    cache_write: z.number().int(),
  }),
  duration_min: z.number().nullable().describe("null when the session's start is not known"),
  subagent_count: z.number().int().describe("Sub-agent runs of this session"),
  subagents: z.array(subagentEntrySchema).describe(
    "This session's sub-agents, oldest first, each with its own counts",
  ),
  own: sessionCountsSchema.optional().describe(
    "With sub-agents: this session's own share of the counts, which include theirs",
  ),
});

/** The `agent.list_sessions` operation. */
export const listSessionsOperation: Operation = defineOperation({
  id: "agent.list_sessions",
  title: "List sessions",
  description:
    "Agent sessions across projects, newest first, by agent, time, cost, open anomalies, person; sub-agents nest in their parent.",
  input: z.object({
    agent_source: agentSourceSchema,
    // Bounded: it becomes a LIKE pattern, which SQLite refuses past 50,000 bytes.
    project: z.string().max(PATH_MAX_CHARS).optional().describe(
      "Path prefix or bare name (default: every project)",
    ),
    since_min: sinceMinSchema(10_080),
    until_min: untilMinSchema,
    min_cost_usd: z.number().min(0).optional().describe("Only sessions costing at least this"),
    has_anomalies: z.boolean().optional().describe(
      "true: with open anomalies; false: without",
    ),
    person: personFilterSchema,
    limit: clampedInt(1, 200).default(50).describe("Sessions per page"),
    offset: z.number().int().min(0).default(0).describe("Skip this many"),
  }),
  output: z.object({
    count: z.number().int(),
    sessions: z.array(listedSessionSchema),
    offset: z.number().int(),
    has_more: z.boolean(),
    next_offset: z.number().int().optional(),
    since: z.string(),
    until: z.string(),
    agent_filter: z.string(),
    project: z.string(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const filter = resolveAgentFilter(input.agent_source, ctx.caller, false);
    const text = (input.project ?? "").trim();
    const project = text === "" || text === "*"
      ? { project: "*", all: true }
      : resolveProject(text, ctx.cwd, true);
    const window = resolveWindow(ctx.now, input.since_min, input.until_min, 10_080);
    const limit = clamp(input.limit, 1, 200, 50);
    const offset = input.offset ?? 0;
    const rows = await ctx.store.agent.listSessionsFiltered({
      agents: filter.agents,
      projectPrefix: "prefix" in project ? project.prefix : undefined,
      projectName: "name" in project ? project.name : undefined,
      since: window.since,
      until: window.until,
      minCost: input.min_cost_usd,
      hasAnomalies: input.has_anomalies,
      person: input.person,
      limit,
      offset,
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const ids = page.map((row) => row.session_id);
    const totals = await ctx.store.agent.subagentTotals(ids);
    const children = await ctx.store.agent.subagentsOf(ids, SUBAGENTS_PER_PARENT);
    const sessions = page.map((row) => {
      const mine = children.filter((child) => child.parent_session_id === row.session_id);
      const sums = totals.get(row.session_id);
      const entry: z.infer<typeof listedSessionSchema> = {
        ...summarizeSession(row, ctx.now),
        project: row.project ?? row.cwd ?? "",
        has_hooks: row.has_hooks === 1,
        event_count: row.event_count,
        tool_calls: row.tool_calls,
        anomaly_count: row.anomaly_count,
        tokens: {
          input: row.input_tokens,
          output: row.output_tokens,
          cache_read: row.cache_read_tokens,
          cache_write: row.cache_write_tokens,
        },
        duration_min: durationMin(row.started_at, row.last_activity_at),
        subagent_count: sums?.count ?? 0,
        subagents: mine.map(subagentEntry),
      };
      if (sums !== undefined) entry.own = ownCounts(row, sums);
      if (row.git_branch !== null) entry.git_branch = row.git_branch;
      if (row.parent_session_id !== null) entry.parent_session_id = row.parent_session_id;
      return entry;
    });
    const result: Record<string, unknown> = {
      count: sessions.length,
      sessions,
      offset,
      has_more: hasMore,
      since: new Date(window.since).toISOString(),
      until: windowEnd(window, ctx.now),
      agent_filter: filter.label,
      project: project.project,
    };
    if (hasMore) result.next_offset = offset + limit;
    return result as never;
  },
});
