/**
 * `get_peer_sessions`: recent sessions on this project from the other coding
 * agents (or, asked for `self`, the caller's own), with their latest
 * messages at a chosen level of detail.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { AGENT_NAMES } from "../../model/agent_records.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  agentContext,
  agentSourceSchema,
  ago,
  clamp,
  cutText,
  iso,
  READ_ONLY,
  resolveAgentFilter,
  resolveProject,
} from "./common.ts";
import { sessionSummarySchema, summarizeSession } from "./session_summary.ts";

const DETAIL = {
  summary: { messages: 0, chars: 0 },
  preview: { messages: 3, chars: 240 },
  full: { messages: 40, chars: 1200 },
} as const;

const messageSchema = z.object({
  ts: z.string(),
  role: z.string(),
  message_type: z.string(),
  text: z.string(),
  truncated: z.boolean().optional(),
});

/** The `agent.get_peer_sessions` operation. */
export const getPeerSessionsOperation: Operation = defineOperation({
  id: "agent.get_peer_sessions",
  title: "Peer agents' recent sessions",
  description:
    'What other agents are doing in this project. Their recent sessions, newest first, with the latest messages; agent_source "" = every agent but you, self = your own.',
  input: z.object({
    agent_source: agentSourceSchema,
    detail: z.enum(["summary", "preview", "full"]).default("preview").describe(
      "summary: no messages; preview: 3 at 240 chars; full: 40 at 1200 chars",
    ),
    limit: clampedInt(1, 5).default(1).describe("Sessions per agent"),
    since_min: clampedInt(1, 525_600).default(1440).describe("Lookback, minutes"),
    project: z.string().optional().describe("Path prefix or bare name (default: your folder)"),
    message_limit: clampedInt(1, 100).optional().describe(
      "Deprecated, use detail: messages per session",
    ),
  }),
  output: z.object({
    project: z.string(),
    agent_filter: z.string(),
    count: z.number().int(),
    sessions: z.array(sessionSummarySchema.extend({
      is_latest_for_cwd: z.boolean().optional(),
      messages: z.array(messageSchema).optional(),
    })),
    most_recent_session: z.object({
      agent_source: z.string(),
      session_id: z.string(),
      last_activity_at: z.string(),
      last_activity_ago: z.string(),
    }).optional(),
    partial_failures: z.record(z.string(), z.string()).optional(),
    note: z.string().optional(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const filter = resolveAgentFilter(input.agent_source, ctx.caller, true);
    const project = resolveProject(input.project, ctx.cwd, false);
    const limit = clamp(input.limit, 1, 5, 1);
    const since = ctx.now - clamp(input.since_min, 1, 525_600, 1440) * 60_000;
    const detail = DETAIL[input.detail ?? "preview"];
    const messageCount = input.message_limit !== undefined
      ? clamp(input.message_limit, 1, 100, 20)
      : detail.messages;
    const chars = input.message_limit !== undefined ? 1200 : detail.chars;
    const agents = filter.agents ?? [...AGENT_NAMES];
    const sessions = [];
    const failures: Record<string, string> = {};
    for (const agent of agents) {
      try {
        // The limit applies per agent, so one busy agent cannot crowd out the others.
        sessions.push(
          ...await ctx.store.agent.listSessions({
            projectPrefix: project.prefix,
            projectName: project.name,
            agents: [agent],
            since,
            limit,
            nonEmpty: true,
          }),
        );
      } catch (error) {
        failures[agent] = error instanceof Error ? error.message : String(error);
      }
    }
    sessions.sort((a, b) => b.last_activity_at - a.last_activity_at);
    const latestSelfInCwd = filter.self
      ? sessions.find((s) => s.cwd === ctx.cwd || s.project === ctx.cwd)?.session_id
      : undefined;
    const entries = await Promise.all(sessions.map(async (session) => {
      const entry: Record<string, unknown> = {
        ...summarizeSession(session, ctx.now),
      };
      if (filter.self) entry.is_latest_for_cwd = session.session_id === latestSelfInCwd;
      if (messageCount > 0) {
        entry.messages = (await ctx.store.agent.recentMessages(session.session_id, messageCount))
          .reverse().map(
            (m) => {
              const cut = cutText(m.text, chars);
              const message: z.infer<typeof messageSchema> = {
                ts: iso(m.ts),
                role: m.role,
                message_type: m.message_type,
                text: cut.text,
              };
              if (cut.truncated) message.truncated = true;
              return message;
            },
          );
      }
      return entry;
    }));
    const result: Record<string, unknown> = {
      project: project.project,
      agent_filter: filter.label,
      count: entries.length,
      sessions: entries,
    };
    if (sessions.length > 0) {
      const top = sessions[0];
      result.most_recent_session = {
        agent_source: top.agent,
        session_id: top.session_id,
        last_activity_at: iso(top.last_activity_at),
        last_activity_ago: ago(top.last_activity_at, ctx.now),
      };
    }
    if (Object.keys(failures).length > 0) result.partial_failures = failures;
    else if (entries.length === 0) {
      result.note = "no peer sessions found for this project in the time window";
    }
    return result as never;
  },
});
