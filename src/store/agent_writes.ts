/**
 * Writes of agent activity: hook events and transcript batches. Each write
 * is idempotent (delivery ids, message keys and usage keys are unique), so a
 * replayed spool or a re-read file never counts anything twice, and a
 * transcript batch commits its records together with the file offset.
 *
 * @module
 */
import { type DatabaseSync, writing } from "./database.ts";
import type { EventInput, MessageInput, SessionFacts, UsageInput } from "./agent_records.ts";

/**
 * The earlier of two start times, where 0 means "not known yet" (a transcript whose first
 * lines carry no time): an unknown start never hides a known one.
 */
const EARLIEST_START = `CASE
        WHEN sessions.started_at <= 0 THEN excluded.started_at
        WHEN excluded.started_at <= 0 THEN sessions.started_at
        ELSE min(sessions.started_at, excluded.started_at) END`;

/** Inserts a hook event once per delivery id; false when it was already stored. */
export function insertHookEvent(
  db: DatabaseSync,
  event: EventInput,
  deliveryId: string,
  receivedAt: number,
): boolean {
  return writing(db, () => {
    const inserted = db.prepare(`
      INSERT OR IGNORE INTO events (delivery_id, agent, session_id, cwd, project, event_type, ts,
        tool_name, tool_use_id, file_path, command, command_prefix, success, error, duration_ms,
        prompt, model, received_at, raw)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    `).run(
      deliveryId,
      event.agent,
      event.session_id,
      event.cwd ?? null,
      event.project ?? event.cwd ?? null,
      event.event_type,
      event.ts,
      event.tool_name ?? null,
      event.tool_use_id ?? null,
      event.file_path ?? null,
      event.command ?? null,
      event.command_prefix ?? null,
      event.success === undefined ? null : event.success ? 1 : 0,
      event.error ?? null,
      event.duration_ms ?? null,
      event.prompt ?? null,
      event.model ?? null,
      receivedAt,
      JSON.stringify(event.raw ?? {}),
    );
    if (Number(inserted.changes) === 0) return false;
    db.prepare(`
      INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, model,
        transcript_path, has_hooks, event_count)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, 1)
      ON CONFLICT (session_id) DO UPDATE SET
        cwd = coalesce(excluded.cwd, sessions.cwd),
        project = coalesce(sessions.project, excluded.project),
        started_at = min(sessions.started_at, excluded.started_at),
        last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at),
        model = coalesce(excluded.model, sessions.model),
        transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
        has_hooks = 1,
        event_count = sessions.event_count + 1
    `).run(
      event.session_id,
      event.agent,
      event.cwd ?? null,
      event.project ?? event.cwd ?? null,
      event.ts,
      event.ts,
      event.model ?? null,
      event.transcript_path ?? null,
    );
    return true;
  });
}

/** Counts of what a transcript batch actually added. */
export interface BatchCounts {
  /** Messages newly stored. */
  messages: number;
  /** Usage records newly stored. */
  usage: number;
}

/**
 * Upserts what a transcript says about a session. A sub-agent's facts also make sure its
 * parent has a row (its file may not have been read yet), so the sub-agent is never listed
 * alone and the counts it adds to the parent have somewhere to go.
 */
export function upsertSessionFacts(
  db: DatabaseSync,
  facts: SessionFacts,
  transcriptPath?: string,
): void {
  return writing(db, () => {
    db.prepare(`
      INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, model,
        git_branch, title, parent_session_id, transcript_path, is_subagent, subagent_type)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (session_id) DO UPDATE SET
        cwd = coalesce(sessions.cwd, excluded.cwd),
        project = coalesce(sessions.project, excluded.project),
        started_at = ${EARLIEST_START},
        model = coalesce(excluded.model, sessions.model),
        git_branch = coalesce(excluded.git_branch, sessions.git_branch),
        title = coalesce(excluded.title, sessions.title),
        parent_session_id = coalesce(sessions.parent_session_id, excluded.parent_session_id),
        transcript_path = coalesce(sessions.transcript_path, excluded.transcript_path),
        is_subagent = max(sessions.is_subagent, excluded.is_subagent),
        subagent_type = coalesce(excluded.subagent_type, sessions.subagent_type)
    `).run(
      facts.session_id,
      facts.agent,
      facts.cwd ?? null,
      facts.cwd ?? null,
      facts.started_at,
      facts.started_at,
      facts.model ?? null,
      facts.git_branch ?? null,
      facts.title ?? null,
      facts.parent_session_id ?? null,
      transcriptPath ?? null,
      facts.is_subagent === true ? 1 : 0,
      facts.subagent_type ?? null,
    );
    if (
      facts.is_subagent === true && facts.parent_session_id !== undefined && facts.started_at > 0
    ) {
      db.prepare(`
        INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING
      `).run(
        facts.parent_session_id,
        facts.agent,
        facts.cwd ?? null,
        facts.cwd ?? null,
        facts.started_at,
        facts.started_at,
      );
    }
  });
}

/** Per-session sums of a batch, applied with one upsert per session. */
interface SessionDelta {
  agent: string;
  cwd: string | null;
  first: number;
  last: number;
  messages: number;
  toolCalls: number;
  model: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  cost: number;
  context: number | null;
  contextAt: number;
  contextWindow: number | null;
}

function deltaFor(
  deltas: Map<string, SessionDelta>,
  sessionId: string,
  agent: string,
  ts: number,
): SessionDelta {
  let delta = deltas.get(sessionId);
  if (delta === undefined) {
    delta = {
      agent,
      cwd: null,
      first: ts,
      last: ts,
      messages: 0,
      toolCalls: 0,
      model: null,
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      cost: 0,
      context: null,
      contextAt: -Infinity,
      contextWindow: null,
    };
    deltas.set(sessionId, delta);
  }
  delta.first = Math.min(delta.first, ts);
  delta.last = Math.max(delta.last, ts);
  return delta;
}

function applyDeltas(db: DatabaseSync, deltas: Map<string, SessionDelta>): void {
  const upsert = db.prepare(`
    INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, message_count,
      tool_calls, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      reasoning_tokens, cost_usd, context_tokens, context_window)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      cwd = coalesce(sessions.cwd, excluded.cwd),
      project = coalesce(sessions.project, excluded.project),
      started_at = ${EARLIEST_START},
      last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at),
      message_count = sessions.message_count + excluded.message_count,
      tool_calls = sessions.tool_calls + excluded.tool_calls,
      model = coalesce(excluded.model, sessions.model),
      input_tokens = sessions.input_tokens + excluded.input_tokens,
      output_tokens = sessions.output_tokens + excluded.output_tokens,
      cache_read_tokens = sessions.cache_read_tokens + excluded.cache_read_tokens,
      cache_write_tokens = sessions.cache_write_tokens + excluded.cache_write_tokens,
      reasoning_tokens = sessions.reasoning_tokens + excluded.reasoning_tokens,
      cost_usd = sessions.cost_usd + excluded.cost_usd,
      context_tokens = coalesce(excluded.context_tokens, sessions.context_tokens),
      context_window = coalesce(excluded.context_window, sessions.context_window)
  `);
  const parentOf = db.prepare(
    "SELECT parent_session_id AS parent FROM sessions WHERE session_id = ? AND is_subagent = 1",
  );
  // A sub-agent's counts also go to its parent, whose totals include its sub-agents (as
  // ccusage counts a session); its model and context stay its own.
  const rollup = new Map<string, SessionDelta>();
  for (const [sessionId, d] of deltas) {
    const parent = (parentOf.get(sessionId) as { parent: string | null } | undefined)?.parent;
    if (parent === null || parent === undefined) continue;
    const into = rollup.get(parent);
    if (into === undefined) {
      rollup.set(parent, { ...d, model: null, context: null, contextWindow: null });
    } else {
      into.first = Math.min(into.first, d.first);
      into.last = Math.max(into.last, d.last);
      into.messages += d.messages;
      into.toolCalls += d.toolCalls;
      into.input += d.input;
      into.output += d.output;
      into.cacheRead += d.cacheRead;
      into.cacheWrite += d.cacheWrite;
      into.reasoning += d.reasoning;
      into.cost += d.cost;
      if (into.cwd === null) into.cwd = d.cwd;
    }
  }
  for (const [sessionId, d] of [...deltas, ...rollup]) {
    upsert.run(
      sessionId,
      d.agent,
      d.cwd,
      d.cwd,
      d.first,
      d.last,
      d.messages,
      d.toolCalls,
      d.model,
      d.input,
      d.output,
      d.cacheRead,
      d.cacheWrite,
      d.reasoning,
      d.cost,
      d.context,
      d.contextWindow,
    );
  }
}

/** Stores messages (once per key) and bumps their sessions' counters. */
export function insertMessages(db: DatabaseSync, messages: readonly MessageInput[]): number {
  return writing(db, () => {
    if (messages.length === 0) return 0;
    const insert = db.prepare(`
      INSERT OR IGNORE INTO messages (session_id, agent, message_key, ts, role, message_type, text,
        tool_name, tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    `);
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    for (const m of messages) {
      const result = insert.run(
        m.session_id,
        m.agent,
        m.message_key,
        m.ts,
        m.role,
        m.message_type,
        m.text,
        m.tool_name ?? null,
        m.tool_use_id ?? null,
        m.is_error === undefined ? null : m.is_error ? 1 : 0,
        m.model ?? null,
        m.cwd ?? null,
        m.file_path ?? null,
        m.command_prefix ?? null,
        m.subagent_id ?? null,
      );
      if (Number(result.changes) === 0) continue;
      added++;
      const delta = deltaFor(deltas, m.session_id, m.agent, m.ts);
      delta.messages++;
      if (m.message_type === "tool_use") delta.toolCalls++;
      if (delta.cwd === null && m.cwd !== undefined) delta.cwd = m.cwd;
      if (m.model !== undefined) delta.model = m.model;
    }
    applyDeltas(db, deltas);
    return added;
  });
}

/**
 * Stores usage records (once per key) and adds their tokens and cost to
 * their sessions. `priceOf` turns a record into USD (0 when unknown).
 */
export function insertUsage(
  db: DatabaseSync,
  records: readonly UsageInput[],
  priceOf: (record: UsageInput) => number,
): number {
  return writing(db, () => {
    if (records.length === 0) return 0;
    const insert = db.prepare(`
      INSERT OR IGNORE INTO usage (usage_key, session_id, agent, ts, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, reasoning_tokens, context_window, cost_usd)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    `);
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    for (const u of records) {
      const cost = priceOf(u);
      const result = insert.run(
        u.usage_key,
        u.session_id,
        u.agent,
        u.ts,
        u.model ?? null,
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.reasoning_tokens,
        u.context_window ?? null,
        cost,
      );
      if (Number(result.changes) === 0) continue;
      added++;
      const delta = deltaFor(deltas, u.session_id, u.agent, u.ts);
      delta.input += u.input_tokens;
      delta.output += u.output_tokens;
      delta.cacheRead += u.cache_read_tokens;
      delta.cacheWrite += u.cache_write_tokens;
      delta.reasoning += u.reasoning_tokens;
      delta.cost += cost;
      if (u.model !== undefined) delta.model = u.model;
      if (u.context_window !== undefined) delta.contextWindow = u.context_window;
      if (u.ts >= delta.contextAt) {
        // What the model saw on its latest call: fresh input plus everything read from or written to cache.
        delta.context = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
        delta.contextAt = u.ts;
      }
    }
    applyDeltas(db, deltas);
    return added;
  });
}

/** Where a transcript file's reading stopped, with the parser's state at that point. */
export interface TranscriptCursor {
  /** The file. */
  path: string;
  /** Agent that writes it. */
  agent: string;
  /** Bytes consumed. */
  byte_offset: number;
  /** File size when last read. */
  file_size: number;
  /** Parser state (JSON). */
  parser_state: string;
  /** Lines consumed. */
  lines: number;
  /** Malformed lines skipped. */
  malformed: number;
  /** Lines of record types the parser did not know. */
  unknown_types: number;
}

/** The stored cursor of a transcript file, if it was read before. */
export function getTranscriptCursor(db: DatabaseSync, path: string): TranscriptCursor | undefined {
  return db.prepare(
    `SELECT path, agent, byte_offset, file_size, parser_state, lines, malformed, unknown_types
     FROM transcript_files WHERE path = ?`,
  ).get(path) as TranscriptCursor | undefined;
}

/** Saves a transcript file's cursor (call in the same transaction as its records). */
export function saveTranscriptCursor(
  db: DatabaseSync,
  cursor: TranscriptCursor,
  now: number,
): void {
  return writing(db, () => {
    db.prepare(`
      INSERT INTO transcript_files (path, agent, byte_offset, file_size, parser_state, lines, malformed,
        unknown_types, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (path) DO UPDATE SET byte_offset = excluded.byte_offset, file_size = excluded.file_size,
        parser_state = excluded.parser_state, lines = excluded.lines, malformed = excluded.malformed,
        unknown_types = excluded.unknown_types, updated_at = excluded.updated_at
    `).run(
      cursor.path,
      cursor.agent,
      cursor.byte_offset,
      cursor.file_size,
      cursor.parser_state,
      cursor.lines,
      cursor.malformed,
      cursor.unknown_types,
      now,
    );
  });
}

/** Every stored cursor (for the start-up scan). */
export function listTranscriptCursors(db: DatabaseSync): TranscriptCursor[] {
  return db.prepare(
    `SELECT path, agent, byte_offset, file_size, parser_state, lines, malformed, unknown_types
     FROM transcript_files`,
  ).all() as unknown as TranscriptCursor[];
}
