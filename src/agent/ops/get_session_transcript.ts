/**
 * `get_session_transcript`: one session's conversation, newest page first,
 * by full id or an id prefix (exact id before prefix; an ambiguous prefix
 * lists its candidates instead of guessing).
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import type { SessionRow } from "../../store/agent/sessions.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, cutText, iso, READ_ONLY } from "./common.ts";
import { sessionSummarySchema, summarizeSession } from "./session_summary.ts";

const MESSAGE_TYPES = [
  "assistant",
  "user",
  "thinking",
  "tool_use",
  "tool_result",
  "system",
  "compaction",
  "api_error",
] as const;

/** The `agent.get_session_transcript` operation. */
export const getSessionTranscriptOperation: Operation = defineOperation({
  id: "agent.get_session_transcript",
  title: "Read a session's transcript",
  description:
    "Read one session's messages, newest first. has_more and next_offset page to older ones; takes a session_id from search_sessions, get_peer_sessions or the context block.",
  input: z.object({
    session_id: z.string().min(6).describe("Full id or a prefix"),
    message_limit: clampedInt(1, 200).default(40).describe("Messages per page"),
    offset: z.number().int().min(0).default(0).describe("Skip this many newest messages"),
    content_chars: clampedInt(100, 8000).default(1200).describe("Characters per message"),
    message_type: z.enum(MESSAGE_TYPES).optional().describe("Only this type"),
  }),
  output: z.object({
    session_id: z.string().optional(),
    session: sessionSummarySchema.optional(),
    messages: z.array(z.object({
      ts: z.string(),
      role: z.string(),
      message_type: z.string(),
      text: z.string(),
      tool_name: z.string().optional(),
      is_error: z.boolean().optional(),
      truncated: z.boolean().optional(),
    })),
    offset: z.number().int(),
    has_more: z.boolean(),
    next_offset: z.number().int().optional(),
    candidates: z.array(sessionSummarySchema).optional(),
    note: z.string().optional(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const id = input.session_id.trim();
    // Exact id first: a complete id that prefixes another must not read as ambiguous.
    let session: SessionRow | undefined = await ctx.store.agent.getSession(id);
    if (session === undefined) {
      const matches = await ctx.store.agent.sessionsByPrefix(id, 11);
      if (matches.length > 1) {
        return {
          messages: [],
          offset: 0,
          has_more: false,
          candidates: matches.slice(0, 10).map((m) => summarizeSession(m, ctx.now)),
          note: `'${id}' matches ${
            matches.length > 10 ? "more than 10" : matches.length
          } sessions; call again with a longer prefix or the full id`,
        };
      }
      session = matches[0];
    }
    if (session === undefined) {
      return { messages: [], offset: 0, has_more: false, note: `no session matches '${id}'` };
    }
    const limit = clamp(input.message_limit, 1, 200, 40);
    const offset = input.offset ?? 0;
    const chars = clamp(input.content_chars, 100, 8000, 1200);
    // One extra row tells whether older messages exist, at no extra query.
    const rows = await ctx.store.agent.transcriptPage(session.session_id, {
      limit,
      offset,
      messageType: input.message_type,
    });
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit).reverse();
    const result: Record<string, unknown> = {
      session_id: session.session_id,
      session: summarizeSession(session, ctx.now),
      messages: page.map((m) => {
        const cut = cutText(m.text, chars);
        const message: Record<string, unknown> = {
          ts: iso(m.ts),
          role: m.role,
          message_type: m.message_type,
          text: cut.text,
        };
        if (m.tool_name !== null) message.tool_name = m.tool_name;
        if (m.is_error !== null) message.is_error = m.is_error === 1;
        if (cut.truncated) message.truncated = true;
        return message;
      }),
      offset,
      has_more: hasMore,
    };
    if (hasMore) result.next_offset = offset + limit;
    if (page.length === 0) {
      result.note = offset > 0
        ? "no messages at this offset"
        : "this session has no stored messages";
    }
    return result as never;
  },
});
