/**
 * The shapes the store accepts for agent activity. They mirror the ingest
 * layer's normalized records structurally, so the store depends on nothing
 * above it.
 *
 * @module
 */

/** A normalized hook event. */
export interface EventInput {
  /** Canonical agent name. */
  agent: string;
  /** The agent's session id. */
  session_id: string;
  /** Working directory. */
  cwd?: string;
  /** Project root. */
  project?: string;
  /** Canonical event name. */
  event_type: string;
  /** Event time, ms since the epoch. */
  ts: number;
  /** Tool name. */
  tool_name?: string;
  /** Tool call id. */
  tool_use_id?: string;
  /** File the tool touches. */
  file_path?: string;
  /** Shell command. */
  command?: string;
  /** First word(s) of the command. */
  command_prefix?: string;
  /** Tool outcome. */
  success?: boolean;
  /** Error summary. */
  error?: string;
  /** Tool duration. */
  duration_ms?: number;
  /** User prompt. */
  prompt?: string;
  /** Model id. */
  model?: string;
  /** Transcript path. */
  transcript_path?: string;
  /** The original payload. */
  raw: unknown;
}

/** What a transcript says about its session. */
export interface SessionFacts {
  /** Canonical agent name. */
  agent: string;
  /** Session id. */
  session_id: string;
  /** Working directory. */
  cwd?: string;
  /** Start time, ms; absent when the transcript has shown no time yet. */
  started_at?: number;
  /** Model id. */
  model?: string;
  /** Git branch. */
  git_branch?: string;
  /** Title. */
  title?: string;
  /** Parent session. */
  parent_session_id?: string;
  /** A sub-agent run of the parent: listed under it, its counts added to the parent's. */
  is_subagent?: boolean;
  /** The sub-agent's type. */
  subagent_type?: string;
}

/** One transcript message. */
export interface MessageInput {
  /** Canonical agent name. */
  agent: string;
  /** Session id. */
  session_id: string;
  /** Working directory. */
  cwd?: string;
  /** Time, ms. */
  ts: number;
  /** user, assistant, system or tool. */
  role: string;
  /** user, assistant, thinking, tool_use, tool_result or system. */
  message_type: string;
  /** Text. */
  text: string;
  /** Tool name. */
  tool_name?: string;
  /** Tool call id. */
  tool_use_id?: string;
  /** Tool result failed. */
  is_error?: boolean;
  /** Model id. */
  model?: string;
  /** Idempotency key within the session. */
  message_key: string;
  /** File the tool touches. */
  file_path?: string;
  /** First word(s) of a shell command. */
  command_prefix?: string;
  /** Sub-agent the message came from. */
  subagent_id?: string;
}

/** One de-duplicated model call's usage. */
export interface UsageInput {
  /** Canonical agent name. */
  agent: string;
  /** Session id. */
  session_id: string;
  /** Time, ms. */
  ts: number;
  /** Model id. */
  model?: string;
  /** Dedup key, stable across restarts. */
  usage_key: string;
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes, every lifetime. */
  cache_write_tokens: number;
  /** The 1-hour part of the cache writes. */
  cache_write_1h_tokens?: number;
  /** Reasoning tokens (inside output). */
  reasoning_tokens: number;
  /** Server-side web searches. */
  web_search_requests?: number;
  /** Service tier, when stated. */
  service_tier?: string;
  /** `fast` for fast mode, when stated. */
  speed?: string;
  /** Inference region, when stated. */
  inference_geo?: string;
  /** Model calls the record sums (absent = one). */
  calls?: number;
  /** Context window, when reported. */
  context_window?: number;
  /** Cost the agent itself reported (OpenClaw). */
  reported_cost_usd?: number;
}

/** What a call costs: USD, or unpriced when no price fits its model. */
export type CallPrice = { priced: true; usd: number } | { priced: false };
