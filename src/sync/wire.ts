/**
 * What `vantage sync` sends a team server, as the push operations' input
 * schemas: a history batch (sessions' facts, hook events, transcript
 * messages, model calls, tool outcomes) and a documents batch. Identifiers
 * are bounded as a hook's are; text is bounded only by the operation's
 * argument limit. Nothing here names a person: the server takes who pushes
 * from the token, never from the batch.
 *
 * @module
 */
import { z } from "zod";
import { ID_MAX_CHARS, NAME_MAX_CHARS, PATH_MAX_CHARS } from "../core/limits.ts";
import { AGENT_NAMES, type AgentName } from "../model/agent_records.ts";

const id = z.string().min(1).max(ID_MAX_CHARS);
const name = z.string().min(1).max(NAME_MAX_CHARS);
const path = z.string().max(PATH_MAX_CHARS);
const ms = z.number().int().min(0);
const count = z.number().int().min(0);
const agent = z.enum(AGENT_NAMES as [AgentName, ...AgentName[]]);

/** A session's facts. */
export const syncSessionSchema = z.object({
  session_id: id,
  agent: name,
  cwd: path.optional(),
  project: path.optional(),
  started_at: ms,
  last_activity_at: ms,
  model: id.optional(),
  git_branch: z.string().max(PATH_MAX_CHARS).optional(),
  title: z.string().max(PATH_MAX_CHARS).optional(),
  parent_session_id: id.optional(),
  is_subagent: z.boolean(),
  subagent_type: name.optional(),
  transcript_path: path.optional(),
});

/** A stored hook event with its delivery id. */
export const syncEventSchema = z.object({
  delivery_id: id,
  received_at: ms,
  event: z.object({
    agent,
    session_id: id,
    cwd: path.optional(),
    project: path.optional(),
    event_type: name,
    ts: ms,
    tool_name: id.optional(),
    tool_use_id: id.optional(),
    file_path: path.optional(),
    command: z.string().optional(),
    command_prefix: z.string().max(PATH_MAX_CHARS).optional(),
    success: z.boolean().optional(),
    error: z.string().optional(),
    duration_ms: z.number().min(0).optional(),
    prompt: z.string().optional(),
    model: id.optional(),
    host: name.optional(),
    raw: z.record(z.string(), z.unknown()),
  }),
});

/** A transcript message under its key. */
export const syncMessageSchema = z.object({
  agent,
  session_id: id,
  message_key: z.string().min(1).max(PATH_MAX_CHARS),
  ts: ms,
  role: z.enum(["user", "assistant", "system", "tool"]),
  message_type: z.enum([
    "user",
    "assistant",
    "thinking",
    "tool_use",
    "tool_result",
    "system",
    "compaction",
    "api_error",
  ]),
  text: z.string(),
  tool_name: id.optional(),
  tool_use_id: id.optional(),
  is_error: z.boolean().optional(),
  model: id.optional(),
  cwd: path.optional(),
  file_path: path.optional(),
  command_prefix: z.string().max(PATH_MAX_CHARS).optional(),
  subagent_id: id.optional(),
});

/** A model call at its stored figures, under its usage key. */
export const syncUsageSchema = z.object({
  agent: name,
  session_id: id,
  ts: ms,
  model: id.optional(),
  usage_key: z.string().min(1).max(PATH_MAX_CHARS),
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  cache_write_1h_tokens: count.optional(),
  reasoning_tokens: count,
  web_search_requests: count.optional(),
  service_tier: name.optional(),
  speed: name.optional(),
  inference_geo: name.optional(),
  calls: count.optional(),
  context_window: count.optional(),
  reported_cost_usd: z.number().min(0).optional(),
});

/** How one tool call ended. */
export const syncOutcomeSchema = z.object({
  agent,
  session_id: id,
  tool_use_id: id,
  ts: ms,
  success: z.boolean(),
  exit_code: z.number().int().optional(),
  error: z.string().optional(),
});

/** One history batch. */
export const historyBatchSchema = z.object({
  sessions: z.array(syncSessionSchema).default([]).describe("Facts of the sessions named below"),
  events: z.array(syncEventSchema).default([]),
  messages: z.array(syncMessageSchema).default([]),
  usage: z.array(syncUsageSchema).default([]),
  outcomes: z.array(syncOutcomeSchema).default([]),
});

/** A history batch as the push takes it. */
export type HistoryBatch = z.infer<typeof historyBatchSchema>;

/** One document version: its bytes and what is attached to it. */
export const syncDocumentSchema = z.object({
  path: z.string().min(1).max(PATH_MAX_CHARS).describe("Its path on the machine it came from"),
  relative_path: z.string().min(1).max(PATH_MAX_CHARS),
  hash: z.string().regex(/^[0-9a-f]{64}$/).describe("SHA-256 of the bytes, hex"),
  content_base64: z.string(),
  modified_at: ms,
  tags: z.array(z.string().min(1).max(NAME_MAX_CHARS)).default([]),
  metadata: z.record(z.string().min(1).max(NAME_MAX_CHARS), z.string()).default({}),
  collections: z.array(z.object({
    name: z.string().min(1).max(NAME_MAX_CHARS),
    relative_path: z.string().min(1).max(PATH_MAX_CHARS),
  })).default([]),
  source_url: z.string().max(PATH_MAX_CHARS).optional(),
});

/** A document as the push takes it. */
export type SyncDocument = z.infer<typeof syncDocumentSchema>;

/** Largest arguments of a push, characters of JSON: a batch, or one large document. */
export const PUSH_ARGUMENT_CHARS = 64 * 1024 * 1024;
