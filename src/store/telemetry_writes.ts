/**
 * Writes of OpenTelemetry intake: one export's spans, log records, metric
 * points, sessions, model calls, tool calls and API errors, in one
 * transaction, so a failure stores nothing of it.
 *
 * A model call or tool call may be described by several records (Claude
 * Code's `api_request` event and `llm_request` span share a request id; a
 * `tool_decision`, a `tool_result` and a `claude_code.tool` span share a
 * tool call id): each is one row, merged field by field. An event's figure
 * wins over a span's; a span only fills what is still empty.
 *
 * Counting, so a call seen in a transcript and in telemetry counts once: a
 * session's token totals, model calls and tool calls come from its transcript
 * whenever one was read (the figures ccusage counts). Telemetry counts a call
 * (its own usage row `otel:<call key>`, one more tool call) only while no
 * transcript of that session was read; when one is read later,
 * {@linkcode settleTelemetryCounts} (telemetry_settle.ts) withdraws those
 * counts. A call telemetry reports and the transcript lacks (Claude Code's
 * side requests for titles or summaries) stays in `telemetry_model_calls`
 * for latency and cost views, outside the session's totals.
 *
 * @module
 */
import { insertUsage } from "./agent_writes.ts";
import type { CallPrice, UsageInput } from "./agent_records.ts";
import { type DatabaseSync, writing } from "./database.ts";
import { telemetryStatement } from "./telemetry_statements.ts";
import {
  findTranscriptUsageKey,
  sessionHasTranscript,
  withdrawTelemetryUsage,
} from "./telemetry_settle.ts";
import type {
  ApiErrorInput,
  FieldAuthority,
  ModelCallInput,
  TelemetryBatch,
  TelemetrySessionInput,
  ToolCallInput,
} from "./telemetry_records.ts";

/** What a stored batch added. */
export interface TelemetryWriteCounts {
  /** Spans newly stored (a resent span is not). */
  spans: number;
  /** Log records newly stored. */
  logs: number;
  /** Metric points stored. */
  metric_points: number;
  /** Model call records merged. */
  model_calls: number;
  /** Tool call records merged. */
  tool_calls: number;
  /** API errors newly stored. */
  api_errors: number;
  /** Sessions touched. */
  sessions: string[];
}

/** The usage key telemetry's own count of a call is stored under. */
export function telemetryUsageKey(callKey: string): string {
  return `otel:${callKey}`;
}

/**
 * Stores one export's records. `priceOf` prices a model call counted from
 * telemetry (the same pricing as transcript usage); `receivedAt` stamps the
 * raw records.
 */
export function storeTelemetryBatch(
  db: DatabaseSync,
  batch: TelemetryBatch,
  priceOf: (record: UsageInput) => CallPrice,
  receivedAt: number,
): TelemetryWriteCounts {
  return writing(db, () => {
    const counts: TelemetryWriteCounts = {
      spans: insertSpans(db, batch, receivedAt),
      logs: insertLogs(db, batch, receivedAt),
      metric_points: insertMetricPoints(db, batch, receivedAt),
      model_calls: 0,
      tool_calls: 0,
      api_errors: 0,
      sessions: [...batch.sessions.keys()],
    };
    for (const session of batch.sessions.values()) upsertSession(db, session);
    // Whether each session has a transcript, asked once per export.
    const transcripts = new Map<string, boolean>();
    const hasTranscript = (sessionId: string): boolean => {
      let known = transcripts.get(sessionId);
      if (known === undefined) {
        known = sessionHasTranscript(db, sessionId);
        transcripts.set(sessionId, known);
      }
      return known;
    };
    // The merged row of each call, as its last record left it.
    const merged = new Map<string, StoredModelCall>();
    for (const call of batch.modelCalls) {
      merged.set(call.call_key, mergeModelCall(db, call));
      counts.model_calls++;
    }
    countModelCalls(db, merged, hasTranscript, priceOf);
    for (const call of batch.toolCalls) {
      mergeToolCall(db, call, hasTranscript);
      counts.tool_calls++;
    }
    for (const error of batch.apiErrors) {
      if (insertApiError(db, error)) counts.api_errors++;
    }
    return counts;
  });
}

/** Rows per multi-row INSERT: one statement call costs more than the row it carries. */
const ROWS_PER_INSERT = 32;

/**
 * Inserts `rows` (each the values of `columns`) with multi-row statements; answers how many
 * were added (`OR IGNORE` skips rows a unique key already holds).
 */
function insertRows(
  db: DatabaseSync,
  head: string,
  columns: number,
  rows: ReadonlyArray<ReadonlyArray<string | number | null>>,
): number {
  const one = `(${Array(columns).fill("?").join(", ")})`;
  let added = 0;
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    const sql = `${head} VALUES ${Array(chunk.length).fill(one).join(", ")}`;
    added += Number(telemetryStatement(db, sql).run(...chunk.flat()).changes);
  }
  return added;
}

function insertSpans(db: DatabaseSync, batch: TelemetryBatch, receivedAt: number): number {
  return insertRows(
    db,
    `INSERT OR IGNORE INTO telemetry_spans (trace_id, span_id, parent_span_id, name, kind,
      service, agent, session_id, start_ts, duration_ms, status_code, status_message, attributes,
      received_at)`,
    14,
    batch.spans.map((s) => [
      s.trace_id,
      s.span_id,
      s.parent_span_id ?? null,
      s.name,
      s.kind,
      s.service ?? null,
      s.agent ?? null,
      s.session_id ?? null,
      s.start_ts,
      s.duration_ms,
      s.status_code,
      s.status_message ?? null,
      s.attributes,
      receivedAt,
    ]),
  );
}

function insertLogs(db: DatabaseSync, batch: TelemetryBatch, receivedAt: number): number {
  return insertRows(
    db,
    `INSERT OR IGNORE INTO telemetry_logs (dedupe_key, ts, service, agent, session_id,
      event_name, severity, body, attributes, trace_id, span_id, received_at)`,
    12,
    batch.logs.map((l) => [
      l.dedupe_key ?? null,
      l.ts,
      l.service ?? null,
      l.agent ?? null,
      l.session_id ?? null,
      l.event_name ?? null,
      l.severity ?? null,
      l.body ?? null,
      l.attributes,
      l.trace_id ?? null,
      l.span_id ?? null,
      receivedAt,
    ]),
  );
}

function insertMetricPoints(db: DatabaseSync, batch: TelemetryBatch, receivedAt: number): number {
  if (batch.metricPoints.length === 0) return 0;
  const insert = telemetryStatement(
    db,
    `
    INSERT INTO telemetry_metric_points (name, unit, kind, temporality, monotonic, ts, start_ts,
      value, count, sum, min, max, service, agent, session_id, attributes, received_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  `,
  );
  for (const p of batch.metricPoints) {
    insert.run(
      p.name,
      p.unit ?? null,
      p.kind,
      p.temporality ?? null,
      p.monotonic === undefined ? null : p.monotonic ? 1 : 0,
      p.ts,
      p.start_ts ?? null,
      p.value ?? null,
      p.count ?? null,
      p.sum ?? null,
      p.min ?? null,
      p.max ?? null,
      p.service ?? null,
      p.agent ?? null,
      p.session_id ?? null,
      p.attributes,
      receivedAt,
    );
  }
  return batch.metricPoints.length;
}

/**
 * The session in `sessions` (so telemetry-only sessions are listed like any other) and its
 * user and host in `telemetry_sessions`. A transcript's facts (cwd, project, model) are left as
 * they are; times only widen.
 */
function upsertSession(db: DatabaseSync, s: TelemetrySessionInput): void {
  telemetryStatement(
    db,
    `
    INSERT INTO sessions (session_id, agent, started_at, last_activity_at)
    VALUES (?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      started_at = CASE WHEN sessions.started_at <= 0 THEN excluded.started_at
        ELSE min(sessions.started_at, excluded.started_at) END,
      last_activity_at = max(sessions.last_activity_at, excluded.last_activity_at)
  `,
  ).run(s.session_id, s.agent, s.first_seen, s.last_seen);
  telemetryStatement(
    db,
    `
    INSERT INTO telemetry_sessions (session_id, agent, service, service_version, user_id,
      user_email, organization_id, host_name, host_arch, os_type, terminal_type, first_seen,
      last_seen)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (session_id) DO UPDATE SET
      service = coalesce(excluded.service, telemetry_sessions.service),
      service_version = coalesce(excluded.service_version, telemetry_sessions.service_version),
      user_id = coalesce(excluded.user_id, telemetry_sessions.user_id),
      user_email = coalesce(excluded.user_email, telemetry_sessions.user_email),
      organization_id = coalesce(excluded.organization_id, telemetry_sessions.organization_id),
      host_name = coalesce(excluded.host_name, telemetry_sessions.host_name),
      host_arch = coalesce(excluded.host_arch, telemetry_sessions.host_arch),
      os_type = coalesce(excluded.os_type, telemetry_sessions.os_type),
      terminal_type = coalesce(excluded.terminal_type, telemetry_sessions.terminal_type),
      first_seen = min(telemetry_sessions.first_seen, excluded.first_seen),
      last_seen = max(telemetry_sessions.last_seen, excluded.last_seen)
  `,
  ).run(
    s.session_id,
    s.agent,
    s.service ?? null,
    s.service_version ?? null,
    s.user_id ?? null,
    s.user_email ?? null,
    s.organization_id ?? null,
    s.host_name ?? null,
    s.host_arch ?? null,
    s.os_type ?? null,
    s.terminal_type ?? null,
    s.first_seen,
    s.last_seen,
  );
}

/** What a merge answers: what deciding how to count the call needs. */
const RETURNED = {
  telemetry_model_calls: `agent, session_id, ts, model, request_id, outside_transcript,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
    usage_key, counted`,
  telemetry_tool_calls: "session_id, counted",
};

/**
 * The upsert of a merged call: the record is inserted, or merged into the row of its key field
 * by field (an event's value overwrites, a span's fills what is empty; a model call takes an
 * event's time, a tool call its latest).
 */
function mergeSql(
  table: "telemetry_model_calls" | "telemetry_tool_calls",
  columns: readonly string[],
  authority: FieldAuthority,
): string {
  const time = table === "telemetry_tool_calls"
    ? `max(${table}.ts, excluded.ts)`
    : authority === "event"
    ? "excluded.ts"
    : `${table}.ts`;
  const merged = columns.map((c) =>
    authority === "event"
      ? `${c} = coalesce(excluded.${c}, ${table}.${c})`
      : `${c} = coalesce(${table}.${c}, excluded.${c})`
  ).join(", ");
  return `INSERT INTO ${table} (call_key, agent, session_id, ts, ${columns.join(", ")})
    VALUES (?, ?, ?, ?, ${columns.map(() => "?").join(", ")})
    ON CONFLICT (call_key) DO UPDATE SET ts = ${time}, ${merged}
    RETURNING ${RETURNED[table]}`;
}

const MODEL_CALL_FIELDS = [
  "model",
  "request_id",
  "prompt_id",
  "trace_id",
  "span_id",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "duration_ms",
  "ttft_ms",
  "finish_reason",
  "success",
  "query_source",
  "outside_transcript",
  "user_id",
  "host_name",
] as const;

interface StoredModelCall {
  agent: string;
  session_id: string;
  ts: number;
  model: string | null;
  request_id: string | null;
  outside_transcript: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
  usage_key: string | null;
  counted: number;
}

/** The upsert of a model call record, by authority (built once). */
const MERGE_MODEL_CALL: Record<FieldAuthority, string> = {
  event: mergeSql("telemetry_model_calls", MODEL_CALL_FIELDS, "event"),
  span: mergeSql("telemetry_model_calls", MODEL_CALL_FIELDS, "span"),
};

/** Merges a model call record; answers the merged row. */
function mergeModelCall(db: DatabaseSync, call: ModelCallInput): StoredModelCall {
  const values = MODEL_CALL_FIELDS.map((field) => {
    const value = call[field];
    if (value === undefined) return null;
    return typeof value === "boolean" ? (value ? 1 : 0) : value;
  });
  return telemetryStatement(db, MERGE_MODEL_CALL[call.authority])
    .get(
      call.call_key,
      call.agent,
      call.session_id,
      call.ts,
      ...values,
    ) as unknown as StoredModelCall;
}

/**
 * Decides for each merged call which usage row counts it, and writes telemetry's own usage
 * rows in one pass (one set of prepared statements for the whole export).
 */
function countModelCalls(
  db: DatabaseSync,
  calls: ReadonlyMap<string, StoredModelCall>,
  hasTranscript: (sessionId: string) => boolean,
  priceOf: (record: UsageInput) => CallPrice,
): void {
  const records: UsageInput[] = [];
  const newlyCounted: string[] = [];
  for (const [callKey, row] of calls) {
    const record = countModelCall(db, callKey, row, hasTranscript);
    if (record === undefined) continue;
    records.push(record);
    if (row.counted === 0) newlyCounted.push(callKey);
  }
  if (records.length === 0) return;
  // Merging takes each count's larger value, so a span and an event of one call count once.
  insertUsage(db, records, priceOf);
  const link = telemetryStatement(
    db,
    "UPDATE telemetry_model_calls SET usage_key = ?, counted = 1 WHERE call_key = ?",
  );
  for (const callKey of newlyCounted) link.run(telemetryUsageKey(callKey), callKey);
}

/**
 * Which usage row counts a model call: the transcript's when it has the call (linked here),
 * none for a side request or when the session has a transcript without it, else telemetry's
 * own — answered as the usage record to write.
 */
function countModelCall(
  db: DatabaseSync,
  callKey: string,
  row: StoredModelCall,
  hasTranscript: (sessionId: string) => boolean,
): UsageInput | undefined {
  const setLink = telemetryStatement(
    db,
    "UPDATE telemetry_model_calls SET usage_key = ?, counted = ? WHERE call_key = ?",
  );
  const transcriptKey = row.request_id === null
    ? undefined
    : findTranscriptUsageKey(db, row.agent, row.request_id);
  if (transcriptKey !== undefined) {
    if (row.counted === 1 && row.usage_key !== null) withdrawTelemetryUsage(db, row.usage_key);
    if (row.usage_key !== transcriptKey) setLink.run(transcriptKey, 0, callKey);
    return undefined;
  }
  if (row.outside_transcript === 1) {
    // A side request: no transcript will ever count it, and so neither does telemetry.
    if (row.counted === 1 && row.usage_key !== null) {
      withdrawTelemetryUsage(db, row.usage_key);
      setLink.run(null, 0, callKey);
    }
    return undefined;
  }
  if (row.counted === 0 && (row.usage_key !== null || hasTranscript(row.session_id))) {
    return undefined;
  }
  const tokens = (row.input_tokens ?? 0) + (row.output_tokens ?? 0) +
    (row.cache_read_tokens ?? 0) + (row.cache_write_tokens ?? 0);
  if (tokens === 0) return undefined; // Nothing to count yet (a span that carries no usage).
  const usage: UsageInput = {
    agent: row.agent,
    session_id: row.session_id,
    ts: row.ts,
    usage_key: telemetryUsageKey(callKey),
    input_tokens: row.input_tokens ?? 0,
    output_tokens: row.output_tokens ?? 0,
    cache_read_tokens: row.cache_read_tokens ?? 0,
    cache_write_tokens: row.cache_write_tokens ?? 0,
    reasoning_tokens: row.reasoning_tokens ?? 0,
  };
  if (row.model !== null) usage.model = row.model;
  return usage;
}

const TOOL_CALL_FIELDS = [
  "tool_name",
  "tool_use_id",
  "prompt_id",
  "duration_ms",
  "success",
  "error_type",
  "error",
  "decision",
  "decision_source",
  "trace_id",
  "span_id",
  "user_id",
  "host_name",
] as const;

/** The upsert of a tool call record, by authority (built once). */
const MERGE_TOOL_CALL: Record<FieldAuthority, string> = {
  event: mergeSql("telemetry_tool_calls", TOOL_CALL_FIELDS, "event"),
  span: mergeSql("telemetry_tool_calls", TOOL_CALL_FIELDS, "span"),
};

function mergeToolCall(
  db: DatabaseSync,
  call: ToolCallInput,
  hasTranscript: (sessionId: string) => boolean,
): void {
  const values = TOOL_CALL_FIELDS.map((field) => {
    const value = call[field];
    if (value === undefined) return null;
    return typeof value === "boolean" ? (value ? 1 : 0) : value;
  });
  const row = telemetryStatement(db, MERGE_TOOL_CALL[call.authority])
    .get(call.call_key, call.agent, call.session_id, call.ts, ...values) as {
      counted: number;
      session_id: string;
    };
  if (row.counted === 1 || hasTranscript(row.session_id)) return;
  // No transcript of this session was read: the call is known from telemetry alone.
  telemetryStatement(db, "UPDATE sessions SET tool_calls = tool_calls + 1 WHERE session_id = ?")
    .run(row.session_id);
  telemetryStatement(db, "UPDATE telemetry_tool_calls SET counted = 1 WHERE call_key = ?")
    .run(call.call_key);
}

function insertApiError(db: DatabaseSync, e: ApiErrorInput): boolean {
  const result = telemetryStatement(
    db,
    `
    INSERT OR IGNORE INTO telemetry_api_errors (error_key, agent, session_id, ts, model,
      request_id, prompt_id, status_code, error, duration_ms, attempt, user_id, host_name)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  `,
  ).run(
    e.error_key,
    e.agent,
    e.session_id,
    e.ts,
    e.model ?? null,
    e.request_id ?? null,
    e.prompt_id ?? null,
    e.status_code ?? null,
    e.error ?? null,
    e.duration_ms ?? null,
    e.attempt ?? null,
    e.user_id ?? null,
    e.host_name ?? null,
  );
  return Number(result.changes) > 0;
}
