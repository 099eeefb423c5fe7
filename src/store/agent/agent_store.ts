/**
 * What the rest of Vantage asks of the agent-activity store: the interface
 * every backend implements (SQLite here; PostgreSQL for team mode), and its
 * SQLite implementation, the functions of this folder bound to a connection.
 * The records written are the shared model types (`src/model`); the rows
 * read are the types below, the same for every backend (flags as 0/1,
 * times in ms, 0 for a time not known yet).
 *
 * @module
 */
import type {
  CallPrice,
  CountedUsage,
  HookEvent,
  SessionInfo,
  ToolOutcome,
  TranscriptMessage,
} from "../../model/agent_records.ts";
import type {
  SessionOwner,
  SyncHookEvent,
  SyncMarks,
  SyncMessage,
  SyncSession,
  SyncUsage,
  UsageOwner,
} from "../../model/sync_records.ts";
import type { DatabaseSync } from "../database.ts";
import { type Answer, bindConnection, type StoreMode } from "../repository.ts";
import {
  type EventRow,
  insertHookEvent,
  recentToolEvents,
  type StoredEventRow,
  storedEventsSince,
  type TimelineEventRow,
  timelineEvents,
  type ToolCount,
  toolCountsFromEvents,
} from "./events.ts";
import { indexedTo, searchMessagesByTerms } from "./message_index.ts";
import {
  insertMessages,
  maxMessageId,
  type MessageRow,
  recentMessages,
  searchMessagesBySubstring,
  type TimelineMessageRow,
  timelineMessages,
  transcriptPage,
} from "./messages.ts";
import {
  lastPrompt,
  recentFiles,
  type ToolCallTotals,
  toolCallTotals,
  toolCountsFromMessages,
  type TouchedFile,
} from "./session_activity.ts";
import {
  activeProjects,
  activeSessionsByAgent,
  getSession,
  getSessions,
  latestSessionFor,
  listSessions,
  listSessionsFiltered,
  type NewSessionRow,
  type SessionListFilter,
  type SessionListRow,
  type SessionRow,
  sessionsAfter,
  sessionsByPrefix,
  type SessionScope,
  sessionsStartedSince,
  subagentsOf,
  type SubagentTotals,
  subagentTotals,
  upsertSessionFacts,
} from "./sessions.ts";
import {
  type CompletedToolEvent,
  findToolOutcome,
  recordToolOutcomes,
  type StoredToolOutcome,
} from "./tool_outcomes.ts";
import {
  hookShellCommands,
  type StoredToolCall,
  type StoredToolTexts,
  type ToolTextWindow,
  transcriptShellCalls,
  transcriptToolCall,
  transcriptToolResults,
} from "./tool_texts.ts";
import {
  claimSessions,
  eventsAfter,
  messagesAfter,
  sessionFacts,
  sessionsTouched,
  syncHighWater,
  toolOutcomesOf,
  usageAfter,
  usageOfSessions,
  usageOwners,
} from "./sync_records.ts";
import {
  getTranscriptCursor,
  saveTranscriptCursor,
  type TranscriptCursor,
} from "./transcript_cursors.ts";
import {
  type CallUsageRow,
  insertUsage,
  repriceUsage,
  sessionUsage,
  type SessionUsageRow,
  type TokenCost,
  unpricedModels,
  type UsageBucketRow,
  usageBuckets,
  usageSince,
  usageTotals,
} from "./usage.ts";

/**
 * The agent-activity store: hook events, sessions, transcript messages,
 * usage and cost, transcript cursors and tool outcomes. Every write is
 * idempotent (delivery ids, message keys, usage keys, call ids), so a
 * replayed spool or a re-read file never counts anything twice; every read
 * is bounded. Each method is the function of the same name in this folder
 * (see there for the details of what it answers).
 */
export interface AgentStore<M extends StoreMode = "sync"> {
  // Writes ------------------------------------------------------------------------------------

  /** Stores a hook event once per delivery id (false: already stored) and touches its session. */
  insertHookEvent(event: HookEvent, deliveryId: string, receivedAt: number): Answer<boolean, M>;
  /** Records what a transcript tells about a session (and makes a sub-agent's parent exist). */
  upsertSessionFacts(facts: SessionInfo, transcriptPath?: string): Answer<void, M>;
  /** Stores messages once per key and moves their sessions' counters; answers how many were new. */
  insertMessages(messages: readonly TranscriptMessage[]): Answer<number, M>;
  /** Stores or merges model calls, priced by `priceOf`; answers how many keys were new. */
  insertUsage(
    records: readonly CountedUsage[],
    priceOf: (record: CountedUsage) => CallPrice,
  ): Answer<number, M>;
  /** Prices every stored call again; answers how many changed. */
  repriceUsage(priceOf: (record: CountedUsage) => CallPrice): Answer<number, M>;
  /** Where a transcript file's reading stopped, if it was read before. */
  getTranscriptCursor(path: string): Answer<TranscriptCursor | undefined, M>;
  /** Saves a transcript file's cursor (in the same transaction as its records). */
  saveTranscriptCursor(cursor: TranscriptCursor, now: number): Answer<void, M>;
  /** Records tool outcomes (first per call wins) and completes the events they tell about. */
  recordToolOutcomes(outcomes: readonly ToolOutcome[]): Answer<CompletedToolEvent[], M>;
  /** The recorded outcome of one tool call, if a transcript told it yet. */
  findToolOutcome(sessionId: string, toolUseId: string): Answer<StoredToolOutcome | undefined, M>;

  // Sessions ----------------------------------------------------------------------------------

  /** One session by exact id. */
  getSession(sessionId: string): Answer<SessionRow | undefined, M>;
  /** The sessions of some exact ids that exist, in id order, each once. */
  getSessions(sessionIds: readonly string[]): Answer<SessionRow[], M>;
  /** Sessions whose id starts with a prefix, newest first. */
  sessionsByPrefix(prefix: string, limit: number): Answer<SessionRow[], M>;
  /** The sub-agent sessions of some parents, oldest first within each. */
  subagentsOf(parentIds: readonly string[], perParent?: number): Answer<SessionRow[], M>;
  /** What the sub-agents of each parent add up to. */
  subagentTotals(parentIds: readonly string[]): Answer<Map<string, SubagentTotals>, M>;
  /** Top-level sessions in a scope, most recently active first. */
  listSessions(scope: SessionScope): Answer<SessionRow[], M>;
  /** The most recently active session in a folder, optionally of one agent. */
  latestSessionFor(cwd: string, agent?: string): Answer<SessionRow | undefined, M>;
  /** Top-level sessions matching the dashboard's filters, a page at a time. */
  listSessionsFiltered(filter: SessionListFilter): Answer<SessionListRow[], M>;
  /** Sessions active since a time, per agent. */
  activeSessionsByAgent(
    since: number,
  ): Answer<Array<{ agent: string; sessions: number; last_activity_at: number }>, M>;
  /** How many top-level sessions started since a time. */
  sessionsStartedSince(since: number): Answer<number, M>;
  /** Sessions created after a position of the change feed (see ChangeMarks), oldest first. */
  sessionsAfter(rowid: number, limit: number): Answer<NewSessionRow[], M>;
  /** Project roots with recent hook activity, most recent first. */
  activeProjects(since: number, limit: number): Answer<string[], M>;

  // Messages and events -----------------------------------------------------------------------

  /** The newest non-empty messages of a session. */
  recentMessages(sessionId: string, limit: number): Answer<MessageRow[], M>;
  /** A page of a session's messages, newest first (`limit` + 1 rows tell of more). */
  transcriptPage(
    sessionId: string,
    options: { limit: number; offset: number; messageType?: string },
  ): Answer<MessageRow[], M>;
  /** Messages containing a substring, newest first, over a bounded window of the scope. */
  searchMessagesBySubstring(
    needle: string,
    sessionIds: readonly string[] | null,
    since: number,
    cap: number,
    scanCap?: number,
  ): Answer<{ rows: MessageRow[]; scanned_all: boolean }, M>;
  /** A session's prompts, tool calls and results, compactions and errors, in time order. */
  timelineMessages(
    sessionId: string,
    limit: number,
    textChars: number,
  ): Answer<TimelineMessageRow[], M>;
  /** The highest message id stored (what the message search index catches up to). */
  maxMessageId(): Answer<number, M>;
  /** The newest tool events of a session. */
  recentToolEvents(sessionId: string, limit: number): Answer<EventRow[], M>;
  /** Calls and failures per tool of a session, from its hook events. */
  toolCountsFromEvents(sessionId: string): Answer<ToolCount[], M>;
  /** A session's hook events in time order. */
  timelineEvents(
    sessionId: string,
    limit: number,
    textChars: number,
  ): Answer<TimelineEventRow[], M>;
  /** A session's latest hook events since a time, as their intake normalized them, oldest first. */
  storedEventsSince(
    sessionId: string,
    since: number,
    limit: number,
  ): Answer<StoredEventRow[], M>;
  /** Calls and failures per tool of a session and its sub-agents, from their transcripts. */
  toolCountsFromMessages(sessionId: string): Answer<ToolCount[], M>;
  /** Files a session touched, newest first. */
  recentFiles(sessionId: string, limit: number): Answer<TouchedFile[], M>;
  /** The latest user prompt of a session. */
  lastPrompt(sessionId: string): Answer<{ text: string; ts: number } | undefined, M>;
  /** Tool calls and failures over a window, each session counted once. */
  toolCallTotals(since: number, until: number): Answer<ToolCallTotals, M>;

  // What the security scan reads --------------------------------------------------------------

  /** Hook events of a window that carry a shell command, newest first. */
  hookShellCommands(window: ToolTextWindow, limit: number): Answer<StoredToolTexts, M>;
  /** Transcript calls of a window to the shell tools named, newest first. */
  transcriptShellCalls(
    window: ToolTextWindow,
    shellTools: readonly string[],
    limit: number,
  ): Answer<StoredToolTexts, M>;
  /** Transcript tool results of a window (their start), newest first. */
  transcriptToolResults(window: ToolTextWindow, limit: number): Answer<StoredToolTexts, M>;
  /** The transcript tool call a result answers. */
  transcriptToolCall(sessionId: string, toolUseId: string): Answer<StoredToolCall | undefined, M>;

  // Usage -------------------------------------------------------------------------------------

  /** Usage per time bucket and per agent or model. */
  usageBuckets(options: {
    since: number;
    until: number;
    bucketMs: number;
    groupBy: "agent" | "model";
    agents?: readonly string[];
  }): Answer<UsageBucketRow[], M>;
  /** Token and cost totals of a window. */
  usageTotals(since: number, until: number): Answer<TokenCost & { calls: number }, M>;
  /** Models of a window's unpriced calls, most calls first. */
  unpricedModels(
    since: number,
    until: number,
    limit: number,
  ): Answer<Array<{ model: string; calls: number }>, M>;
  /** A session's model calls in time order. */
  sessionUsage(sessionId: string, limit: number): Answer<SessionUsageRow[], M>;
  /** A session's model calls since a time, oldest first. */
  usageSince(sessionId: string, since: number): Answer<CallUsageRow[], M>;

  // Laptop to team: what a sync reads locally, and what a team server checks --------------------

  /** The largest position of the events, messages and usage tables. */
  syncHighWater(): Answer<SyncMarks, M>;
  /** Hook events after a position up to another, oldest first. */
  eventsAfter(after: number, through: number, limit: number): Answer<SyncHookEvent[], M>;
  /** Transcript messages after a position up to another, oldest first. */
  messagesAfter(after: number, through: number, limit: number): Answer<SyncMessage[], M>;
  /** Model calls after a position up to another, oldest first. */
  usageAfter(after: number, through: number, limit: number): Answer<SyncUsage[], M>;
  /** The model calls of some sessions at positions up to one, at their current figures. */
  usageOfSessions(sessionIds: readonly string[], through: number): Answer<SyncUsage[], M>;
  /** The sessions records between two sets of positions belong to, in id order. */
  sessionsTouched(after: SyncMarks, through: SyncMarks): Answer<string[], M>;
  /** The tool outcomes recorded for some sessions. */
  toolOutcomesOf(sessionIds: readonly string[]): Answer<ToolOutcome[], M>;
  /** What the store knows of some sessions. */
  sessionFacts(sessionIds: readonly string[]): Answer<SyncSession[], M>;
  /**
   * Creates the sessions (and sub-agents' parents) the store lacks, attributed to `person`
   * on `host`; a stored session keeps its person. Answers who each now belongs to.
   */
  claimSessions(
    sessions: readonly SyncSession[],
    person: string | null,
    host: string | null,
  ): Answer<SessionOwner[], M>;
  /** Whose session each stored one of these usage keys is counted in. */
  usageOwners(usageKeys: readonly string[]): Answer<UsageOwner[], M>;
}

/**
 * Word search over transcript messages. SQLite keeps it in an index file of
 * its own, filled by a worker (message_index.ts), and its queries are FTS5
 * expressions; a server backend keeps a full-text index beside the messages.
 */
export interface MessageSearch<M extends StoreMode = "sync"> {
  /** Messages matching a query, newest first, within sessions (all when null) and a time. */
  searchByTerms(
    query: string,
    sessionIds: readonly string[] | null,
    since: number,
    cap: number,
  ): Answer<MessageRow[], M>;
  /** The highest message id the index covers. */
  indexedTo(): Answer<number, M>;
}

const SQLITE_AGENT_FUNCTIONS = {
  insertHookEvent,
  upsertSessionFacts,
  insertMessages,
  insertUsage,
  repriceUsage,
  getTranscriptCursor,
  saveTranscriptCursor,
  recordToolOutcomes,
  findToolOutcome,
  getSession,
  getSessions,
  sessionsByPrefix,
  subagentsOf,
  subagentTotals,
  listSessions,
  latestSessionFor,
  listSessionsFiltered,
  activeSessionsByAgent,
  sessionsStartedSince,
  sessionsAfter,
  activeProjects,
  recentMessages,
  transcriptPage,
  searchMessagesBySubstring,
  timelineMessages,
  maxMessageId,
  recentToolEvents,
  toolCountsFromEvents,
  timelineEvents,
  storedEventsSince,
  toolCountsFromMessages,
  recentFiles,
  lastPrompt,
  toolCallTotals,
  hookShellCommands,
  transcriptShellCalls,
  transcriptToolResults,
  transcriptToolCall,
  usageBuckets,
  usageTotals,
  unpricedModels,
  sessionUsage,
  usageSince,
  syncHighWater,
  eventsAfter,
  messagesAfter,
  usageAfter,
  usageOfSessions,
  sessionsTouched,
  toolOutcomesOf,
  sessionFacts,
  claimSessions,
  usageOwners,
};

/**
 * The SQLite agent-activity store on one connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "../database.ts";
 * import { sqliteAgentStore } from "./agent_store.ts";
 * const agents = sqliteAgentStore(openDatabase(":memory:"));
 * agents.getSession("nope"); // undefined
 * ```
 */
export function sqliteAgentStore(db: DatabaseSync): AgentStore<"sync"> {
  return bindConnection(db, SQLITE_AGENT_FUNCTIONS);
}

/**
 * The SQLite message search: the store connection the messages are read
 * from, and a connection to the index file (see `openMessageIndex`).
 */
export function sqliteMessageSearch(
  db: DatabaseSync,
  index: DatabaseSync,
): MessageSearch<"sync"> {
  return {
    searchByTerms: (query, sessionIds, since, cap) =>
      searchMessagesByTerms(db, index, query, sessionIds, since, cap),
    indexedTo: () => indexedTo(index),
  };
}
