/**
 * The agent-activity store on PostgreSQL: this folder's functions bound to
 * a pool (or one write's connection), checked by the compiler to hold every
 * method of {@linkcode AgentStore}`<"async">` — the interface SQLite's store
 * implements synchronously — plus the message word search
 * ({@linkcode MessageSearch}), which PostgreSQL answers from the messages'
 * own `tsvector` column. Each module's functions are bound under their own
 * names, which are the interface's.
 *
 * @module
 */
import type { AgentStore, MessageSearch } from "../../agent/agent_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import * as cursorsAndOutcomes from "./cursors_and_outcomes.ts";
import * as events from "./events.ts";
import * as messages from "./messages.ts";
import * as sessionActivity from "./session_activity.ts";
import * as sessions from "./sessions.ts";
import * as syncRecords from "./sync_records.ts";
import * as toolTexts from "./tool_texts.ts";
import * as usage from "./usage.ts";

const PG_AGENT_FUNCTIONS = {
  ...syncRecords,
  ...cursorsAndOutcomes,
  ...events,
  ...messages,
  ...sessionActivity,
  ...sessions,
  ...toolTexts,
  ...usage,
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
      messages.searchMessagesByTerms(q, query, sessionIds, since, cap),
    // The index is written with the row: it covers every stored message.
    indexedTo: () => messages.maxMessageId(q),
  };
}
