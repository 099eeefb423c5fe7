/**
 * Spans that follow OpenTelemetry's GenAI semantic conventions (`gen_ai.*`):
 * GenAI applications, Copilot CLI and OpenClaw (whose `openclaw.model.call`
 * spans carry them too). A span whose `gen_ai.operation.name` is a model
 * operation (`chat`, `text_completion`, `generate_content`, …) or that carries
 * `gen_ai.usage.*` is a model call; `execute_tool` is a tool call. OpenClaw's
 * `openclaw.tool.execution` spans are tool calls as well.
 *
 * A span of a whole agent turn (`invoke_agent`, `invoke_workflow`,
 * `create_agent`) sums its model calls' `gen_ai.usage.*`: it is none itself
 * (Copilot CLI's `invoke_agent` carries the turn's tokens beside one `chat`
 * span per call). A model call is keyed by its session and response id: a
 * local provider or a replayed script may answer every session with the
 * same ids. A tool span with a non-zero `process.exit.code` failed, whatever
 * its status says (Copilot reports a command that exited 1 as OK).
 *
 * Tokens: instrumentations of OpenAI-style APIs report
 * `gen_ai.usage.input_tokens` as the whole prompt, cached part included;
 * Vantage stores uncached input, so the cache reads and writes a span names
 * are taken out of it when they fit inside it.
 *
 * @module
 */
import type { ApiErrorInput, ModelCallInput } from "../../model/telemetry_records.ts";
import { storedText } from "./otlp_context.ts";
import type { SpanRecord } from "./otlp_records.ts";
import { attrCount, attrNumber, attrString } from "./otlp_values.ts";

const MODEL_OPERATIONS = new Set([
  "chat",
  "text_completion",
  "generate_content",
  "completion",
  "responses",
]);

/** Operations whose spans hold a turn's model calls and sum their tokens. */
const AGGREGATE_OPERATIONS = new Set(["invoke_agent", "invoke_workflow", "create_agent"]);

/** Reads a GenAI span into a model call or tool call; false when it is neither. */
export function mapGenAiSpan(record: SpanRecord): boolean {
  const { attrs, batch } = record;
  const operation = attrString(attrs, "gen_ai.operation.name");
  const toolName = attrString(attrs, "gen_ai.tool.name", "openclaw.toolName");
  const failed = record.statusCode === 2;
  const errorType = attrString(attrs, "error.type") ??
    (failed ? record.statusMessage || "error" : undefined);

  if (operation === "execute_tool" || record.name === "openclaw.tool.execution") {
    const id = attrString(attrs, "gen_ai.tool.call.id", "openclaw.toolCallId");
    const outcome = attrString(attrs, "openclaw.outcome");
    const exitCode = attrNumber(attrs, "process.exit.code");
    const exited = exitCode !== undefined && exitCode !== 0;
    // One literal (absent values undefined): what the store reads of a call, built at once.
    batch.toolCalls.push({
      call_key: `${record.agent}:${record.sessionId}:${id ?? `${record.traceId}:${record.spanId}`}`,
      agent: record.agent,
      session_id: record.sessionId,
      ts: record.ts,
      authority: "event",
      tool_name: toolName,
      tool_use_id: id,
      duration_ms: record.durationMs,
      success: outcome !== undefined
        ? outcome === "success" || outcome === "ok"
        : !failed && !exited,
      error_type: storedText(errorType ?? (exited ? `exit code ${exitCode}` : undefined), 200),
      trace_id: record.traceId,
      span_id: record.spanId,
      user_id: record.origin.user_id,
      host_name: record.origin.host_name,
    });
    return true;
  }

  const input = attrCount(attrs, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens");
  const output = attrCount(attrs, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens");
  if (operation !== undefined && AGGREGATE_OPERATIONS.has(operation)) return false;
  const isModelCall = (operation !== undefined && MODEL_OPERATIONS.has(operation)) ||
    input !== undefined || output !== undefined;
  if (!isModelCall) return false;
  const cacheRead = attrCount(
    attrs,
    "gen_ai.usage.cache_read.input_tokens",
    "gen_ai.usage.cache_read_input_tokens",
    "openclaw.tokens.cache_read",
  );
  const cacheWrite = attrCount(
    attrs,
    "gen_ai.usage.cache_creation.input_tokens",
    "gen_ai.usage.cache_creation_input_tokens",
    "openclaw.tokens.cache_write",
  );
  const cached = (cacheRead ?? 0) + (cacheWrite ?? 0);
  const responseId = attrString(attrs, "gen_ai.response.id");
  const finish = attrs["gen_ai.response.finish_reasons"];
  const ttftSeconds = attrNumber(
    attrs,
    "gen_ai.response.time_to_first_chunk",
    "gen_ai.server.time_to_first_token",
  );
  const call: ModelCallInput = {
    call_key: responseId !== undefined
      ? `${record.agent}:${record.sessionId}:${responseId}`
      : `${record.agent}:span:${record.traceId}:${record.spanId}`,
    agent: record.agent,
    session_id: record.sessionId,
    ts: record.ts,
    authority: "event",
    model: attrString(attrs, "gen_ai.response.model", "gen_ai.request.model", "openclaw.model"),
    request_id: responseId,
    trace_id: record.traceId,
    span_id: record.spanId,
    input_tokens: input === undefined ? undefined : input >= cached ? input - cached : input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    reasoning_tokens: attrCount(
      attrs,
      "gen_ai.usage.reasoning.output_tokens",
      "gen_ai.usage.reasoning_tokens",
    ),
    cost_usd: attrNumber(attrs, "gen_ai.usage.cost", "openclaw.cost.usd"),
    duration_ms: record.durationMs,
    ttft_ms: ttftSeconds !== undefined ? ttftSeconds * 1000 : attrNumber(attrs, "ttft_ms"),
    finish_reason: Array.isArray(finish) && typeof finish[0] === "string"
      ? finish[0]
      : attrString(attrs, "gen_ai.response.finish_reason"),
    success: !failed,
    user_id: record.origin.user_id,
    host_name: record.origin.host_name,
  };
  batch.modelCalls.push(call);
  if (failed) {
    const error: ApiErrorInput = {
      error_key: `${record.agent}:span:${record.traceId}:${record.spanId}`,
      agent: record.agent,
      session_id: record.sessionId,
      ts: record.ts,
      model: call.model,
      request_id: responseId,
      status_code: attrCount(attrs, "http.response.status_code"),
      error: storedText(errorType),
      duration_ms: record.durationMs,
      user_id: record.origin.user_id,
      host_name: record.origin.host_name,
    };
    batch.apiErrors.push(error);
  }
  return true;
}
