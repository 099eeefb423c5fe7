/**
 * `search_sessions`: which past sessions mentioned something. The scope
 * (project, agent, time) is resolved first, then a word search over the
 * scope's messages, widening to a case-folded substring search when the
 * words find nothing — and the answer says which mode produced the hits.
 *
 * A sub-agent run is part of its parent: words said inside it find the
 * parent session, and the snippet names the sub-agent (`subagent_session_id`)
 * so its own transcript can be read.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import type { MessageRow } from "../../store/agent/messages.ts";
import type { SessionRow } from "../../store/agent/sessions.ts";
import { MESSAGE_SEARCH } from "../../ops/service_keys.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  agentContext,
  agentSourceSchema,
  clamp,
  iso,
  READ_ONLY,
  resolveAgentFilter,
  resolveProject,
} from "./common.ts";
import { sessionSummarySchema, summarizeSession } from "./session_summary.ts";

/** Most sessions a scope may hold before the search covers a subset. */
const SCOPE_CAP = 500;
/** Messages the substring pass examines at most, newest first. */
const SUBSTRING_SCAN_CAP = 20_000;
/** Characters either side of a match in a snippet. */
const WINDOW = 120;
/** Sub-agents of each session in scope whose messages are searched too. */
const SUBAGENTS_PER_SESSION = 200;

const snippetSchema = z.object({
  ts: z.string(),
  role: z.string(),
  message_type: z.string(),
  text: z.string(),
  subagent_session_id: z.string().optional().describe(
    "Said inside this sub-agent run of the session",
  ),
  subagent_type: z.string().optional(),
});

/** The words of a query as an FTS5 expression: every word, each quoted. */
export function ftsExpression(query: string): string | undefined {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"`).join(" ");
}

/** A ±120-character window around the first match, measured in characters. */
export function snippetAround(text: string, query: string): string {
  const lower = text.toLowerCase();
  let index = lower.indexOf(query.toLowerCase());
  if (index === -1) {
    const first = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .map((word) =>
        lower.search(
          new RegExp(`(?<![\\p{L}\\p{N}])${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u"),
        )
      )
      .filter((i) => i >= 0);
    index = first.length > 0 ? Math.min(...first) : 0;
  }
  // Cut a generous UTF-16 region first (long tool outputs are common), then count characters in it,
  // so CJK and emoji get the same window as ASCII.
  const regionStart = Math.max(0, index - 4 * WINDOW);
  const regionEnd = Math.min(text.length, index + query.length + 4 * WINDOW);
  const before = [...text.slice(regionStart, index)];
  const after = [...text.slice(index, regionEnd)];
  const head = before.slice(Math.max(0, before.length - WINDOW));
  const tail = after.slice(0, [...query].length + WINDOW);
  const cutHead = regionStart > 0 || head.length < before.length;
  const cutTail = regionEnd < text.length || tail.length < after.length;
  return (cutHead ? "…" : "") + head.join("") + tail.join("") + (cutTail ? "…" : "");
}

/** The `agent.search_sessions` operation. */
export const searchSessionsOperation: Operation = defineOperation({
  id: "agent.search_sessions",
  title: "Search past sessions",
  description:
    "How did we fix this error before? Past sessions found by what was said in them, with matching snippets and the session_id get_session_transcript reads.",
  input: z.object({
    query: z.string().min(1).describe("Keyword or phrase"),
    agent_source: agentSourceSchema,
    project: z.string().optional().describe(
      "Path prefix, bare name or * for all (default: your folder)",
    ),
    since_min: clampedInt(1, 5_256_000).default(10_080).describe("Lookback, minutes"),
    limit: clampedInt(1, 10).default(5).describe("Sessions"),
    snippet_limit: clampedInt(1, 10).default(3).describe("Snippets per session"),
  }),
  output: z.object({
    query: z.string(),
    project: z.string(),
    agent_filter: z.string(),
    match_mode: z.enum(["term", "substring"]),
    count: z.number().int(),
    sessions: z.array(sessionSummarySchema.extend({
      hit_count: z.number().int(),
      snippets: z.array(snippetSchema),
    })),
    scope_truncated: z.boolean(),
    note: z.string().optional(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const filter = resolveAgentFilter(input.agent_source, ctx.caller, false);
    const project = resolveProject(input.project, ctx.cwd, true);
    const since = ctx.now - clamp(input.since_min, 1, 5_256_000, 10_080) * 60_000;
    const limit = clamp(input.limit, 1, 10, 5);
    const snippetLimit = clamp(input.snippet_limit, 1, 10, 3);
    // Scope first: a busy unrelated project must not fill the candidates and blank this one.
    const unscoped = project.all && filter.agents === undefined;
    const scope = unscoped ? [] : await ctx.store.agent.listSessions({
      projectPrefix: project.prefix,
      projectName: project.name,
      agents: filter.agents,
      since,
      limit: SCOPE_CAP + 1,
    });
    const scopeTruncated = scope.length > SCOPE_CAP;
    const parents = scope.slice(0, SCOPE_CAP).map((s) => s.session_id);
    const children = unscoped
      ? []
      : await ctx.store.agent.subagentsOf(parents, SUBAGENTS_PER_SESSION);
    const scopeIds = unscoped ? null : [...parents, ...children.map((c) => c.session_id)];
    // The session rows the answer needs: a scope's are read above; an unscoped search reads its
    // hits' sessions in one statement after the search, and their sub-agents' parents in one more
    // (on PostgreSQL a read per hit was a round trip each, most of a search's time).
    const rows = new Map<string, SessionRow>([...scope, ...children].map((s) => [s.session_id, s]));
    const readMissing = async (ids: Iterable<string>): Promise<void> => {
      const missing = [...new Set(ids)].filter((id) => !rows.has(id));
      if (missing.length === 0) return;
      for (const row of await ctx.store.agent.getSessions(missing)) rows.set(row.session_id, row);
    };
    const expression = ftsExpression(input.query);
    // Matches are walked newest first up to a cap sized to what the answer shows, so a word in
    // half a million messages costs no more than a rare one; hit_count counts within that cap.
    const candidateCap = clamp(limit * snippetLimit * 10, 200, 2000, 200);
    let mode: "term" | "substring" = "term";
    let substringPartial = false;
    let hits: MessageRow[] = expression === undefined ? [] : await context.services.get(
      MESSAGE_SEARCH,
    ).searchByTerms(
      expression,
      scopeIds,
      since,
      candidateCap,
    );
    if (hits.length === 0) {
      mode = "substring";
      const found = await ctx.store.agent.searchMessagesBySubstring(
        input.query,
        scopeIds,
        since,
        candidateCap,
        SUBSTRING_SCAN_CAP,
      );
      hits = found.rows;
      substringPartial = !found.scanned_all;
    }
    if (unscoped) await readMissing(hits.map((hit) => hit.session_id));
    // Hits inside a sub-agent count for its parent, whose row is read with any others missing.
    const subagents = new Map<string, SessionRow>();
    const parentsOfHits: string[] = [];
    for (const id of new Set(hits.map((hit) => hit.session_id))) {
      const row = rows.get(id);
      if (row?.is_subagent === 1 && row.parent_session_id !== null) {
        subagents.set(id, row);
        parentsOfHits.push(row.parent_session_id);
      }
    }
    await readMissing(parentsOfHits);
    const subagentOf = (id: string): SessionRow | undefined => subagents.get(id);
    const bySession = new Map<string, MessageRow[]>();
    for (const hit of hits) {
      const root = subagentOf(hit.session_id)?.parent_session_id ?? hit.session_id;
      const list = bySession.get(root) ?? [];
      list.push(hit);
      bySession.set(root, list);
    }
    const entries = [];
    for (const [sessionId, sessionHits] of bySession) {
      if (entries.length === limit) break;
      const row = rows.get(sessionId);
      if (row === undefined) continue;
      entries.push({
        ...summarizeSession(row, ctx.now),
        hit_count: sessionHits.length,
        snippets: sessionHits.slice(0, snippetLimit).map((m) => {
          const snippet: z.infer<typeof snippetSchema> = {
            ts: iso(m.ts),
            role: m.role,
            message_type: m.message_type,
            text: snippetAround(m.text, input.query),
          };
          const sub = subagentOf(m.session_id);
          if (sub !== undefined) {
            snippet.subagent_session_id = sub.session_id;
            if (sub.subagent_type !== null) snippet.subagent_type = sub.subagent_type;
          }
          return snippet;
        }),
      });
    }
    const result: Record<string, unknown> = {
      query: input.query,
      project: project.project,
      agent_filter: filter.label,
      match_mode: mode,
      count: entries.length,
      sessions: entries,
      scope_truncated: scopeTruncated || substringPartial,
    };
    if (substringPartial) {
      result.note =
        `the substring pass covered the newest ${SUBSTRING_SCAN_CAP} messages in scope; narrow project, agent_source or since_min to reach older ones`;
    }
    if (entries.length === 0) {
      result.note = `nothing matched '${input.query}' in this scope and time window`;
    }
    return result as never;
  },
});
