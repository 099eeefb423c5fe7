/**
 * Reads a decoded export request into what the store keeps: every span, log
 * record and metric point as received, and from the agents' own records the
 * sessions, model calls, tool calls and API errors they describe.
 *
 * An item OTLP itself calls invalid is rejected and counted (the answer's
 * partial success): a span whose trace id is not 16 bytes or whose span id
 * is not 8 (or either is all zeros), a number point with no value or a value
 * that is not finite. Everything else is accepted.
 *
 * @module
 */
import {
  emptyTelemetryBatch,
  type LogInput,
  type ModelCallInput,
  type TelemetryBatch,
  type ToolCallInput,
} from "../../model/telemetry_records.ts";
import { mapClaudeCodeEvent, mapClaudeCodeSpan } from "./otlp_claude_code.ts";
import { mapCodexEvent } from "./otlp_codex.ts";
import {
  agentOf,
  noteSession,
  originOf,
  type RecordSource,
  sessionOf,
  storedAttributes,
  storedText,
} from "./otlp_context.ts";
import type { ExportRequest } from "./otlp_decode.ts";
import { mapGenAiSpan } from "./otlp_genai.ts";
import type { OtlpSignal } from "./otlp_schema.ts";
import type {
  DistributionDataPoint,
  LogRecord,
  LogsRequest,
  MetricsRequest,
  NumberDataPoint,
  Resource,
  Scope,
  Span,
  TracesRequest,
} from "./otlp_types.ts";
import { anyValue, attributes, attrString, hex, int64, nanosToMs } from "./otlp_values.ts";

/** What one request yielded. */
export interface MappedExport {
  /**
   * The records to store, in parts of at most {@linkcode PART_ITEMS} items each (every record
   * an item yields is in the item's part), so a large export can be stored a part at a time.
   * The first part names every session of the export; the others name none.
   */
  parts: TelemetryBatch[];
  /** Items (spans, data points, log records) in the request. */
  items: number;
  /** Items rejected as invalid. */
  rejected: number;
  /** Why, for the partial-success message (the first few reasons). */
  reasons: string[];
}

/**
 * Items in one part of a mapped export: storing one takes a few milliseconds, the longest
 * another writer (a hook) waits behind an export that is being stored.
 */
export const PART_ITEMS = 100;

/** A mapped export while it is being read: the part its next records go into. */
interface Mapping extends MappedExport {
  /** The current part. */
  batch: TelemetryBatch;
  /** Items in the current part. */
  inPart: number;
  /** Items per part. */
  partItems: number;
}

/**
 * Reads `request` of `signal`; `now` stands in for a log record without any time.
 * `partItems` (default {@linkcode PART_ITEMS}) is how many items each part holds.
 */
export function mapExport(
  signal: OtlpSignal,
  request: ExportRequest,
  now: number,
  partItems: number = PART_ITEMS,
): MappedExport {
  const first = emptyTelemetryBatch();
  const mapping: Mapping = {
    parts: [first],
    batch: first,
    inPart: 0,
    partItems: Math.max(1, partItems),
    items: 0,
    rejected: 0,
    reasons: [],
  };
  if (signal === "traces") mapTraces(request as TracesRequest, mapping);
  else if (signal === "logs") mapLogs(request as LogsRequest, mapping, now);
  else mapMetrics(request as MetricsRequest, mapping);
  const { parts, items, rejected, reasons } = mapping;
  for (let i = 1; i < parts.length; i++) parts[i].sessions = new Map();
  if (parts.length > 1) groupCalls(parts, mapping.partItems);
  return { parts, items, rejected, reasons };
}

/**
 * Regroups the calls of a multi-part export. Every record of one call (one call key) goes into
 * one part, in order, so each merges into what the record before it left, as in one
 * transaction (a call's usage row, counted across two transactions, would keep its largest
 * figures rather than its last). A session's calls go into one part too when they fit
 * (sessions in the order they came, a session larger than a part split between calls), so its
 * totals move by what its calls add up to in one transaction: the cost summed in the same
 * order, the context of its latest call. A call belongs to the session of its first record;
 * sessions' tool counts then move once per part, not once per part for every session.
 */
function groupCalls(parts: TelemetryBatch[], partItems: number): void {
  regroup(parts, partItems, "modelCalls");
  regroup(parts, partItems, "toolCalls");
}

function regroup(
  parts: TelemetryBatch[],
  partItems: number,
  kind: "modelCalls" | "toolCalls",
): void {
  type Call = ModelCallInput | ToolCallInput;
  const byKey = new Map<string, Call[]>();
  const bySession = new Map<string, Call[][]>();
  for (const part of parts) {
    for (const call of part[kind]) {
      const calls = byKey.get(call.call_key);
      if (calls !== undefined) {
        calls.push(call);
        continue;
      }
      const created = [call];
      byKey.set(call.call_key, created);
      const session = bySession.get(call.session_id);
      if (session === undefined) bySession.set(call.session_id, [created]);
      else session.push(created);
    }
    part[kind] = [];
  }
  let index = 0;
  const place = (calls: Call[]) => {
    const held = parts[index][kind].length;
    if (held > 0 && held + calls.length > partItems) index++;
    if (index === parts.length) parts.push({ ...emptyTelemetryBatch(), sessions: new Map() });
    (parts[index][kind] as Call[]).push(...calls);
  };
  for (const session of bySession.values()) {
    const size = session.reduce((sum, calls) => sum + calls.length, 0);
    if (size <= partItems) place(session.flat());
    else for (const calls of session) place(calls);
  }
}

/** Counts one more item, starting a new part when the current one is full. */
function nextItem(mapped: Mapping): void {
  mapped.items++;
  if (mapped.inPart === mapped.partItems) {
    // Every part notes sessions into the first part's map: it upserts them all, once.
    const part: TelemetryBatch = { ...emptyTelemetryBatch(), sessions: mapped.parts[0].sessions };
    mapped.parts.push(part);
    mapped.batch = part;
    mapped.inPart = 0;
  }
  mapped.inPart++;
}

function reject(mapped: Mapping, reason: string): void {
  mapped.rejected++;
  if (mapped.reasons.length < 3 && !mapped.reasons.includes(reason)) mapped.reasons.push(reason);
}

function sourceOf(resource: Resource | null | undefined, scope: Scope | null | undefined) {
  const attrs = attributes(resource?.attributes);
  const source: RecordSource = { resource: attrs, scope: scope?.name ?? "" };
  const service = attrString(attrs, "service.name");
  if (service !== undefined) source.service = service;
  return source;
}

function validId(bytes: Uint8Array | null | undefined, length: number): boolean {
  if (bytes === undefined || bytes === null || bytes.length !== length) return false;
  for (const byte of bytes) if (byte !== 0) return true;
  return false;
}

function mapTraces(request: TracesRequest, mapped: Mapping): void {
  for (const rs of request.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      const source = sourceOf(rs.resource, ss.scope);
      const spans: Array<Span | undefined> = ss.spans ?? [];
      for (let i = 0; i < spans.length; i++) {
        const span = spans[i]!;
        // A decoded span is let go once read, so the garbage collector need not keep (and
        // copy) a whole export's decoded messages while it is read.
        spans[i] = undefined;
        nextItem(mapped);
        mapSpan(span, source, mapped);
      }
    }
  }
}

function mapSpan(span: Span, source: RecordSource, mapped: Mapping): void {
  if (!validId(span.traceId, 16)) {
    reject(mapped, "a span's traceId must be 16 bytes, not all zero");
    return;
  }
  if (!validId(span.spanId, 8)) {
    reject(mapped, "a span's spanId must be 8 bytes, not all zero");
    return;
  }
  const traceId = hex(span.traceId);
  const spanId = hex(span.spanId);
  const parent = span.parentSpanId !== undefined && span.parentSpanId !== null &&
      span.parentSpanId.length > 0
    ? hex(span.parentSpanId)
    : undefined;
  const startNs = int64(span.startTimeUnixNano);
  const endNs = int64(span.endTimeUnixNano);
  const startMs = startNs / 1e6;
  const durationMs = Math.max(0, (endNs - startNs) / 1e6);
  const name = span.name ?? "";
  const attrs = attributes(span.attributes);
  const agent = agentOf(source, name, attrs);
  const sessionId = agent === undefined ? undefined : sessionOf(attrs, source, agent, traceId);
  const statusCode = span.status?.code ?? 0;
  const statusMessage = span.status?.message || undefined;
  const service = source.service;
  mapped.batch.spans.push({
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parent,
    name,
    kind: span.kind ?? 0,
    service,
    agent,
    session_id: sessionId,
    start_ts: Math.round(startMs),
    duration_ms: durationMs,
    status_code: statusCode,
    status_message: statusMessage !== undefined ? storedText(statusMessage, 500) : undefined,
    attributes: storedAttributes(attrs),
  });
  if (agent === undefined || sessionId === undefined) return;
  const ts = Math.round(startMs + durationMs);
  const origin = originOf(attrs, source);
  noteSession(mapped.batch, sessionId, agent, ts, origin);
  const record = {
    batch: mapped.batch,
    agent,
    sessionId,
    ts,
    attrs,
    origin,
    name,
    traceId,
    spanId,
    startMs,
    durationMs,
    statusCode,
    statusMessage,
  };
  if (agent === "claude_code" && mapClaudeCodeSpan(record)) return;
  mapGenAiSpan(record);
}

function mapLogs(request: LogsRequest, mapped: Mapping, now: number): void {
  for (const rl of request.resourceLogs ?? []) {
    for (const sl of rl.scopeLogs ?? []) {
      const source = sourceOf(rl.resource, sl.scope);
      const records: Array<LogRecord | undefined> = sl.logRecords ?? [];
      for (let i = 0; i < records.length; i++) {
        const record = records[i]!;
        records[i] = undefined; // Let go once read, as spans are.
        nextItem(mapped);
        mapLog(record, source, mapped, now);
      }
    }
  }
}

function bodyText(record: LogRecord): string | undefined {
  const body = anyValue(record.body);
  if (body === null) return undefined;
  return typeof body === "string" ? body : JSON.stringify(body);
}

function mapLog(record: LogRecord, source: RecordSource, mapped: Mapping, now: number): void {
  const time = nanosToMs(record.timeUnixNano) || nanosToMs(record.observedTimeUnixNano) || now;
  const ts = Math.round(time);
  const attrs = attributes(record.attributes);
  const body = bodyText(record);
  // Claude Code names its events in the body and `event.name`; OTLP 1.5+ has a field for it.
  const eventName = attrString(attrs, "event.name") || record.eventName || undefined;
  const fullName = body !== undefined && /^[a-z_]+\.[a-z_.]+$/.test(body) ? body : eventName ?? "";
  const agent = agentOf(source, fullName, attrs);
  const traceId = hex(record.traceId);
  const sessionId = agent === undefined ? undefined : sessionOf(attrs, source, agent, traceId);
  const sequence = attrString(attrs, "event.sequence");
  const key = sequence ?? String(int64(record.timeUnixNano) || ts);
  // One object, its optional fields set only when present (no throwaway object per field).
  const log: LogInput = { ts, attributes: storedAttributes(attrs) };
  if (agent !== undefined && sessionId !== undefined && sequence !== undefined) {
    log.dedupe_key = `${agent}:${sessionId}:${sequence}`;
  }
  if (source.service !== undefined) log.service = source.service;
  if (agent !== undefined) log.agent = agent;
  if (sessionId !== undefined) log.session_id = sessionId;
  if (eventName !== undefined) log.event_name = eventName;
  if (record.severityNumber) log.severity = record.severityNumber;
  if (body !== undefined) log.body = storedText(body, 4_000);
  if (traceId !== "") log.trace_id = traceId;
  if (record.spanId !== undefined && record.spanId !== null && record.spanId.length > 0) {
    log.span_id = hex(record.spanId);
  }
  mapped.batch.logs.push(log);
  if (agent === undefined || sessionId === undefined) return;
  const origin = originOf(attrs, source);
  noteSession(mapped.batch, sessionId, agent, ts, origin);
  const name = (eventName ?? fullName).replace(/^(claude_code|codex)\./, "");
  const event = { batch: mapped.batch, agent, sessionId, ts, attrs, origin, name, key };
  if (agent === "claude_code") mapClaudeCodeEvent(event);
  else if (agent === "codex") mapCodexEvent(event);
}

function mapMetrics(request: MetricsRequest, mapped: Mapping): void {
  for (const rm of request.resourceMetrics ?? []) {
    for (const sm of rm.scopeMetrics ?? []) {
      const source = sourceOf(rm.resource, sm.scope);
      for (const metric of sm.metrics ?? []) {
        const name = metric.name ?? "";
        const unit = metric.unit || undefined;
        const common = { name, ...(unit !== undefined ? { unit } : {}) };
        switch (metric.data) {
          case "gauge":
            for (const point of metric.gauge?.dataPoints ?? []) {
              numberPoint(point, source, mapped, { ...common, kind: "gauge" });
            }
            break;
          case "sum":
            for (const point of metric.sum?.dataPoints ?? []) {
              numberPoint(point, source, mapped, {
                ...common,
                kind: "sum",
                temporality: metric.sum?.aggregationTemporality ?? 0,
                monotonic: metric.sum?.isMonotonic ?? false,
              });
            }
            break;
          case "histogram":
          case "exponentialHistogram":
          case "summary": {
            const data = metric.data === "histogram"
              ? metric.histogram
              : metric.data === "summary"
              ? metric.summary
              : metric.exponentialHistogram;
            const temporality = data !== undefined && data !== null &&
                "aggregationTemporality" in data &&
                typeof data.aggregationTemporality === "number"
              ? data.aggregationTemporality
              : undefined;
            for (const point of data?.dataPoints ?? []) {
              distributionPoint(point, source, mapped, {
                ...common,
                kind: metric.data === "exponentialHistogram"
                  ? "exponential_histogram"
                  : metric.data,
                ...(temporality !== undefined ? { temporality } : {}),
              });
            }
            break;
          }
        }
      }
    }
  }
}

interface MetricCommon {
  name: string;
  unit?: string;
  kind: string;
  temporality?: number;
  monotonic?: boolean;
}

function pointContext(
  attrsList: NumberDataPoint["attributes"],
  source: RecordSource,
  mapped: Mapping,
  name: string,
  ts: number,
) {
  const attrs = attributes(attrsList);
  const agent = agentOf(source, name, attrs);
  const sessionId = agent === undefined ? undefined : sessionOf(attrs, source, agent, "");
  if (agent !== undefined && sessionId !== undefined) {
    noteSession(mapped.batch, sessionId, agent, ts, originOf(attrs, source));
  }
  return {
    attributes: storedAttributes(attrs),
    ...(source.service !== undefined ? { service: source.service } : {}),
    ...(agent !== undefined ? { agent } : {}),
    ...(sessionId !== undefined ? { session_id: sessionId } : {}),
  };
}

function numberPoint(
  point: NumberDataPoint,
  source: RecordSource,
  mapped: Mapping,
  common: MetricCommon,
): void {
  nextItem(mapped);
  const value = point.value === "asDouble"
    ? point.asDouble
    : point.value === "asInt"
    ? int64(point.asInt)
    : undefined;
  if (value === undefined || !Number.isFinite(value)) {
    reject(mapped, `a ${common.kind} data point of ${common.name} has no finite value`);
    return;
  }
  const ts = Math.round(nanosToMs(point.timeUnixNano));
  const start = Math.round(nanosToMs(point.startTimeUnixNano));
  mapped.batch.metricPoints.push({
    ...common,
    ts,
    ...(start > 0 ? { start_ts: start } : {}),
    value,
    ...pointContext(point.attributes, source, mapped, common.name, ts),
  });
}

function distributionPoint(
  point: DistributionDataPoint,
  source: RecordSource,
  mapped: Mapping,
  common: MetricCommon,
): void {
  nextItem(mapped);
  const ts = Math.round(nanosToMs(point.timeUnixNano));
  const start = Math.round(nanosToMs(point.startTimeUnixNano));
  const finite = (n: number | null | undefined) =>
    typeof n === "number" && Number.isFinite(n) ? n : undefined;
  const sum = finite(point.sum);
  const min = finite(point.min);
  const max = finite(point.max);
  mapped.batch.metricPoints.push({
    ...common,
    ts,
    ...(start > 0 ? { start_ts: start } : {}),
    count: int64(point.count),
    ...(sum !== undefined ? { sum } : {}),
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
    ...pointContext(point.attributes, source, mapped, common.name, ts),
  });
}
