/**
 * `session_timeline`: one session on one time axis — prompts, tool calls
 * with their durations and failures, file edits, anomalies and builds — plus
 * its model calls' token use for the token and cache-hit charts. Tool calls
 * come from the transcript when there is one, else from hook events, so a
 * session reported both ways shows each call once.
 *
 * Compactions, API errors and side chains are events of their own: each
 * sub-agent run of the session is one `sidechain` item spanning its run (its
 * own calls are on its own timeline, reachable by its `session_id`), as is a
 * side chain written inside the main transcript by older Claude Code versions.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import type { SessionRow } from "../../store/agent/sessions.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { Store } from "../../store/store.ts";
import type { TimelineEventRow } from "../../store/agent/events.ts";
import type { TimelineMessageRow } from "../../store/agent/messages.ts";
import { OperationFailure } from "../../core/errors.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, cutText, durationMin, iso, READ_ONLY } from "./common.ts";
import { sessionSummarySchema, summarizeSession } from "./session_summary.ts";
import { sessionSince } from "./state_builders.ts";
import {
  ownCounts,
  sessionCountsSchema,
  subagentEntry,
  subagentEntrySchema,
} from "./subagent_entries.ts";

/** Sub-agents shown at most on one timeline. */
const SUBAGENT_LIMIT = 200;

/** Tool names that change files (every agent's spelling). */
const EDIT_TOOLS =
  /^(write|edit|multiedit|notebookedit|apply_patch|str_replace\w*|create|write_file|edit_file|replace|patch)$/i;

const itemSchema = z.object({
  ts: z.string(),
  t: z.number().describe("Epoch milliseconds"),
  kind: z.enum([
    "prompt",
    "tool",
    "file_edit",
    "anomaly",
    "build",
    "event",
    "compaction",
    "api_error",
    "sidechain",
  ]),
  label: z.string(),
  detail: z.string().optional(),
  tool_name: z.string().optional(),
  duration_ms: z.number().optional(),
  failed: z.boolean().optional(),
  file_path: z.string().optional(),
  severity: z.string().optional(),
  session_id: z.string().optional().describe("For a sub-agent run: its own session"),
  subagent_type: z.string().optional(),
});

type Item = z.infer<typeof itemSchema>;

const usagePointSchema = z.object({
  t: z.number(),
  model: z.string().optional(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  cost_usd: z.number(),
  unpriced: z.boolean().optional().describe("true when no price fits the call's model"),
  cache_hit_pct: z.number(),
});

/** The `agent.session_timeline` operation. */
export const sessionTimelineOperation: Operation = defineOperation({
  id: "agent.session_timeline",
  title: "Session timeline",
  description:
    "One session on a time axis: prompts, tool calls, edits, compactions, API errors, sub-agent runs, anomalies, builds, tokens.",
  input: z.object({
    session_id: z.string().min(6).describe("Full id or a unique prefix"),
    limit: clampedInt(10, 2000).default(800).describe("Most items"),
    text_chars: clampedInt(40, 1000).default(200).describe("Text characters per item"),
  }),
  output: z.object({
    session: sessionSummarySchema.extend({
      project: z.string(),
      duration_min: z.number().nullable(),
      tool_calls: z.number().int(),
      is_subagent: z.boolean(),
      subagent_type: z.string().optional(),
      parent_session_id: z.string().optional(),
    }),
    parent: z.object({ session_id: z.string(), title: z.string().optional() }).optional()
      .describe("For a sub-agent: the session that started it"),
    subagents: z.array(subagentEntrySchema),
    subagent_count: z.number().int(),
    own: sessionCountsSchema.optional(),
    started_at: z.number().nullable().describe("Epoch ms; null when the start is not known"),
    ended_at: z.number(),
    items: z.array(itemSchema),
    usage: z.array(usagePointSchema),
    counts: z.object({
      prompts: z.number().int(),
      tool_calls: z.number().int(),
      tool_failures: z.number().int(),
      file_edits: z.number().int(),
      anomalies: z.number().int(),
      builds: z.number().int(),
      compactions: z.number().int(),
      api_errors: z.number().int(),
      sidechains: z.number().int(),
    }),
    source: z.enum(["transcript", "hooks", "none"]),
    truncated: z.boolean(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const session = await findSession(ctx.store, input.session_id.trim());
    const limit = clamp(input.limit, 10, 2000, 800);
    const chars = clamp(input.text_chars, 40, 1000, 200);
    const messages = await ctx.store.agent.timelineMessages(session.session_id, limit + 1, chars);
    const events = await ctx.store.agent.timelineEvents(session.session_id, limit + 1, chars);
    let truncated = messages.length > limit || events.length > limit;
    const fromTranscript = messages.some((m) =>
      m.message_type === "tool_use" || m.message_type === "user"
    );
    const isSubagent = session.is_subagent === 1;
    const items: Item[] = fromTranscript
      ? transcriptItems(messages.slice(0, limit), chars, !isSubagent)
      : hookItems(events.slice(0, limit), chars);
    if (!fromTranscript) {
      // Compactions and API errors are only in the transcript; hooks tell the rest.
      items.push(...transcriptItems(
        messages.slice(0, limit).filter((m) =>
          m.message_type === "compaction" || m.message_type === "api_error"
        ),
        chars,
        false,
      ));
    }
    const children = isSubagent
      ? []
      : await ctx.store.agent.subagentsOf([session.session_id], SUBAGENT_LIMIT);
    for (const child of children) items.push(subagentItem(child));
    if (fromTranscript) {
      // Session start and stop come only from hooks; they still mark the axis.
      for (const event of events) {
        if (
          event.event_type === "SessionStart" || event.event_type === "Stop" ||
          event.event_type === "SessionEnd"
        ) {
          items.push(eventItem(event));
        }
      }
    }
    const project = session.project ?? session.cwd ?? "";
    if (project !== "") {
      for (
        const change of await ctx.store.perception.sessionFileChanges(
          project,
          session.session_id,
          sessionSince(session),
          200,
        )
      ) {
        items.push({
          ts: iso(change.ts),
          t: change.ts,
          kind: "file_edit",
          label: `${change.kind} ${baseName(change.path)}`,
          file_path: change.path,
          detail: "seen by the file watcher",
        });
      }
    }
    const anomalies = await ctx.store.perception.anomalyFeed({
      since: 0,
      sessionId: session.session_id,
      includeResolved: true,
      limit: 200,
    });
    for (const anomaly of anomalies) {
      items.push({
        ts: iso(anomaly.first_emitted_at),
        t: anomaly.first_emitted_at,
        kind: "anomaly",
        label: anomaly.kind,
        detail: cutText(anomaly.evidence, chars).text,
        severity: anomaly.severity,
      });
    }
    const builds = await ctx.store.perception.buildRunsBetween(
      project === "" ? null : project,
      sessionSince(session) - 60_000,
      session.last_activity_at + 60_000,
      200,
    );
    for (const build of builds) {
      items.push({
        ts: iso(build.started_at),
        t: build.started_at,
        kind: "build",
        label: `${build.tag}: ${
          build.exit_code === 0 ? "passed" : `failed (exit ${build.exit_code})`
        }`,
        detail: build.command,
        duration_ms: build.duration_ms,
        failed: build.exit_code !== 0,
      });
    }
    items.sort((a, b) => a.t - b.t);
    if (items.length > limit) {
      items.length = limit;
      truncated = true;
    }
    const usage = (await ctx.store.agent.sessionUsage(session.session_id, 2000)).map((u) => {
      const inputSide = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
      const point: z.infer<typeof usagePointSchema> = {
        t: u.ts,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_write_tokens: u.cache_write_tokens,
        cost_usd: Math.round(u.cost_usd * 1e6) / 1e6,
        cache_hit_pct: inputSide === 0
          ? 0
          : Math.round((u.cache_read_tokens / inputSide) * 1000) / 10,
      };
      if (u.model !== null) point.model = u.model;
      if (u.priced === 0) point.unpriced = true;
      return point;
    });
    const tools = items.filter((i) => i.kind === "tool");
    const sums = isSubagent
      ? undefined
      : (await ctx.store.agent.subagentTotals([session.session_id])).get(
        session.session_id,
      );
    const summary: Record<string, unknown> = {
      ...summarizeSession(session, ctx.now),
      project,
      duration_min: durationMin(session.started_at, session.last_activity_at),
      tool_calls: session.tool_calls,
      is_subagent: isSubagent,
    };
    if (session.subagent_type !== null) summary.subagent_type = session.subagent_type;
    if (session.parent_session_id !== null) {
      summary.parent_session_id = session.parent_session_id;
    }
    const extra: Record<string, unknown> = {};
    if (isSubagent && session.parent_session_id !== null) {
      const parent = await ctx.store.agent.getSession(session.parent_session_id);
      extra.parent = {
        session_id: session.parent_session_id,
        ...(parent?.title !== null && parent?.title !== undefined ? { title: parent.title } : {}),
      };
    }
    if (sums !== undefined) extra.own = ownCounts(session, sums);
    return {
      session: summary as never,
      ...extra,
      subagents: children.map(subagentEntry),
      subagent_count: sums?.count ?? 0,
      started_at: session.started_at > 0 ? session.started_at : null,
      ended_at: session.last_activity_at,
      items,
      usage,
      counts: {
        prompts: items.filter((i) => i.kind === "prompt").length,
        tool_calls: tools.length,
        tool_failures: tools.filter((i) => i.failed === true).length,
        file_edits: items.filter((i) => i.kind === "file_edit").length,
        anomalies: anomalies.length,
        builds: builds.length,
        compactions: items.filter((i) => i.kind === "compaction").length,
        api_errors: items.filter((i) => i.kind === "api_error").length,
        sidechains: items.filter((i) => i.kind === "sidechain").length,
      },
      source: fromTranscript
        ? "transcript" as const
        : events.length > 0
        ? "hooks" as const
        : "none" as const,
      truncated,
    };
  },
});

async function findSession(store: Store<StoreMode>, id: string): Promise<SessionRow> {
  const exact = await store.agent.getSession(id);
  if (exact !== undefined) return exact;
  const matches = await store.agent.sessionsByPrefix(id, 2);
  if (matches.length === 1) return matches[0];
  throw new OperationFailure(
    matches.length === 0
      ? `no session matches '${id}'`
      : `'${id}' matches more than one session; give a longer prefix or the full id`,
    { session_id: id },
  );
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/**
 * Items from a transcript. With `sideChains`, messages of a side chain (a sub-agent inside a
 * main transcript) become one `sidechain` item each instead of prompts and tool calls.
 */
function transcriptItems(
  messages: readonly TimelineMessageRow[],
  chars: number,
  sideChains: boolean,
): Item[] {
  const items: Item[] = [];
  const results = new Map<string, TimelineMessageRow>();
  const chains = new Map<string, TimelineMessageRow[]>();
  for (const m of messages) {
    if (m.message_type === "tool_result" && m.tool_use_id !== null) results.set(m.tool_use_id, m);
  }
  for (const m of messages) {
    if (sideChains && m.subagent_id !== null) {
      const chain = chains.get(m.subagent_id) ?? [];
      chain.push(m);
      chains.set(m.subagent_id, chain);
      continue;
    }
    if (m.message_type === "user") {
      if (m.text.trim() === "") continue;
      items.push({ ts: iso(m.ts), t: m.ts, kind: "prompt", label: cutText(m.text, chars).text });
    } else if (m.message_type === "compaction") {
      items.push(compactionItem(m, chars));
    } else if (m.message_type === "api_error") {
      const label = cutText(firstLine(m.text), 160).text;
      items.push({
        ts: iso(m.ts),
        t: m.ts,
        kind: "api_error",
        label,
        ...(label === m.text.trim() ? {} : { detail: cutText(m.text, chars).text }),
        failed: true,
      });
    } else if (m.message_type === "tool_use") {
      const result = m.tool_use_id === null ? undefined : results.get(m.tool_use_id);
      const item: Item = {
        ts: iso(m.ts),
        t: m.ts,
        kind: "tool",
        label: toolLabel(m.tool_name, m.command_prefix, m.file_path),
        tool_name: m.tool_name ?? "tool",
        detail: cutText(m.text, chars).text,
      };
      if (result !== undefined) {
        item.duration_ms = Math.max(0, result.ts - m.ts);
        item.failed = result.is_error === 1;
        if (item.failed) item.detail = cutText(result.text, chars).text;
      }
      if (m.file_path !== null) item.file_path = m.file_path;
      items.push(item);
      if (m.file_path !== null && m.tool_name !== null && EDIT_TOOLS.test(m.tool_name)) {
        items.push({
          ts: iso(m.ts),
          t: m.ts,
          kind: "file_edit",
          label: `${m.tool_name} ${baseName(m.file_path)}`,
          file_path: m.file_path,
          ...(item.failed === true ? { failed: true } : {}),
        });
      }
    }
  }
  for (const chain of chains.values()) items.push(sideChainItem(chain, chars));
  return items;
}

function compactionItem(m: TimelineMessageRow, chars: number): Item {
  // A compact_boundary record says so itself; older versions left only the summary.
  const boundary = m.text.startsWith("Conversation compacted");
  return {
    ts: iso(m.ts),
    t: m.ts,
    kind: "compaction",
    label: boundary ? cutText(firstLine(m.text), 160).text : "Earlier conversation summarized",
    ...(boundary ? {} : { detail: cutText(m.text, chars).text }),
  };
}

function sideChainItem(chain: readonly TimelineMessageRow[], chars: number): Item {
  const first = chain[0];
  const last = chain[chain.length - 1];
  const prompt = chain.find((m) => m.message_type === "user" && m.text.trim() !== "");
  const calls = chain.filter((m) => m.message_type === "tool_use").length;
  const failures = chain.filter((m) => m.message_type === "tool_result" && m.is_error === 1)
    .length;
  const item: Item = {
    ts: iso(first.ts),
    t: first.ts,
    kind: "sidechain",
    label: `Side chain${
      prompt !== undefined ? `: ${cutText(firstLine(prompt.text), 120).text}` : ""
    }`,
    detail: `${calls} tool call${calls === 1 ? "" : "s"}${
      failures > 0 ? `, ${failures} failed` : ""
    }`,
    duration_ms: Math.max(0, last.ts - first.ts),
  };
  if (prompt !== undefined && chars > 0) item.detail += `\n${cutText(prompt.text, chars).text}`;
  return item;
}

function subagentItem(child: SessionRow): Item {
  const tokens = child.input_tokens + child.output_tokens + child.cache_read_tokens +
    child.cache_write_tokens;
  const type = child.subagent_type ?? "sub-agent";
  const item: Item = {
    ts: iso(child.started_at),
    t: child.started_at,
    kind: "sidechain",
    label: `Sub-agent ${type}${child.title !== null ? `: ${child.title}` : ""}`,
    detail: `${child.tool_calls} tool call${
      child.tool_calls === 1 ? "" : "s"
    } · ${child.message_count} messages · ${tokens} tokens · $${
      (Math.round(child.cost_usd * 1e4) / 1e4).toString()
    }`,
    duration_ms: Math.max(0, child.last_activity_at - child.started_at),
    session_id: child.session_id,
  };
  if (child.subagent_type !== null) item.subagent_type = child.subagent_type;
  return item;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0];
  return line ?? "";
}

function hookItems(events: readonly TimelineEventRow[], chars: number): Item[] {
  const items: Item[] = [];
  const pending = new Map<string, TimelineEventRow>();
  for (const e of events) {
    if (e.event_type === "UserPromptSubmit" && e.prompt !== null) {
      items.push({ ts: iso(e.ts), t: e.ts, kind: "prompt", label: cutText(e.prompt, chars).text });
    } else if (e.event_type === "PreToolUse") {
      if (e.tool_use_id !== null) pending.set(e.tool_use_id, e);
    } else if (e.event_type === "PostToolUse" || e.event_type === "PostToolUseFailure") {
      const pre = e.tool_use_id === null ? undefined : pending.get(e.tool_use_id);
      const start = pre?.ts ?? e.ts;
      const failed = e.event_type === "PostToolUseFailure" || e.success === 0;
      const item: Item = {
        ts: iso(start),
        t: start,
        kind: "tool",
        label: toolLabel(e.tool_name, e.command_prefix, e.file_path),
        tool_name: e.tool_name ?? "tool",
        failed,
      };
      const duration = e.duration_ms ?? (pre !== undefined ? e.ts - pre.ts : undefined);
      if (duration !== undefined) item.duration_ms = Math.max(0, duration);
      if (failed && e.error !== null) item.detail = e.error;
      if (e.file_path !== null) item.file_path = e.file_path;
      items.push(item);
      if (e.file_path !== null && e.tool_name !== null && EDIT_TOOLS.test(e.tool_name)) {
        items.push({
          ts: iso(start),
          t: start,
          kind: "file_edit",
          label: `${e.tool_name} ${baseName(e.file_path)}`,
          file_path: e.file_path,
          ...(failed ? { failed: true } : {}),
        });
      }
    } else if (e.event_type !== "PostToolBatch") {
      items.push(eventItem(e));
    }
  }
  return items;
}

function eventItem(e: TimelineEventRow): Item {
  const item: Item = { ts: iso(e.ts), t: e.ts, kind: "event", label: e.event_type };
  if (e.error !== null) item.detail = e.error;
  return item;
}

function toolLabel(tool: string | null, command: string | null, file: string | null): string {
  const name = tool ?? "tool";
  if (command !== null) return `${name}: ${command}`;
  if (file !== null) return `${name} ${baseName(file)}`;
  return name;
}
