/**
 * The records `vantage sync` moves from a local store to a team server:
 * what the agent-activity store holds, read back with the position it has
 * in its table (`seq`, growing with insertion, what a sync cursor counts),
 * and a session's facts as the store keeps them. Every record keeps the key
 * local ingestion stored it under (delivery id, `(session, message key)`,
 * usage key, `(session, call id)`), so the server stores each once however
 * often it is sent.
 *
 * @module
 */
import type { CountedUsage, HookEvent, TranscriptMessage } from "./agent_records.ts";

/** A stored hook event, as a team server takes it again. */
export interface SyncHookEvent {
  /** Its position in the local table. */
  seq: number;
  /** The delivery id it was stored under (what keeps it once anywhere). */
  delivery_id: string;
  /** When its hook received it, ms. */
  received_at: number;
  /** The event as stored (no person: the server attributes it to whoever pushes it). */
  event: HookEvent;
}

/** A stored transcript message with its position. */
export interface SyncMessage {
  /** Its position in the local table. */
  seq: number;
  /** The message. */
  message: TranscriptMessage;
}

/** A stored model call with its position. */
export interface SyncUsage {
  /** Its position in the local table (a merge of grown figures keeps it). */
  seq: number;
  /** The call at its stored figures. */
  usage: CountedUsage;
}

/** What a store knows of a session, as another store takes it. */
export interface SyncSession {
  /** The agent's session id. */
  session_id: string;
  /** Agent (or application) that ran it. */
  agent: string;
  /** Working directory. */
  cwd?: string;
  /** Project root. */
  project?: string;
  /** Start, ms (0: not known). */
  started_at: number;
  /** Last activity, ms (0: not known). */
  last_activity_at: number;
  /** Latest model. */
  model?: string;
  /** Git branch at the start. */
  git_branch?: string;
  /** Title. */
  title?: string;
  /** Session it was spawned from. */
  parent_session_id?: string;
  /** A sub-agent run of its parent (its counts are also the parent's). */
  is_subagent: boolean;
  /** The sub-agent's type. */
  subagent_type?: string;
  /** Its transcript file, on the machine that read it. */
  transcript_path?: string;
}

/** How far each table of the agent-activity store reaches: the largest position in each. */
export interface SyncMarks {
  /** Hook events. */
  events: number;
  /** Transcript messages. */
  messages: number;
  /** Model calls. */
  usage: number;
}

/** Who a stored session belongs to, as a server answers a claim. */
export interface SessionOwner {
  /** The session. */
  session_id: string;
  /** The person it is attributed to; null for the server's owner. */
  person: string | null;
  /** Its parent, when it has one. */
  parent_session_id: string | null;
  /** 1 for a sub-agent run, whose counts go to its parent too. */
  is_subagent: number;
  /** Its parent's person (null: the server's owner's, or no parent stored). */
  parent_person: string | null;
}

/** Whose session a stored model call is counted in. */
export interface UsageOwner {
  /** The call's key. */
  usage_key: string;
  /** The session it is stored under. */
  session_id: string;
  /** That session's person (null: the server's owner, or no session row). */
  person: string | null;
}
