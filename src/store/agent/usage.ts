/**
 * Token usage and cost of model calls: stored once per usage key, merged
 * when a call is reported again with grown figures (each field keeping the
 * larger value, so the final figures win however a call's lines were split
 * across reads), priced on the way in and again when prices change, with
 * the sessions' totals moved by the difference only; and the reads behind
 * the cost charts, the overview and the session page.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { CallPrice, CountedUsage } from "../../model/agent_records.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { pickColumns, RowReader, type RowShape, type SqlParam } from "../rows.ts";
import { prepared } from "../statements.ts";
import { applyDeltas, deltaFor, type SessionDelta } from "./session_totals.ts";

/** A stored model call: its figures, what prices it, and its price. */
export interface UsageRow {
  /** Session charged. */
  session_id: string;
  /** Agent that made the call. */
  agent: string;
  /** Time of the call, ms. */
  ts: number;
  /** Model, when known. */
  model: string | null;
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes, every lifetime. */
  cache_write_tokens: number;
  /** The 1-hour part of the cache writes. */
  cache_write_1h_tokens: number;
  /** Reasoning tokens (inside output). */
  reasoning_tokens: number;
  /** Server-side web searches. */
  web_search_requests: number;
  /** Service tier, when stated. */
  service_tier: string | null;
  /** `fast` for fast mode, when stated. */
  speed: string | null;
  /** Inference region, when stated. */
  inference_geo: string | null;
  /** Context window, when reported. */
  context_window: number | null;
  /** Cost the agent itself reported. */
  reported_cost_usd: number | null;
  /** Model calls the row sums. */
  calls: number;
  /** Cost, USD (0 when unpriced). */
  cost_usd: number;
  /** 0 when no price fits the call's model. */
  priced: number;
}

/** The columns of a stored call (shared with the PostgreSQL store). */
export const STORED_USAGE_SHAPE: RowShape<UsageRow> = {
  session_id: "text",
  agent: "text",
  ts: "number",
  model: "text?",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  cache_write_1h_tokens: "number",
  reasoning_tokens: "number",
  web_search_requests: "number",
  service_tier: "text?",
  speed: "text?",
  inference_geo: "text?",
  context_window: "number?",
  reported_cost_usd: "number?",
  calls: "number",
  cost_usd: "number",
  priced: "number",
};

const KEYED_USAGE = new RowReader<UsageRow & { rowid: number; usage_key: string }>("usage", {
  rowid: "number",
  usage_key: "text",
  ...STORED_USAGE_SHAPE,
});

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

/** A stored call as the record it was stored from (what `priceOf` prices). */
export function asRecord(row: Omit<UsageRow, "cost_usd" | "priced">, key: string): CountedUsage {
  const record: CountedUsage = {
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
  if (row.model !== null) record.model = row.model;
  if (row.service_tier !== null) record.service_tier = row.service_tier;
  if (row.speed !== null) record.speed = row.speed;
  if (row.inference_geo !== null) record.inference_geo = row.inference_geo;
  if (row.context_window !== null) record.context_window = row.context_window;
  if (row.reported_cost_usd !== null) record.reported_cost_usd = row.reported_cost_usd;
  return record;
}

/** The row a record is stored as, with its price. */
export function stored(u: CountedUsage, price: CallPrice): UsageRow {
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
export function merge(old: UsageRow, u: CountedUsage): CountedUsage | undefined {
  const next = asRecord(old, u.usage_key);
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

/** Reads a stored call with its key (on either backend). */
export const KNOWN_USAGE = new RowReader<UsageRow & { usage_key: string }>("usage", {
  usage_key: "text",
  ...STORED_USAGE_SHAPE,
});

// A batch's stored calls, read with one statement: its keys go in as one JSON array.
const FIND_USAGE = `SELECT ${KNOWN_USAGE.columns} FROM usage
  WHERE usage_key IN (SELECT value FROM json_each(?))`;

/** New calls written by one statement: a backfill stores thousands, each statement costs more than its rows. */
const ROWS_PER_INSERT = 32;

const USAGE_ROW = `(${Array(20).fill("?").join(", ")})`;

function insertUsageRows(rows: number): string {
  return `INSERT INTO usage (session_id, agent, ts, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
        web_search_requests, service_tier, speed, inference_geo, context_window,
        reported_cost_usd, calls, cost_usd, priced, usage_key)
      VALUES ${Array(rows).fill(USAGE_ROW).join(", ")}`;
}

// The call keeps its session, agent and time; only what the merge can change is written.
const UPDATE_USAGE = `
      UPDATE usage SET model = ?, input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,
        cache_write_tokens = ?, cache_write_1h_tokens = ?, reasoning_tokens = ?,
        web_search_requests = ?, service_tier = ?, speed = ?, inference_geo = ?,
        context_window = ?, reported_cost_usd = ?, calls = ?, cost_usd = ?, priced = ?
      WHERE usage_key = ?
    `;

/**
 * What a merge may change, in {@linkcode UPDATE_USAGE}'s order (`model`, the counts, `calls`,
 * `cost_usd`, `priced`; on both backends).
 */
export function mergedValues(row: UsageRow): SqlParam[] {
  return [
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

/** Inserts calls whose keys are not stored, {@linkcode ROWS_PER_INSERT} per statement. */
function insertNewUsage(db: DatabaseSync, rows: ReadonlyArray<[string, UsageRow]>): void {
  for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
    const part = rows.slice(from, from + ROWS_PER_INSERT);
    const values: SQLInputValue[] = [];
    for (const [key, row] of part) {
      values.push(row.session_id, row.agent, row.ts, ...mergedValues(row), key);
    }
    prepared(db, insertUsageRows(part.length)).run(...values);
  }
}

/**
 * Moves the totals of a call's session by what its stored row became (`row`) from what it
 * was (`old`, undefined for a new call): the counts and cost by the difference, the model,
 * context window and latest context size to the row's (both backends).
 */
export function countUsage(
  deltas: Map<string, SessionDelta>,
  row: UsageRow,
  old: UsageRow | undefined,
): void {
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

/**
 * A stored call priced again with `priceOf`: its new cost and priced flag, with its
 * session's cost and unpriced count moved by the difference; undefined when neither changed
 * (both backends).
 */
export function repriced(
  deltas: Map<string, SessionDelta>,
  row: UsageRow & { usage_key: string },
  priceOf: (record: CountedUsage) => CallPrice,
): { cost_usd: number; priced: number } | undefined {
  const price = priceOf(asRecord(row, row.usage_key));
  const cost = price.priced ? price.usd : 0;
  const priced = price.priced ? 1 : 0;
  if (cost === row.cost_usd && priced === row.priced) return undefined;
  // Time 0: a repricing says nothing about when the session ran.
  const delta = deltaFor(deltas, row.session_id, row.agent, 0);
  delta.cost += cost - row.cost_usd;
  delta.unpriced += (row.priced - priced) * row.calls;
  return { cost_usd: cost, priced };
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
  records: readonly CountedUsage[],
  priceOf: (record: CountedUsage) => CallPrice,
): number {
  return writing(db, () => {
    if (records.length === 0) return 0;
    // Every key's stored figures at once; the loop keeps them current as the batch merges in.
    const known = new Map<string, UsageRow>();
    const found = prepared(db, FIND_USAGE).all(JSON.stringify(records.map((u) => u.usage_key)));
    for (const row of KNOWN_USAGE.all(found)) known.set(row.usage_key, row);
    const { fresh, changed, deltas } = mergeUsageBatch(records, known, priceOf);
    insertNewUsage(db, [...fresh]);
    const update = prepared(db, UPDATE_USAGE);
    for (const [key, row] of changed) update.run(...mergedValues(row), key);
    applyDeltas(db, deltas);
    return fresh.size;
  });
}

/**
 * What a batch of calls does to the stored ones (both backends), given the stored figures of
 * its keys (`known`, kept current as the batch merges in): the keys new in the batch with their
 * last merged figures (inserted once), the stored keys whose figures grew, and how each
 * session's totals move.
 */
export function mergeUsageBatch(
  records: readonly CountedUsage[],
  known: Map<string, UsageRow>,
  priceOf: (record: CountedUsage) => CallPrice,
): {
  fresh: Map<string, UsageRow>;
  changed: Map<string, UsageRow>;
  deltas: Map<string, SessionDelta>;
} {
  const fresh = new Map<string, UsageRow>();
  const changed = new Map<string, UsageRow>();
  const deltas = new Map<string, SessionDelta>();
  for (const u of records) {
    const old = known.get(u.usage_key);
    const next = old === undefined ? u : merge(old, u);
    if (next === undefined) continue; // Nothing grew: the line repeats what is stored.
    const row = stored(next, priceOf(next));
    known.set(u.usage_key, row);
    // A key new in this batch is inserted once, with its last merged figures.
    if (old === undefined || fresh.has(u.usage_key)) fresh.set(u.usage_key, row);
    else changed.set(u.usage_key, row);
    countUsage(deltas, row, old);
  }
  return { fresh, changed, deltas };
}

/**
 * Prices every stored call again with `priceOf` (after the price table or the user's
 * overrides changed) and moves each session's cost and unpriced-call count by the difference,
 * through the same session upsert as new calls. Answers how many calls changed.
 */
export function repriceUsage(
  db: DatabaseSync,
  priceOf: (record: CountedUsage) => CallPrice,
): number {
  return writing(db, () => {
    // Pages by rowid, so no statement reads the table while it is being updated.
    const page = prepared(
      db,
      `SELECT ${KEYED_USAGE.columns} FROM usage WHERE rowid > ? ORDER BY rowid LIMIT 2000`,
    );
    const update = prepared(db, "UPDATE usage SET cost_usd = ?, priced = ? WHERE usage_key = ?");
    const deltas = new Map<string, SessionDelta>();
    let changed = 0;
    let after = 0;
    for (;;) {
      const rows = KEYED_USAGE.all(page.all(after));
      if (rows.length === 0) break;
      after = rows[rows.length - 1].rowid;
      for (const row of rows) {
        const price = repriced(deltas, row, priceOf);
        if (price === undefined) continue;
        update.run(price.cost_usd, price.priced, row.usage_key);
        changed++;
      }
    }
    applyDeltas(db, deltas);
    return changed;
  });
}

/** Tokens and cost of some model calls. */
export interface TokenCost {
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
  /** Cost of the priced calls, USD. */
  cost_usd: number;
  /** Calls no price fits (their cost is not in `cost_usd`). */
  unpriced_calls: number;
}

const TOKEN_COST_SHAPE: RowShape<TokenCost> = {
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  cost_usd: "number",
  unpriced_calls: "number",
};

/** Token use and cost of one series in one time bucket. */
export interface UsageBucketRow extends TokenCost {
  /** Bucket start, ms. */
  bucket: number;
  /** The agent or model the row sums. */
  series_key: string;
  /** Model calls. */
  calls: number;
}

/** Reads {@linkcode UsageBucketRow} rows (on either backend). */
export const USAGE_BUCKET = new RowReader<UsageBucketRow>("usage bucket", {
  bucket: "number",
  series_key: "text",
  ...TOKEN_COST_SHAPE,
  calls: "number",
});

/** Usage summed per time bucket and per agent or model, within `[since, until)`. */
export function usageBuckets(
  db: DatabaseSync,
  options: {
    since: number;
    until: number;
    bucketMs: number;
    groupBy: "agent" | "model";
    agents?: readonly string[];
  },
): UsageBucketRow[] {
  const key = options.groupBy === "agent" ? "agent" : "coalesce(model, 'unknown')";
  const params: Array<string | number> = [
    options.bucketMs,
    options.bucketMs,
    options.since,
    options.until,
  ];
  let agentFilter = "";
  if (options.agents !== undefined) {
    agentFilter = `AND agent IN (${options.agents.map(() => "?").join(", ") || "NULL"})`;
    params.push(...options.agents);
  }
  return USAGE_BUCKET.all(
    prepared(
      db,
      `SELECT (ts / CAST(? AS INTEGER)) * CAST(? AS INTEGER) AS bucket, ${key} AS series_key,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(cost_usd) AS cost_usd, sum(calls) AS calls, sum((1 - priced) * calls) AS unpriced_calls
     FROM usage WHERE ts >= ? AND ts < ? ${agentFilter}
     GROUP BY bucket, series_key ORDER BY bucket`,
    ).all(...params),
  );
}

/** Reads usage totals (on either backend). */
export const USAGE_TOTALS = new RowReader<TokenCost & { calls: number }>("usage totals", {
  ...TOKEN_COST_SHAPE,
  calls: "number",
});

/** Token and cost totals of the model calls in `[since, until)`. */
export function usageTotals(
  db: DatabaseSync,
  since: number,
  until: number,
): TokenCost & { calls: number } {
  return USAGE_TOTALS.one(
    prepared(
      db,
      `SELECT coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
       coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
       coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
       coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
       coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
     FROM usage WHERE ts >= ? AND ts < ?`,
    ).get(since, until),
  );
}

/** Reads calls per model (on either backend). */
export const MODEL_CALLS = new RowReader<{ model: string; calls: number }>("model calls", {
  model: "text",
  calls: "number",
});

/** Models of the unpriced calls in `[since, until)`, with how many calls each (most first). */
export function unpricedModels(
  db: DatabaseSync,
  since: number,
  until: number,
  limit: number,
): Array<{ model: string; calls: number }> {
  return MODEL_CALLS.all(
    prepared(
      db,
      `SELECT coalesce(model, 'unknown') AS model, sum(calls) AS calls FROM usage
     WHERE ts >= ? AND ts < ? AND priced = 0 GROUP BY model ORDER BY calls DESC, model LIMIT ?`,
    ).all(since, until, limit),
  );
}

/** One model call's usage in a session. */
export interface SessionUsageRow extends Omit<TokenCost, "unpriced_calls"> {
  /** Time, ms. */
  ts: number;
  /** Model. */
  model: string | null;
  /** 0 when no price fits the call's model. */
  priced: number;
}

/** Reads {@linkcode SessionUsageRow} rows (on either backend). */
export const SESSION_USAGE = new RowReader<SessionUsageRow>("session usage", {
  ts: "number",
  model: "text?",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  cost_usd: "number",
  priced: "number",
});

/** A session's model calls in time order (at most `limit`). */
export function sessionUsage(
  db: DatabaseSync,
  sessionId: string,
  limit: number,
): SessionUsageRow[] {
  return SESSION_USAGE.all(
    prepared(
      db,
      `SELECT ${SESSION_USAGE.columns} FROM usage WHERE session_id = ? ORDER BY ts LIMIT ?`,
    ).all(sessionId, limit),
  );
}

/** One model call as the anomaly rules read it. */
export type CallUsageRow =
  & Pick<
    UsageRow,
    | "ts"
    | "model"
    | "input_tokens"
    | "output_tokens"
    | "cache_read_tokens"
    | "cache_write_tokens"
    | "reasoning_tokens"
    | "context_window"
  >
  & {
    /** Its usage key. */
    usage_key: string;
  };

/** Reads {@linkcode CallUsageRow} rows (on either backend). */
export const CALL_USAGE = new RowReader<CallUsageRow>("call usage", {
  usage_key: "text",
  ...pickColumns(STORED_USAGE_SHAPE, [
    "ts",
    "model",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "context_window",
  ]),
});

/** A session's usage records since a time, oldest first. */
export function usageSince(db: DatabaseSync, sessionId: string, since: number): CallUsageRow[] {
  return CALL_USAGE.all(
    prepared(
      db,
      `SELECT ${CALL_USAGE.columns} FROM usage WHERE session_id = ? AND ts >= ? ORDER BY ts LIMIT 2000`,
    ).all(sessionId, since),
  );
}
