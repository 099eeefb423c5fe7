/**
 * Writes of model calls: a usage record whose key is stored already merges into it, each count
 * keeping the larger value, so the final figures of a call win however its lines were split
 * across reads; session totals move by the difference. Stored calls are priced again when the
 * prices change.
 *
 * @module
 */
import { type DatabaseSync, writing } from "./database.ts";
import type { CallPrice, UsageInput } from "./agent_records.ts";
import { applyDeltas, deltaFor, type SessionDelta } from "./session_totals.ts";
import { telemetryStatement } from "./telemetry_statements.ts";
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

const USAGE_COLUMNS = `session_id, agent, ts, model, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
  web_search_requests, service_tier, speed, inference_geo, context_window, reported_cost_usd,
  calls, cost_usd, priced`;

/** The stored rows of `keys` (each key once), read with one statement. */
function storedUsage(db: DatabaseSync, keys: readonly string[]): Map<string, StoredUsage> {
  const found = new Map<string, StoredUsage>();
  // The keys as one JSON list: one prepared statement whatever their number.
  const rows = telemetryStatement(
    db,
    `SELECT usage_key, ${USAGE_COLUMNS} FROM usage
     WHERE usage_key IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(keys)) as unknown as Array<StoredUsage & { usage_key: string }>;
  for (const row of rows) found.set(row.usage_key, row);
  return found;
}

/**
 * Stores usage records and moves their sessions' totals. A new key is inserted; a key stored
 * already is merged (see {@linkcode merge}) and repriced, and its session moves by the
 * difference, so a call reported again with grown figures ends at its final figures and is
 * never counted twice. `priceOf` prices a record; an unpriced call costs nothing and is
 * counted as unpriced. Answers how many keys were new.
 *
 * The stored rows of the batch's keys are read up front and the merges run in memory, each
 * record against what the records before it left; each key is then written once, which
 * stores exactly what writing record by record would.
 */
export function insertUsage(
  db: DatabaseSync,
  records: readonly UsageInput[],
  priceOf: (record: UsageInput) => CallPrice,
): number {
  return writing(db, () => {
    if (records.length === 0) return 0;
    const before = storedUsage(db, [...new Set(records.map((u) => u.usage_key))]);
    /** Each key's figures as the records so far left them. */
    const current = new Map<string, StoredUsage>(before);
    /** Keys whose row changed, in the order of their first change. */
    const changed = new Set<string>();
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    for (const u of records) {
      const old = current.get(u.usage_key);
      const next = old === undefined ? u : merge(old, u);
      if (next === undefined) continue; // Nothing grew: the line repeats what is stored.
      // A merged record keeps the stored call's session, agent and time (see asInput).
      const row = stored(next, priceOf(next));
      current.set(u.usage_key, row);
      changed.add(u.usage_key);
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
    writeUsageRows(db, changed, before, current);
    applyDeltas(db, deltas);
    return added;
  });
}

/** The values of a usage row, in {@linkcode USAGE_COLUMNS} order. */
function usageValues(row: StoredUsage): Array<string | number | null> {
  return [
    row.session_id,
    row.agent,
    row.ts,
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
  ];
}

/** Writes the rows of the `changed` keys: new ones inserted, stored ones updated. */
function writeUsageRows(
  db: DatabaseSync,
  changed: ReadonlySet<string>,
  before: ReadonlyMap<string, StoredUsage>,
  current: ReadonlyMap<string, StoredUsage>,
): void {
  const insert = telemetryStatement(
    db,
    `INSERT INTO usage (${USAGE_COLUMNS}, usage_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The call keeps its session, agent and time; only what the merge can change is written.
  const update = telemetryStatement(
    db,
    `UPDATE usage SET model = ?, input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,
      cache_write_tokens = ?, cache_write_1h_tokens = ?, reasoning_tokens = ?,
      web_search_requests = ?, service_tier = ?, speed = ?, inference_geo = ?,
      context_window = ?, reported_cost_usd = ?, calls = ?, cost_usd = ?, priced = ?
    WHERE usage_key = ?`,
  );
  for (const key of changed) {
    const values = usageValues(current.get(key)!);
    if (before.has(key)) update.run(...values.slice(3), key);
    else insert.run(...values, key);
  }
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
