/**
 * The agent-activity store on PostgreSQL: this folder's functions bound to
 * a pool (or one write's connection), checked by the compiler to be exactly
 * {@linkcode AgentStore}`<"async">` — the interface SQLite's store
 * implements synchronously — plus the message word search
 * ({@linkcode MessageSearch}), which PostgreSQL answers from the messages'
 * own `tsvector` column.
 *
 * @module
 */
import type { AgentStore, MessageSearch } from "../../agent/agent_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import {
  findToolOutcome,
  getTranscriptCursor,
  recordToolOutcomes,
  saveTranscriptCursor,
} from "./cursors_and_outcomes.ts";
import {
  insertHookEvent,
  recentToolEvents,
  storedEventsSince,
  timelineEvents,
  toolCountsFromEvents,
} from "./events.ts";
import {
  insertMessages,
  maxMessageId,
  recentMessages,
  searchMessagesBySubstring,
  searchMessagesByTerms,
  timelineMessages,
  transcriptPage,
} from "./messages.ts";
import {
  lastPrompt,
  recentFiles,
  toolCallTotals,
  toolCountsFromMessages,
} from "./session_activity.ts";
import {
  hookShellCommands,
  transcriptShellCalls,
  transcriptToolCall,
  transcriptToolResults,
} from "./tool_texts.ts";
import {
  activeProjects,
  activeSessionsByAgent,
  getSession,
  latestSessionFor,
  listSessions,
  listSessionsFiltered,
  sessionsAfter,
  sessionsByPrefix,
  sessionsStartedSince,
  subagentsOf,
  subagentTotals,
  upsertSessionFacts,
} from "./sessions.ts";
import {
  insertUsage,
  repriceUsage,
  sessionUsage,
  unpricedModels,
  usageBuckets,
  usageSince,
  usageTotals,
} from "./usage.ts";

const PG_AGENT_FUNCTIONS = {
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
};

/**
 * The PostgreSQL agent-activity store on a pool or a write's connection.
 *
 * @example
 * ```ts ignore
 * import { pgAgentStore } from "./agent_store.ts";
 * const agents = pgAgentStore(pool);
 * await agents.getSession("nope"); // undefined
 * ```
 */
export function pgAgentStore(q: PgQueryable): AgentStore<"async"> {
  return bindQueryable(q, PG_AGENT_FUNCTIONS);
}

/** The PostgreSQL message search: the `tsvector` index is part of each message's row. */
export function pgMessageSearch(q: PgQueryable): MessageSearch<"async"> {
  return {
    searchByTerms: (query, sessionIds, since, cap) =>
      searchMessagesByTerms(q, query, sessionIds, since, cap),
    // The index is written with the row: it covers every stored message.
    indexedTo: () => maxMessageId(q),
  };
}
