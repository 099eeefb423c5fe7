/**
 * Writes of agent activity: hook events and transcript batches. Each write
 * is idempotent (delivery ids, message keys and usage keys are unique), so a
 * replayed spool or a re-read file never counts anything twice, and a
 * transcript batch commits its records together with the file offset. A
 * usage record whose key is stored already merges into it, each field
 * keeping the larger value: the final figures of a call win however its
 * lines were split across reads, and the session totals move by the
 * difference only.
 *
 * A session's `started_at` / `last_activity_at` are 0 while no record with a
 * time was seen ("unknown", never the epoch): the upserts below take the
 * earliest real start and ignore 0.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { type DatabaseSync, writing } from "./database.ts";
import type {
  CallPrice,
  EventInput,
  MessageInput,
  SessionFacts,
  UsageInput,
} from "./agent_records.ts";

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
        started_at = ${EARLIEST_START},
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
      facts.started_at ?? 0,
      facts.started_at ?? 0,
      facts.model ?? null,
      facts.git_branch ?? null,
      facts.title ?? null,
      facts.parent_session_id ?? null,
      transcriptPath ?? null,
      facts.is_subagent === true ? 1 : 0,
      facts.subagent_type ?? null,
    );
    const start = facts.started_at ?? 0;
    if (facts.is_subagent === true && facts.parent_session_id !== undefined && start > 0) {
      db.prepare(`
        INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING
      `).run(
        facts.parent_session_id,
        facts.agent,
        facts.cwd ?? null,
        facts.cwd ?? null,
        start,
        start,
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
  unpriced: number;
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
      first: Infinity,
      last: 0,
      messages: 0,
      toolCalls: 0,
      model: null,
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      cost: 0,
      unpriced: 0,
      context: null,
      contextAt: -Infinity,
      contextWindow: null,
    };
    deltas.set(sessionId, delta);
  }
  // A record without a time (ts 0) tells nothing about when the session ran.
  if (ts > 0) {
    delta.first = Math.min(delta.first, ts);
    delta.last = Math.max(delta.last, ts);
  }
  return delta;
}

function applyDeltas(db: DatabaseSync, deltas: Map<string, SessionDelta>): void {
  const upsert = db.prepare(`
    INSERT INTO sessions (session_id, agent, cwd, project, started_at, last_activity_at, message_count,
      tool_calls, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
      reasoning_tokens, cost_usd, unpriced_calls, context_tokens, context_window)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
      unpriced_calls = sessions.unpriced_calls + excluded.unpriced_calls,
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
      into.unpriced += d.unpriced;
      if (into.cwd === null) into.cwd = d.cwd;
    }
  }
  for (const [sessionId, d] of [...deltas, ...rollup]) {
    upsert.run(
      sessionId,
      d.agent,
      d.cwd,
      d.cwd,
      d.first === Infinity ? 0 : d.first,
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
      d.unpriced,
      d.context,
      d.contextWindow,
    );
  }
}

const MESSAGE_COLUMNS = `session_id, agent, message_key, ts, role, message_type, text, tool_name,
  tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id`;
const MESSAGE_ROW = `(${Array(15).fill("?").join(", ")})`;

/**
 * Messages written by one statement: a backfill stores tens of thousands, and a statement per
 * message costs a quarter more than the rows themselves.
 */
const MESSAGES_PER_INSERT = 32;

function messageInsert(db: DatabaseSync, rows: number) {
  return db.prepare(
    `INSERT OR IGNORE INTO messages (${MESSAGE_COLUMNS})
     VALUES ${Array(rows).fill(MESSAGE_ROW).join(", ")}`,
  );
}

function pushMessageValues(values: SQLInputValue[], m: MessageInput): void {
  values.push(
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
}

/** Stores messages (once per key) and bumps their sessions' counters. */
export function insertMessages(db: DatabaseSync, messages: readonly MessageInput[]): number {
  return writing(db, () => {
    if (messages.length === 0) return 0;
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    const stored = (m: MessageInput) => {
      added++;
      const delta = deltaFor(deltas, m.session_id, m.agent, m.ts);
      delta.messages++;
      if (m.message_type === "tool_use") delta.toolCalls++;
      if (delta.cwd === null && m.cwd !== undefined) delta.cwd = m.cwd;
      if (m.model !== undefined) delta.model = m.model;
    };
    // Rows a statement adds get ids above every id stored before it (nothing else writes inside
    // this transaction), so when it ignores some keys, the ones it stored are found by id.
    let maxId = (db.prepare("SELECT coalesce(max(id), 0) AS id FROM messages").get() as {
      id: number;
    }).id;
    const storedSince = (after: number) =>
      new Set(
        (db.prepare("SELECT session_id, message_key FROM messages WHERE id > ?").all(
          after,
        ) as Array<
          { session_id: string; message_key: string }
        >).map((row) => `${row.session_id}\u0000${row.message_key}`),
      );
    const run = (
      insert: ReturnType<typeof messageInsert>,
      from: number,
      to: number,
    ) => {
      const values: SQLInputValue[] = [];
      for (let i = from; i < to; i++) pushMessageValues(values, messages[i]);
      const result = insert.run(...values);
      const changes = Number(result.changes);
      if (changes === to - from) {
        for (let i = from; i < to; i++) stored(messages[i]);
      } else if (changes > 0) {
        const keys = storedSince(maxId);
        for (let i = from; i < to; i++) {
          const m = messages[i];
          // A key twice in one statement: its first row is the one stored.
          if (keys.delete(`${m.session_id}\u0000${m.message_key}`)) stored(m);
        }
      }
      if (changes > 0) maxId = Number(result.lastInsertRowid);
    };
    let next = 0;
    if (messages.length >= MESSAGES_PER_INSERT) {
      const many = messageInsert(db, MESSAGES_PER_INSERT);
      for (; next + MESSAGES_PER_INSERT <= messages.length; next += MESSAGES_PER_INSERT) {
        run(many, next, next + MESSAGES_PER_INSERT);
      }
    }
    if (next < messages.length) {
      const one = messageInsert(db, 1);
      for (; next < messages.length; next++) run(one, next, next + 1);
    }
    applyDeltas(db, deltas);
    return added;
  });
}

/** The stored figures of one call, as {@linkcode insertUsage} merges them. */
interface StoredUsage {
  session_id: string;
  agent: string;
  ts: number;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  web_search_requests: number;
  service_tier: string | null;
  speed: string | null;
  inference_geo: string | null;
  context_window: number | null;
  reported_cost_usd: number | null;
  calls: number;
  cost_usd: number;
  priced: number;
}

const MERGED_COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cache_write_1h_tokens",
  "reasoning_tokens",
  "web_search_requests",
  "calls",
] as const;

function asInput(row: StoredUsage, key: string): UsageInput {
  const input: UsageInput = {
    agent: row.agent,
    session_id: row.session_id,
    ts: row.ts,
    usage_key: key,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cache_read_tokens: row.cache_read_tokens,
    cache_write_tokens: row.cache_write_tokens,
    cache_write_1h_tokens: row.cache_write_1h_tokens,
    reasoning_tokens: row.reasoning_tokens,
    web_search_requests: row.web_search_requests,
    calls: row.calls,
  };
  if (row.model !== null) input.model = row.model;
  if (row.service_tier !== null) input.service_tier = row.service_tier;
  if (row.speed !== null) input.speed = row.speed;
  if (row.inference_geo !== null) input.inference_geo = row.inference_geo;
  if (row.context_window !== null) input.context_window = row.context_window;
  if (row.reported_cost_usd !== null) input.reported_cost_usd = row.reported_cost_usd;
  return input;
}

function stored(u: UsageInput, price: CallPrice): StoredUsage {
  return {
    session_id: u.session_id,
    agent: u.agent,
    ts: u.ts,
    model: u.model ?? null,
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_tokens: u.cache_read_tokens,
    cache_write_tokens: u.cache_write_tokens,
    cache_write_1h_tokens: u.cache_write_1h_tokens ?? 0,
    reasoning_tokens: u.reasoning_tokens,
    web_search_requests: u.web_search_requests ?? 0,
    service_tier: u.service_tier ?? null,
    speed: u.speed ?? null,
    inference_geo: u.inference_geo ?? null,
    context_window: u.context_window ?? null,
    reported_cost_usd: u.reported_cost_usd ?? null,
    calls: u.calls ?? 1,
    cost_usd: price.priced ? price.usd : 0,
    priced: price.priced ? 1 : 0,
  };
}

/**
 * The record merged into what is stored under its key: each count the larger, the call's own
 * time, session and model kept, stated attributes (tier, speed, region) the latest.
 */
function merge(old: StoredUsage, u: UsageInput): UsageInput | undefined {
  const next = asInput(old, u.usage_key);
  let grew = false;
  for (const field of MERGED_COUNTS) {
    const value = u[field] ?? 0;
    if (value > (next[field] ?? 0)) {
      next[field] = value;
      grew = true;
    }
  }
  for (const field of ["service_tier", "speed", "inference_geo"] as const) {
    const value = u[field];
    if (value !== undefined && value !== next[field]) {
      next[field] = value;
      grew = true;
    }
  }
  if (next.model === undefined && u.model !== undefined) {
    next.model = u.model;
    grew = true;
  }
  if (u.reported_cost_usd !== undefined && u.reported_cost_usd !== next.reported_cost_usd) {
    next.reported_cost_usd = u.reported_cost_usd;
    grew = true;
  }
  return grew ? next : undefined;
}

/**
 * Stores usage records and moves their sessions' totals. A new key is inserted; a key stored
 * already is merged (see {@linkcode merge}) and repriced, and its session moves by the
 * difference, so a call reported again with grown figures ends at its final figures and is
 * never counted twice. `priceOf` prices a record; an unpriced call costs nothing and is
 * counted as unpriced. Answers how many keys were new.
 */
export function insertUsage(
  db: DatabaseSync,
  records: readonly UsageInput[],
  priceOf: (record: UsageInput) => CallPrice,
): number {
  return writing(db, () => {
    if (records.length === 0) return 0;
    const find = db.prepare(`
      SELECT session_id, agent, ts, model, input_tokens, output_tokens, cache_read_tokens,
        cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, web_search_requests,
        service_tier, speed, inference_geo, context_window, reported_cost_usd, calls, cost_usd,
        priced
      FROM usage WHERE usage_key = ?
    `);
    const insert = db.prepare(`
      INSERT INTO usage (session_id, agent, ts, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
        web_search_requests, service_tier, speed, inference_geo, context_window,
        reported_cost_usd, calls, cost_usd, priced, usage_key)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    `);
    // The call keeps its session, agent and time; only what the merge can change is written.
    const update = db.prepare(`
      UPDATE usage SET model = ?, input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,
        cache_write_tokens = ?, cache_write_1h_tokens = ?, reasoning_tokens = ?,
        web_search_requests = ?, service_tier = ?, speed = ?, inference_geo = ?,
        context_window = ?, reported_cost_usd = ?, calls = ?, cost_usd = ?, priced = ?
      WHERE usage_key = ?
    `);
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    for (const u of records) {
      const old = find.get(u.usage_key) as StoredUsage | undefined;
      const next = old === undefined ? u : merge(old, u);
      if (next === undefined) continue; // Nothing grew: the line repeats what is stored.
      const row = stored(next, priceOf(next));
      const values = [
        row.model,
        row.input_tokens,
        row.output_tokens,
        row.cache_read_tokens,
        row.cache_write_tokens,
        row.cache_write_1h_tokens,
        row.reasoning_tokens,
        row.web_search_requests,
        row.service_tier,
        row.speed,
        row.inference_geo,
        row.context_window,
        row.reported_cost_usd,
        row.calls,
        row.cost_usd,
        row.priced,
        u.usage_key,
      ];
      if (old === undefined) insert.run(row.session_id, row.agent, row.ts, ...values);
      else update.run(...values);
      if (old === undefined) added++;
      const delta = deltaFor(deltas, row.session_id, row.agent, row.ts);
      delta.input += row.input_tokens - (old?.input_tokens ?? 0);
      delta.output += row.output_tokens - (old?.output_tokens ?? 0);
      delta.cacheRead += row.cache_read_tokens - (old?.cache_read_tokens ?? 0);
      delta.cacheWrite += row.cache_write_tokens - (old?.cache_write_tokens ?? 0);
      delta.reasoning += row.reasoning_tokens - (old?.reasoning_tokens ?? 0);
      delta.cost += row.cost_usd - (old?.cost_usd ?? 0);
      delta.unpriced += (row.priced === 0 ? row.calls : 0) -
        (old !== undefined && old.priced === 0 ? old.calls : 0);
      if (row.model !== null) delta.model = row.model;
      if (row.context_window !== null) delta.contextWindow = row.context_window;
      if (row.ts >= delta.contextAt) {
        // What the model saw on its latest call: fresh input plus everything read from or written to cache.
        delta.context = row.input_tokens + row.cache_read_tokens + row.cache_write_tokens;
        delta.contextAt = row.ts;
      }
    }
    applyDeltas(db, deltas);
    return added;
  });
}

/**
 * Prices every stored call again with `priceOf` (after the price table or the user's
 * overrides changed) and moves each session's cost and unpriced-call count by the difference,
 * through the same session upsert as new calls. Answers how many calls changed.
 */
export function repriceUsage(
  db: DatabaseSync,
  priceOf: (record: UsageInput) => CallPrice,
): number {
  return writing(db, () => {
    // Pages by rowid, so no statement reads the table while it is being updated.
    const page = db.prepare(`
      SELECT rowid, usage_key, session_id, agent, ts, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
        web_search_requests, service_tier, speed, inference_geo, context_window,
        reported_cost_usd, calls, cost_usd, priced
      FROM usage WHERE rowid > ? ORDER BY rowid LIMIT 2000
    `);
    const update = db.prepare("UPDATE usage SET cost_usd = ?, priced = ? WHERE usage_key = ?");
    const deltas = new Map<string, SessionDelta>();
    let changed = 0;
    let after = 0;
    for (;;) {
      const rows = page.all(after) as unknown as Array<
        StoredUsage & { rowid: number; usage_key: string }
      >;
      if (rows.length === 0) break;
      after = rows[rows.length - 1].rowid;
      for (const row of rows) {
        const price = priceOf(asInput(row, row.usage_key));
        const cost = price.priced ? price.usd : 0;
        const priced = price.priced ? 1 : 0;
        if (cost === row.cost_usd && priced === row.priced) continue;
        update.run(cost, priced, row.usage_key);
        // Time 0: a repricing says nothing about when the session ran.
        const delta = deltaFor(deltas, row.session_id, row.agent, 0);
        delta.cost += cost - row.cost_usd;
        delta.unpriced += (row.priced - priced) * row.calls;
        changed++;
      }
    }
    applyDeltas(db, deltas);
    return changed;
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
