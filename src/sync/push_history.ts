/**
 * A team server taking one history batch from a person's `vantage sync`:
 * every record is written through the store's agent area under the key
 * local ingestion gave it (delivery id, `(session, message key)`, usage key,
 * `(session, call id)`), so a batch sent twice, or a record also forwarded
 * live by that person's `serve --upstream`, is counted once.
 *
 * Attribution and ownership come from who pushes, never from the batch: the
 * sessions a batch names are claimed for the pusher (a session the server
 * lacks becomes theirs, with the host their request named), and a record is
 * written only into a session that is theirs, and whose parent, for a
 * sub-agent, is theirs too. A record naming anyone else's session is
 * refused and reported, the stored one kept as it was: a usage key already
 * counted in another person's session is never merged into, a delivery id
 * already stored stays its first sender's. A push only adds; it never
 * deletes or rewrites what another person sent.
 *
 * @module
 */
import type {
  CallPrice,
  CountedUsage,
  HookEvent,
  JsonObject,
  ToolOutcome,
} from "../model/agent_records.ts";
import type { SessionOwner, SyncSession } from "../model/sync_records.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import { oversizedHookField } from "../agent/mod.ts";
import { AGENT_NAMES, type AgentName, type SessionInfo } from "../model/agent_records.ts";
import { eachInTurn } from "./in_turn.ts";
import type { HistoryBatch } from "./wire.ts";

/** Who pushes: the person their token names (null: the server's owner) and their host. */
export interface Pusher {
  /** The person; null for the server's owner. */
  person: string | null;
  /** The machine they push from, as their request said. */
  host: string | null;
}

/** A session whose records were refused, and whose it is. */
export interface RefusedSession {
  /** The session. */
  session_id: string;
  /** Who it belongs to on the server (null: the server's owner). */
  owner: string | null;
  /** Records of this batch refused for it. */
  records: number;
}

/** What one history push did. */
export interface HistoryPushReport {
  /** Sessions the server did not have, now the pusher's. */
  sessions_created: number;
  /** Hook events newly stored (the rest were stored already). */
  events: number;
  /** Transcript messages newly stored. */
  messages: number;
  /** Model calls newly stored (a stored one is merged up to the figures sent). */
  usage: number;
  /** Tool outcomes sent for the pusher's sessions (each call's first is kept). */
  outcomes: number;
  /** Records not written because their session is someone else's. */
  refused: number;
  /** The sessions they named (at most {@linkcode REFUSED_LISTED}). */
  refused_sessions: RefusedSession[];
  /** Records refused for what they are (an identifier over its limit), with why. */
  invalid: Array<{ what: string; reason: string }>;
}

/** Refused sessions listed in a report; the count says how many there were. */
export const REFUSED_LISTED = 50;

const AGENTS: ReadonlySet<string> = new Set(AGENT_NAMES);

/** A session's facts from the first record that names it, for a batch that carries none. */
function factsFrom(sessionId: string, agent: string, ts: number): SyncSession {
  return { session_id: sessionId, agent, started_at: ts, last_activity_at: ts, is_subagent: false };
}

/** The facts a transcript's parser would have given, for the store's session upsert. */
function sessionInfo(facts: SyncSession): SessionInfo | undefined {
  if (!AGENTS.has(facts.agent)) return undefined;
  const info: SessionInfo = { agent: facts.agent as AgentName, session_id: facts.session_id };
  if (facts.cwd !== undefined) info.cwd = facts.cwd;
  if (facts.started_at > 0) info.started_at = facts.started_at;
  if (facts.model !== undefined) info.model = facts.model;
  if (facts.git_branch !== undefined) info.git_branch = facts.git_branch;
  if (facts.title !== undefined) info.title = facts.title;
  if (facts.parent_session_id !== undefined) info.parent_session_id = facts.parent_session_id;
  if (facts.is_subagent) info.is_subagent = true;
  if (facts.subagent_type !== undefined) info.subagent_type = facts.subagent_type;
  return info;
}

/**
 * Stores one history batch for `pusher`, with `priceOf` pricing model calls as this server
 * prices its own. Answers what was new, what was refused and why.
 *
 * @example
 * ```ts ignore
 * const report = await pushHistory(store, batch, { person: "ada", host: "ada-laptop" }, price);
 * report.messages; // messages the server did not have
 * ```
 */
export async function pushHistory(
  store: Store<StoreMode>,
  batch: HistoryBatch,
  pusher: Pusher,
  priceOf: (record: CountedUsage) => CallPrice,
): Promise<HistoryPushReport> {
  const report: HistoryPushReport = {
    sessions_created: 0,
    events: 0,
    messages: 0,
    usage: 0,
    outcomes: 0,
    refused: 0,
    refused_sessions: [],
    invalid: [],
  };
  const facts = new Map<string, SyncSession>();
  for (const session of batch.sessions) facts.set(session.session_id, session);
  const name = (sessionId: string, agent: string, ts: number) => {
    if (!facts.has(sessionId)) facts.set(sessionId, factsFrom(sessionId, agent, ts));
  };
  for (const { event } of batch.events) name(event.session_id, event.agent, event.ts);
  for (const m of batch.messages) name(m.session_id, m.agent, m.ts);
  for (const u of batch.usage) name(u.session_id, u.agent, u.ts);
  for (const o of batch.outcomes) name(o.session_id, o.agent, o.ts);
  if (facts.size === 0) return report;

  const known = new Set(
    (await store.agent.sessionFacts([...facts.keys()])).map((s) => s.session_id),
  );
  const owners = new Map<string, SessionOwner>();
  for (
    const owner of await store.agent.claimSessions([...facts.values()], pusher.person, pusher.host)
  ) {
    owners.set(owner.session_id, owner);
  }
  for (const id of facts.keys()) if (!known.has(id) && owners.has(id)) report.sessions_created++;
  const ours = (person: string | null | undefined) => person === pusher.person;
  const writable = new Map<string, boolean>();
  for (const [id, session] of facts) {
    const owner = owners.get(id);
    let ok = owner !== undefined && ours(owner.person);
    if (ok && owner!.is_subagent === 1 && owner!.parent_session_id !== null) {
      ok = ours(owner!.parent_person);
    }
    if (ok && session.is_subagent && session.parent_session_id !== undefined) {
      ok = ours(owners.get(session.parent_session_id)?.person);
    }
    writable.set(id, ok);
  }
  const refusedBy = new Map<string, RefusedSession>();
  const refuse = (sessionId: string, owner = owners.get(sessionId)?.person ?? null) => {
    report.refused++;
    const entry = refusedBy.get(sessionId);
    if (entry !== undefined) entry.records++;
    else refusedBy.set(sessionId, { session_id: sessionId, owner, records: 1 });
  };
  const mine = <T extends { session_id: string }>(records: readonly T[]): T[] =>
    records.filter((record) => {
      if (writable.get(record.session_id) === true) return true;
      refuse(record.session_id);
      return false;
    });

  // Many small writes, each its own transaction on SQLite otherwise: one write for them all.
  const recorded: Array<[SessionInfo, string | undefined]> = [];
  for (const session of facts.values()) {
    const info = writable.get(session.session_id) ? sessionInfo(session) : undefined;
    if (info !== undefined) recorded.push([info, session.transcript_path]);
  }
  if (recorded.length > 0) {
    await store.transaction((s) =>
      eachInTurn(recorded, ([info, path]) => s.agent.upsertSessionFacts(info, path))
    );
  }

  const events: Array<{ deliveryId: string; receivedAt: number; event: HookEvent }> = [];
  for (const { delivery_id, received_at, event } of batch.events) {
    if (writable.get(event.session_id) !== true) {
      refuse(event.session_id);
      continue;
    }
    // What the batch carries is JSON: its payload object is JSON too.
    const stored: HookEvent = { ...event, raw: event.raw as JsonObject };
    if (pusher.person !== null) stored.person = pusher.person;
    const host = pusher.host ?? event.host;
    if (host !== undefined) stored.host = host;
    const oversized = oversizedHookField(stored);
    if (oversized !== undefined) {
      report.invalid.push({ what: `event ${delivery_id}`, reason: oversized });
      continue;
    }
    events.push({ deliveryId: delivery_id, receivedAt: received_at, event: stored });
  }
  if (events.length > 0) {
    const inserted = await store.transaction((s) =>
      eachInTurn(events, (e) => s.agent.insertHookEvent(e.event, e.deliveryId, e.receivedAt))
    );
    report.events = inserted.filter((isNew) => isNew).length;
  }

  const messages = mine(batch.messages);
  if (messages.length > 0) report.messages = await store.agent.insertMessages(messages);

  const usage = mine(batch.usage);
  let accepted: typeof usage = [];
  if (usage.length > 0) {
    // A key counted in another person's session stays theirs: merging would change their totals.
    const elsewhere = new Map<string, { session_id: string; person: string | null }>();
    for (const owner of await store.agent.usageOwners(usage.map((u) => u.usage_key))) {
      if (!ours(owner.person)) elsewhere.set(owner.usage_key, owner);
    }
    accepted = usage.filter((u) => {
      const other = elsewhere.get(u.usage_key);
      if (other === undefined) return true;
      refuse(other.session_id, other.person);
      return false;
    });
    if (accepted.length > 0) report.usage = await store.agent.insertUsage(accepted, priceOf);
  }
  // These sessions' transcripts now count their calls: what their agents' OTLP exports counted
  // is withdrawn, as a transcript read on the laptop would, so a call is counted once.
  const transcribed = new Set([...messages, ...accepted].map((record) => record.session_id));
  if (transcribed.size > 0) await store.telemetry.settleTelemetryCounts(transcribed);

  const outcomes: ToolOutcome[] = mine(batch.outcomes);
  if (outcomes.length > 0) {
    await store.agent.recordToolOutcomes(outcomes);
    report.outcomes = outcomes.length;
  }

  report.refused_sessions = [...refusedBy.values()].slice(0, REFUSED_LISTED);
  return report;
}
