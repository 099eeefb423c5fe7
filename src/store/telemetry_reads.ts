/**
 * Reads behind the telemetry operations: latency and time to first token per
 * model over time, tool performance, API errors, and cost burn. Percentiles
 * are nearest-rank (the smallest value with at least p% of the values at or
 * below it), computed in SQL with window functions so no value list leaves
 * the database.
 *
 * @module
 */
import type { DatabaseSync } from "./database.ts";

/** A time window and the agents it covers. */
export interface TelemetryWindow {
  /** Start, ms (inclusive). */
  since: number;
  /** End, ms (exclusive). */
  until: number;
  /** Only these agents (undefined: all). */
  agents?: readonly string[];
}

function agentClause(agents: readonly string[] | undefined, params: Array<string | number>) {
  if (agents === undefined) return "";
  params.push(...agents);
  return `AND agent IN (${agents.map(() => "?").join(", ") || "NULL"})`;
}

/** The 1-based rank of the p-th percentile (p in whole percent) among `n` sorted values. */
function rank(p: number, n: string): string {
  return `((${p} * ${n} + 99) / 100)`;
}

/** Percentiles of one value per group and bucket. */
export interface PercentileRow {
  /** Group (model or tool). */
  key: string;
  /** Bucket start, ms (0 when not bucketed). */
  bucket: number;
  /** Values counted. */
  n: number;
  /** Median. */
  p50: number | null;
  /** 95th percentile. */
  p95: number | null;
}

/**
 * p50 and p95 of `value` per `key` (and bucket of `bucketMs`, 0 for none) over rows of `table`
 * in the window where the value is known.
 */
function percentiles(
  db: DatabaseSync,
  table: "telemetry_model_calls" | "telemetry_tool_calls",
  key: string,
  value: string,
  window: TelemetryWindow,
  bucketMs: number,
  extra = "",
): PercentileRow[] {
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  const bucket = bucketMs > 0 ? `(ts / ${Math.trunc(bucketMs)}) * ${Math.trunc(bucketMs)}` : "0";
  return db.prepare(`
    WITH v AS (
      SELECT ${key} AS key, ${bucket} AS bucket, ${value} AS v FROM ${table}
      WHERE ts >= ? AND ts < ? AND ${value} IS NOT NULL ${agents} ${extra}
    ), r AS (
      SELECT key, bucket, v,
        row_number() OVER (PARTITION BY key, bucket ORDER BY v) AS rn,
        count(*) OVER (PARTITION BY key, bucket) AS n
      FROM v
    )
    SELECT key, bucket, n,
      max(CASE WHEN rn = ${rank(50, "n")} THEN v END) AS p50,
      max(CASE WHEN rn = ${rank(95, "n")} THEN v END) AS p95
    FROM r GROUP BY key, bucket ORDER BY key, bucket
  `).all(...params) as unknown as PercentileRow[];
}

/** Latency and time-to-first-token percentiles per model, overall and per bucket. */
export function modelLatency(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
): {
  duration: PercentileRow[];
  ttft: PercentileRow[];
  calls: Array<{ key: string; bucket: number; calls: number; errors: number }>;
} {
  const model = "coalesce(model, 'unknown')";
  const both = (ms: number) => ({
    duration: percentiles(db, "telemetry_model_calls", model, "duration_ms", window, ms),
    ttft: percentiles(db, "telemetry_model_calls", model, "ttft_ms", window, ms),
  });
  const overall = both(0);
  const bucketed = bucketMs > 0 ? both(bucketMs) : { duration: [], ttft: [] };
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  const step = Math.max(1, Math.trunc(bucketMs));
  const calls = db.prepare(`
    SELECT ${model} AS key, (ts / ${step}) * ${step} AS bucket, count(*) AS calls,
      sum(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS errors
    FROM telemetry_model_calls WHERE ts >= ? AND ts < ? ${agents}
    GROUP BY key, bucket ORDER BY key, bucket
  `).all(...params) as unknown as Array<
    { key: string; bucket: number; calls: number; errors: number }
  >;
  return {
    duration: [...overall.duration, ...bucketed.duration],
    ttft: [...overall.ttft, ...bucketed.ttft],
    calls,
  };
}

/** One tool's figures in a window. */
export interface ToolStatsRow {
  /** Tool name. */
  tool_name: string;
  /** Calls. */
  calls: number;
  /** Calls that succeeded. */
  succeeded: number;
  /** Calls that failed. */
  failed: number;
  /** Mean duration, ms. */
  avg_ms: number | null;
  /** Longest, ms. */
  max_ms: number | null;
}

/** Calls, outcomes and durations per tool. */
export function toolStats(db: DatabaseSync, window: TelemetryWindow): ToolStatsRow[] {
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  return db.prepare(`
    SELECT coalesce(tool_name, 'unknown') AS tool_name, count(*) AS calls,
      sum(CASE WHEN success = 1 THEN 1 ELSE 0 END) AS succeeded,
      sum(CASE WHEN success = 0 THEN 1 ELSE 0 END) AS failed,
      avg(duration_ms) AS avg_ms, max(duration_ms) AS max_ms
    FROM telemetry_tool_calls WHERE ts >= ? AND ts < ? ${agents}
    GROUP BY tool_name ORDER BY calls DESC, tool_name
  `).all(...params) as unknown as ToolStatsRow[];
}

/** p50 and p95 duration per tool. */
export function toolDurations(db: DatabaseSync, window: TelemetryWindow): PercentileRow[] {
  return percentiles(
    db,
    "telemetry_tool_calls",
    "coalesce(tool_name, 'unknown')",
    "duration_ms",
    window,
    0,
  );
}

/** A failed tool call. */
export interface ToolFailureRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Tool. */
  tool_name: string | null;
  /** Error class. */
  error_type: string | null;
  /** Error text. */
  error: string | null;
  /** Duration, ms. */
  duration_ms: number | null;
  /** The agent's tool call id. */
  tool_use_id: string | null;
}

/** The latest failed tool calls. */
export function recentToolFailures(
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ToolFailureRow[] {
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  params.push(limit);
  return db.prepare(`
    SELECT ts, agent, session_id, tool_name, error_type, error, duration_ms, tool_use_id
    FROM telemetry_tool_calls WHERE ts >= ? AND ts < ? AND success = 0 ${agents}
    ORDER BY ts DESC LIMIT ?
  `).all(...params) as unknown as ToolFailureRow[];
}

/** An API error. */
export interface ApiErrorRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Model. */
  model: string | null;
  /** HTTP status. */
  status_code: number | null;
  /** Error text. */
  error: string | null;
  /** Attempt. */
  attempt: number | null;
  /** Request id. */
  request_id: string | null;
  /** Duration, ms. */
  duration_ms: number | null;
}

/** API errors and model calls per bucket, errors per status, and the latest errors. */
export function apiErrorSummary(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
  limit: number,
): {
  buckets: Array<{ bucket: number; errors: number; calls: number }>;
  byStatus: Array<{ status_code: number | null; errors: number }>;
  recent: ApiErrorRow[];
} {
  const step = Math.max(1, Math.trunc(bucketMs));
  const errorParams: Array<string | number> = [window.since, window.until];
  const errorAgents = agentClause(window.agents, errorParams);
  const callParams: Array<string | number> = [window.since, window.until];
  const callAgents = agentClause(window.agents, callParams);
  const errors = db.prepare(`
    SELECT (ts / ${step}) * ${step} AS bucket, count(*) AS n FROM telemetry_api_errors
    WHERE ts >= ? AND ts < ? ${errorAgents} GROUP BY bucket
  `).all(...errorParams) as unknown as Array<{ bucket: number; n: number }>;
  // A successful call is a model call that did not fail; failed attempts are the errors.
  const calls = db.prepare(`
    SELECT (ts / ${step}) * ${step} AS bucket, count(*) AS n FROM telemetry_model_calls
    WHERE ts >= ? AND ts < ? AND coalesce(success, 1) = 1 ${callAgents} GROUP BY bucket
  `).all(...callParams) as unknown as Array<{ bucket: number; n: number }>;
  const merged = new Map<number, { bucket: number; errors: number; calls: number }>();
  for (const row of errors) merged.set(row.bucket, { bucket: row.bucket, errors: row.n, calls: 0 });
  for (const row of calls) {
    const entry = merged.get(row.bucket) ?? { bucket: row.bucket, errors: 0, calls: 0 };
    entry.calls = row.n;
    merged.set(row.bucket, entry);
  }
  const byStatus = db.prepare(`
    SELECT status_code, count(*) AS errors FROM telemetry_api_errors
    WHERE ts >= ? AND ts < ? ${errorAgents} GROUP BY status_code ORDER BY errors DESC
  `).all(...errorParams) as unknown as Array<{ status_code: number | null; errors: number }>;
  const recent = db.prepare(`
    SELECT ts, agent, session_id, model, status_code, error, attempt, request_id, duration_ms
    FROM telemetry_api_errors WHERE ts >= ? AND ts < ? ${errorAgents}
    ORDER BY ts DESC LIMIT ?
  `).all(...errorParams, limit) as unknown as ApiErrorRow[];
  return {
    buckets: [...merged.values()].sort((a, b) => a.bucket - b.bucket),
    byStatus,
    recent,
  };
}

/** Cost and calls in a window, from the usage rows (each call once, whatever its source). */
export function costBetween(
  db: DatabaseSync,
  window: TelemetryWindow,
): { cost_usd: number; calls: number; unpriced_calls: number } {
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  return db.prepare(`
    SELECT coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
      coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
    FROM usage WHERE ts >= ? AND ts < ? ${agents}
  `).get(...params) as { cost_usd: number; calls: number; unpriced_calls: number };
}

/**
 * What agents reported spending on calls no transcript holds (side requests), which the usage
 * rows leave out.
 */
export function outsideTranscriptCost(
  db: DatabaseSync,
  window: TelemetryWindow,
): { cost_usd: number; calls: number } {
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  return db.prepare(`
    SELECT coalesce(sum(cost_usd), 0) AS cost_usd, count(*) AS calls FROM telemetry_model_calls
    WHERE ts >= ? AND ts < ? AND outside_transcript = 1 ${agents}
  `).get(...params) as { cost_usd: number; calls: number };
}

/** Cost per bucket. */
export function costBuckets(
  db: DatabaseSync,
  window: TelemetryWindow,
  bucketMs: number,
): Array<{ bucket: number; cost_usd: number; calls: number }> {
  const step = Math.max(1, Math.trunc(bucketMs));
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  return db.prepare(`
    SELECT (ts / ${step}) * ${step} AS bucket, sum(cost_usd) AS cost_usd, sum(calls) AS calls
    FROM usage WHERE ts >= ? AND ts < ? ${agents} GROUP BY bucket ORDER BY bucket
  `).all(...params) as unknown as Array<{ bucket: number; cost_usd: number; calls: number }>;
}

/** One of the most expensive model calls. */
export interface ExpensiveCallRow {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Model. */
  model: string | null;
  /** Cost, USD. */
  cost_usd: number;
  /** Uncached input. */
  input_tokens: number;
  /** Output. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes. */
  cache_write_tokens: number;
  /** The provider's request id, when telemetry named it. */
  request_id: string | null;
  /** The user prompt it served, when telemetry named it. */
  prompt_id: string | null;
  /** Duration, ms, when telemetry reported it. */
  duration_ms: number | null;
}

/** The most expensive priced calls of the window, with what telemetry knows about each. */
export function mostExpensiveCalls(
  db: DatabaseSync,
  window: TelemetryWindow,
  limit: number,
): ExpensiveCallRow[] {
  const params: Array<string | number> = [window.since, window.until];
  const agents = agentClause(window.agents, params);
  params.push(limit);
  return db.prepare(`
    SELECT u.ts, u.agent, u.session_id, u.model, u.cost_usd, u.input_tokens, u.output_tokens,
      u.cache_read_tokens, u.cache_write_tokens, t.request_id, t.prompt_id, t.duration_ms
    FROM (
      SELECT * FROM usage WHERE ts >= ? AND ts < ? AND priced = 1 ${agents}
      ORDER BY cost_usd DESC LIMIT ?
    ) u
    LEFT JOIN telemetry_model_calls t ON t.usage_key = u.usage_key
    ORDER BY u.cost_usd DESC, u.ts DESC
  `).all(...params) as unknown as ExpensiveCallRow[];
}
