/**
 * Claude Code's telemetry (`CLAUDE_CODE_ENABLE_TELEMETRY=1`), read into
 * model calls, tool calls and API errors. Checked against Claude Code
 * 2.1.197:
 *
 * - log events `claude_code.<name>` with `event.name`, `session.id`,
 *   `prompt.id`, `event.sequence`: `api_request` (model, tokens, `cost_usd`,
 *   `duration_ms`, `request_id`), `api_error` (`error`, `status_code`,
 *   `attempt`), `tool_decision` (`decision`, `source`, `tool_use_id`) and
 *   `tool_result` (`success` and `duration_ms` as strings, `error_type`,
 *   `decision_type` / `decision_source`);
 * - spans (enhanced telemetry): `claude_code.llm_request` (the same request
 *   id, with `ttft_ms` and `stop_reason`), `claude_code.tool` (duration) and
 *   `claude_code.tool.execution` (success, error).
 *
 * The event is the documented record and wins for every field it has; a
 * span adds time to first token and finish reason, and fills what no event
 * said.
 *
 * @module
 */
import type { ModelCallInput, ToolCallInput } from "../../model/telemetry_records.ts";
import { storedText } from "./otlp_context.ts";
import type { EventRecord, SpanRecord } from "./otlp_records.ts";
import { attrBoolean, attrCount, attrNumber, attrString } from "./otlp_values.ts";

/**
 * Whether Claude Code writes a call of this `query_source` to its transcript: the main loop
 * (`repl_main_thread…`, `sdk` in print mode), sub-agents (`agent:…`) and compaction. Every
 * other source is a side request (titles, summaries, classifiers, prompt suggestions).
 */
export function inClaudeTranscript(querySource: string | undefined): boolean {
  if (querySource === undefined) return true;
  return querySource.startsWith("repl_main_thread") || querySource === "sdk" ||
    querySource.startsWith("agent:") || querySource === "compact";
}

function modelCallKey(record: EventRecord | SpanRecord, requestId: string | undefined): string {
  if (requestId !== undefined) return `claude_code:${requestId}`;
  return "spanId" in record
    ? `claude_code:span:${record.traceId}:${record.spanId}`
    : `claude_code:event:${record.sessionId}:${record.key}`;
}

/** The tool call key: one per session and tool call id. */
function toolCallKey(sessionId: string, toolUseId: string): string {
  return `claude_code:${sessionId}:${toolUseId}`;
}

/** Reads a Claude Code log event. */
export function mapClaudeCodeEvent(record: EventRecord): void {
  const { attrs, batch, origin } = record;
  const promptId = attrString(attrs, "prompt.id");
  // Each record is one literal (absent values undefined): built at once, the same shape each time.
  switch (record.name) {
    case "api_request": {
      const requestId = attrString(attrs, "request_id");
      const querySource = attrString(attrs, "query_source");
      batch.modelCalls.push({
        call_key: modelCallKey(record, requestId),
        agent: "claude_code",
        session_id: record.sessionId,
        ts: record.ts,
        authority: "event",
        model: attrString(attrs, "model"),
        request_id: requestId,
        prompt_id: promptId,
        input_tokens: attrCount(attrs, "input_tokens"),
        output_tokens: attrCount(attrs, "output_tokens"),
        cache_read_tokens: attrCount(attrs, "cache_read_tokens"),
        cache_write_tokens: attrCount(attrs, "cache_creation_tokens"),
        cost_usd: attrNumber(attrs, "cost_usd"),
        duration_ms: attrNumber(attrs, "duration_ms"),
        ttft_ms: attrNumber(attrs, "ttft_ms"),
        query_source: querySource,
        success: true,
        outside_transcript: inClaudeTranscript(querySource) ? undefined : true,
        user_id: origin.user_id,
        host_name: origin.host_name,
      });
      return;
    }
    case "api_error": {
      const requestId = attrString(attrs, "request_id");
      const attempt = attrCount(attrs, "attempt");
      batch.apiErrors.push({
        error_key: requestId !== undefined
          ? `claude_code:${requestId}:${attempt ?? 0}`
          : `claude_code:${record.sessionId}:${record.key}`,
        agent: "claude_code",
        session_id: record.sessionId,
        ts: record.ts,
        model: attrString(attrs, "model"),
        request_id: requestId,
        prompt_id: promptId,
        status_code: attrCount(attrs, "status_code"),
        error: storedText(attrString(attrs, "error")),
        duration_ms: attrNumber(attrs, "duration_ms"),
        attempt,
        user_id: origin.user_id,
        host_name: origin.host_name,
      });
      return;
    }
    case "tool_decision":
    case "tool_result": {
      const toolUseId = attrString(attrs, "tool_use_id");
      if (toolUseId === undefined) return;
      const result = record.name === "tool_result";
      batch.toolCalls.push({
        call_key: toolCallKey(record.sessionId, toolUseId),
        agent: "claude_code",
        session_id: record.sessionId,
        ts: record.ts,
        authority: "event",
        tool_use_id: toolUseId,
        tool_name: attrString(attrs, "tool_name"),
        prompt_id: promptId,
        success: result ? attrBoolean(attrs, "success") : undefined,
        duration_ms: result ? attrNumber(attrs, "duration_ms") : undefined,
        error_type: result ? attrString(attrs, "error_type") : undefined,
        error: result ? storedText(attrString(attrs, "error")) : undefined,
        decision: attrString(attrs, result ? "decision_type" : "decision"),
        decision_source: attrString(attrs, result ? "decision_source" : "source"),
        user_id: origin.user_id,
        host_name: origin.host_name,
      });
      return;
    }
  }
}

/** Reads a Claude Code span; true when it was one of the agent's own. */
export function mapClaudeCodeSpan(record: SpanRecord): boolean {
  const { attrs, batch } = record;
  const base = {
    agent: "claude_code",
    session_id: record.sessionId,
    ts: record.ts,
    trace_id: record.traceId,
    span_id: record.spanId,
  };
  if (record.name === "claude_code.llm_request") {
    const requestId = attrString(attrs, "request_id", "gen_ai.response.id");
    const call: ModelCallInput = {
      ...base,
      ...record.origin,
      call_key: modelCallKey(record, requestId),
      authority: "span",
    };
    const finish = attrs["gen_ai.response.finish_reasons"];
    assign(call, {
      model: attrString(attrs, "model", "gen_ai.request.model"),
      request_id: requestId,
      input_tokens: attrCount(attrs, "input_tokens"),
      output_tokens: attrCount(attrs, "output_tokens"),
      cache_read_tokens: attrCount(attrs, "cache_read_tokens"),
      cache_write_tokens: attrCount(attrs, "cache_creation_tokens"),
      duration_ms: attrNumber(attrs, "duration_ms") ?? record.durationMs,
      ttft_ms: attrNumber(attrs, "ttft_ms"),
      finish_reason: attrString(attrs, "stop_reason") ??
        (Array.isArray(finish) && typeof finish[0] === "string" ? finish[0] : undefined),
      success: attrBoolean(attrs, "success") ?? (record.statusCode !== 2),
      query_source: attrString(attrs, "query_source"),
    });
    if (!inClaudeTranscript(call.query_source)) call.outside_transcript = true;
    batch.modelCalls.push(call);
    return true;
  }
  if (record.name === "claude_code.tool" || record.name === "claude_code.tool.execution") {
    const toolUseId = attrString(attrs, "tool_use_id", "gen_ai.tool.call.id");
    if (toolUseId === undefined) return true;
    const call: ToolCallInput = {
      ...base,
      ...record.origin,
      call_key: toolCallKey(record.sessionId, toolUseId),
      authority: "span",
      tool_use_id: toolUseId,
    };
    if (record.name === "claude_code.tool") {
      assign(call, {
        tool_name: attrString(attrs, "tool_name"),
        duration_ms: attrNumber(attrs, "duration_ms") ?? record.durationMs,
      });
    } else {
      const error = attrString(attrs, "error") ?? record.statusMessage;
      assign(call, {
        success: attrBoolean(attrs, "success") ?? (record.statusCode !== 2),
        error_type: record.statusCode === 2 ? storedText(error, 200) : undefined,
      });
    }
    batch.toolCalls.push(call);
    return true;
  }
  return record.name.startsWith("claude_code.");
}

/** Sets the defined values of `values` on `target`. */
export function assign<T extends object>(target: T, values: Partial<T>): void {
  for (const key in values) {
    const value = values[key];
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
}
