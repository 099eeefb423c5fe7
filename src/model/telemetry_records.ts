/**
 * The records of OpenTelemetry intake: what an OTLP export holds once it was
 * decoded and read for the agent facts it carries. The mapping layer
 * (`src/agent/otlp/`) builds them and the store's telemetry area keeps them;
 * defined here, below both, like the agent records beside them.
 *
 * @module
 */

/** Who and where: the user and host attributes a record or its resource carried. */
export interface TelemetryOrigin {
  /** `user.id` (Claude Code: a hash), `user.account_id`, … */
  user_id?: string;
  /** `user.email`. */
  user_email?: string;
  /** `organization.id`. */
  organization_id?: string;
  /** `host.name`. */
  host_name?: string;
  /** `host.arch`. */
  host_arch?: string;
  /** `os.type`. */
  os_type?: string;
  /** `terminal.type`. */
  terminal_type?: string;
  /** `service.name`. */
  service?: string;
  /** `service.version`. */
  service_version?: string;
}

/** A session telemetry names, with when it was seen. */
export interface TelemetrySessionInput extends TelemetryOrigin {
  /** The agent's session id. */
  session_id: string;
  /** Canonical agent name, or `gen_ai` for an application using the GenAI conventions. */
  agent: string;
  /** Earliest record time, ms. */
  first_seen: number;
  /** Latest record time, ms. */
  last_seen: number;
  /**
   * Team mode: the person whose token sent the export (absent: the server's owner). The
   * session keeps the person of the first hook or export that named it.
   */
  person?: string;
  /** The machine the export came from, kept as the session's host as `person` is. */
  host?: string;
}

/** One span as received. */
export interface SpanInput {
  /** Hex. */
  trace_id: string;
  /** Hex. */
  span_id: string;
  /** Hex, absent for a root span. */
  parent_span_id?: string;
  /** Span name. */
  name: string;
  /** OTLP SpanKind number. */
  kind: number;
  /** `service.name`. */
  service?: string;
  /** Agent it was read as. */
  agent?: string;
  /** Session it belongs to. */
  session_id?: string;
  /** Start, ms. */
  start_ts: number;
  /** End minus start, ms. */
  duration_ms: number;
  /** OTLP status code (0 unset, 1 ok, 2 error). */
  status_code: number;
  /** Status message. */
  status_message?: string;
  /** Span attributes, JSON text. */
  attributes: string;
}

/** One log record as received. */
export interface LogInput {
  /** Stable id of an agent event (session + sequence), for resent batches. */
  dedupe_key?: string;
  /** Time, ms. */
  ts: number;
  /** `service.name`. */
  service?: string;
  /** Agent it was read as. */
  agent?: string;
  /** Session it belongs to. */
  session_id?: string;
  /** `event.name` (or the record's own event name). */
  event_name?: string;
  /** Severity number. */
  severity?: number;
  /** The body as text. */
  body?: string;
  /** Record attributes, JSON text. */
  attributes: string;
  /** Hex. */
  trace_id?: string;
  /** Hex. */
  span_id?: string;
}

/** One metric data point as received. */
export interface MetricPointInput {
  /** Metric name. */
  name: string;
  /** Unit. */
  unit?: string;
  /** gauge, sum, histogram, exponential_histogram or summary. */
  kind: string;
  /** Aggregation temporality (1 delta, 2 cumulative). */
  temporality?: number;
  /** Whether a sum only grows. */
  monotonic?: boolean;
  /** Time, ms. */
  ts: number;
  /** Start of the interval, ms. */
  start_ts?: number;
  /** Value of a gauge or sum point. */
  value?: number;
  /** Count of a histogram or summary point. */
  count?: number;
  /** Sum of a histogram or summary point. */
  sum?: number;
  /** Minimum, when reported. */
  min?: number;
  /** Maximum, when reported. */
  max?: number;
  /** `service.name`. */
  service?: string;
  /** Agent it was read as. */
  agent?: string;
  /** Session it belongs to. */
  session_id?: string;
  /** Point attributes, JSON text. */
  attributes: string;
}

/**
 * Which record a field of a merged call comes from first: an agent's own
 * event (Claude Code's `api_request`, `tool_result`) is the documented
 * figure and overwrites; a span fills only what the event left empty.
 */
export type FieldAuthority = "event" | "span";

/** One model call, or part of what is known about it. */
export interface ModelCallInput extends TelemetryOrigin {
  /** Merge key: `<agent>:<request id>`, or `<agent>:span:<trace>:<span>`. */
  call_key: string;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** When it ended (or was reported), ms. */
  ts: number;
  /** Which record this is. */
  authority: FieldAuthority;
  /** Model id. */
  model?: string;
  /** Provider request id. */
  request_id?: string;
  /** The user prompt it answered (`prompt.id`). */
  prompt_id?: string;
  /** Hex. */
  trace_id?: string;
  /** Hex. */
  span_id?: string;
  /** Uncached input tokens. */
  input_tokens?: number;
  /** Output tokens. */
  output_tokens?: number;
  /** Cache reads. */
  cache_read_tokens?: number;
  /** Cache writes. */
  cache_write_tokens?: number;
  /** Reasoning tokens. */
  reasoning_tokens?: number;
  /** Cost the agent reported, USD. */
  cost_usd?: number;
  /** Request duration, ms. */
  duration_ms?: number;
  /** Time to first token, ms. */
  ttft_ms?: number;
  /** Why the answer stopped. */
  finish_reason?: string;
  /** Whether it succeeded. */
  success?: boolean;
  /** Which part of the agent asked (main loop, titles, …). */
  query_source?: string;
  /**
   * The agent writes this call to no transcript (a side request): it is kept for latency and
   * cost views but never counted in its session's totals, as transcript-based tools count.
   */
  outside_transcript?: boolean;
}

/** One tool call, or part of what is known about it. */
export interface ToolCallInput extends TelemetryOrigin {
  /** Merge key: `<agent>:<session>:<tool call id>`, or a span's. */
  call_key: string;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** When it ended (or was decided), ms. */
  ts: number;
  /** Which record this is. */
  authority: FieldAuthority;
  /** Tool name. */
  tool_name?: string;
  /** The agent's tool call id. */
  tool_use_id?: string;
  /** The user prompt it served. */
  prompt_id?: string;
  /** Duration, ms. */
  duration_ms?: number;
  /** Whether it succeeded. */
  success?: boolean;
  /** Error class (`ShellError`, …). */
  error_type?: string;
  /** Error text, when the agent sends it. */
  error?: string;
  /** accept / reject. */
  decision?: string;
  /** What decided (config, user, hook, …). */
  decision_source?: string;
  /** Hex. */
  trace_id?: string;
  /** Hex. */
  span_id?: string;
}

/** One failed model API request. */
export interface ApiErrorInput extends TelemetryOrigin {
  /** Dedupe key. */
  error_key: string;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Time, ms. */
  ts: number;
  /** Model id. */
  model?: string;
  /** Provider request id. */
  request_id?: string;
  /** The user prompt it served. */
  prompt_id?: string;
  /** HTTP status. */
  status_code?: number;
  /** Error text. */
  error?: string;
  /** Duration, ms. */
  duration_ms?: number;
  /** Attempt number. */
  attempt?: number;
}

/** Everything one OTLP export yields, stored in one transaction. */
export interface TelemetryBatch {
  /** Sessions named, by id. */
  sessions: Map<string, TelemetrySessionInput>;
  /** Raw spans. */
  spans: SpanInput[];
  /** Raw log records. */
  logs: LogInput[];
  /** Raw metric points. */
  metricPoints: MetricPointInput[];
  /** Model calls read from spans and events. */
  modelCalls: ModelCallInput[];
  /** Tool calls read from spans and events. */
  toolCalls: ToolCallInput[];
  /** API errors. */
  apiErrors: ApiErrorInput[];
}

/** An empty batch. */
export function emptyTelemetryBatch(): TelemetryBatch {
  return {
    sessions: new Map(),
    spans: [],
    logs: [],
    metricPoints: [],
    modelCalls: [],
    toolCalls: [],
    apiErrors: [],
  };
}
