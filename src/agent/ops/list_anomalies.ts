/**
 * `list_anomalies`: the anomaly feed across sessions — what was seen, what
 * to do about it — filterable by kind, project, severity and session, with
 * counts per kind and per project for the filter chips.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, ago, clamp, iso, READ_ONLY } from "./common.ts";
import { resolveWindow, sinceMinSchema } from "./dashboard_window.ts";
import { anomalySchema } from "./state_builders.ts";

const facetSchema = z.array(z.object({ value: z.string(), count: z.number().int() }));

/** The `agent.list_anomalies` operation. */
export const listAnomaliesOperation: Operation = defineOperation({
  id: "agent.list_anomalies",
  title: "Anomaly feed",
  description:
    "Anomalies across sessions, newest first, with evidence and suggestion; counts per kind and project.",
  input: z.object({
    kind: z.string().optional().describe("Only this kind"),
    project: z.string().optional().describe("Only this project (its root path)"),
    severity: z.string().meta({ enum: ["info", "warning", "critical"] }).optional().describe(
      "Only this severity",
    ),
    session_id: z.string().optional().describe("Only this session"),
    since_min: sinceMinSchema(10_080),
    include_resolved: z.boolean().default(false).describe("Also resolved ones"),
    limit: clampedInt(1, 200).default(50).describe("Most anomalies"),
  }),
  output: z.object({
    count: z.number().int(),
    // One anomaly as a session's state shows it, plus where it happened and when it ended.
    anomalies: z.array(anomalySchema.extend({
      id: z.number().int(),
      session_id: z.string(),
      agent: z.string().optional(),
      session_title: z.string().optional(),
      project: z.string(),
      last_emitted_ago: z.string(),
      resolved_at: z.string().optional(),
    })),
    by_kind: facetSchema,
    by_project: facetSchema,
    since: z.string(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const window = resolveWindow(ctx.now, input.since_min, undefined, 10_080);
    const filter = {
      since: window.since,
      kind: blankToUndefined(input.kind),
      project: blankToUndefined(input.project),
      severity: blankToUndefined(input.severity),
      sessionId: blankToUndefined(input.session_id),
      includeResolved: input.include_resolved ?? false,
      limit: clamp(input.limit, 1, 200, 50),
    };
    const rows = await ctx.store.perception.anomalyFeed(filter);
    const facets = await ctx.store.perception.anomalyFacets(filter);
    return {
      count: rows.length,
      anomalies: rows.map((row) => {
        const entry: Record<string, unknown> = {
          id: row.id,
          session_id: row.session_id,
          project: row.project ?? "",
          kind: row.kind,
          severity: row.severity,
          channel: row.channel,
          evidence: row.evidence,
          suggestion: row.suggestion,
          related_files: parseList(row.related_files),
          first_emitted_at: iso(row.first_emitted_at),
          last_emitted_at: iso(row.last_emitted_at),
          last_emitted_ago: ago(row.last_emitted_at, ctx.now),
          emit_count: row.emit_count,
        };
        if (row.agent !== null) entry.agent = row.agent;
        if (row.title !== null) entry.session_title = row.title;
        if (row.resolved_at !== null) entry.resolved_at = iso(row.resolved_at);
        return entry;
      }),
      by_kind: facets.kinds,
      by_project: facets.projects,
      since: iso(window.since),
    } as never;
  },
});

function blankToUndefined(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text === undefined || text === "" ? undefined : text;
}

function parseList(text: string): string[] {
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}
