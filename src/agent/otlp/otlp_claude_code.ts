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
import type {
  ApiErrorInput,
  ModelCallInput,
  ToolCallInput,
} from "../../model/telemetry_records.ts";
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
  const { attrs, batch } = record;
  const base = { agent: "claude_code", session_id: record.sessionId, ts: record.ts };
  const promptId = attrString(attrs, "prompt.id");
  switch (record.name) {
    case "api_request": {
      const requestId = attrString(attrs, "request_id");
      const call: ModelCallInput = {
        ...base,
        ...record.origin,
        call_key: modelCallKey(record, requestId),
        authority: "event",
      };
      assign(call, {
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
        query_source: attrString(attrs, "query_source"),
        success: true,
      });
      if (!inClaudeTranscript(call.query_source)) call.outside_transcript = true;
      batch.modelCalls.push(call);
      return;
    }
    case "api_error": {
      const requestId = attrString(attrs, "request_id");
      const attempt = attrCount(attrs, "attempt");
      const error: ApiErrorInput = {
        ...base,
        ...record.origin,
        error_key: requestId !== undefined
          ? `claude_code:${requestId}:${attempt ?? 0}`
          : `claude_code:${record.sessionId}:${record.key}`,
      };
      assign(error, {
        model: attrString(attrs, "model"),
        request_id: requestId,
        prompt_id: promptId,
        status_code: attrCount(attrs, "status_code"),
        error: storedText(attrString(attrs, "error")),
        duration_ms: attrNumber(attrs, "duration_ms"),
        attempt,
      });
      batch.apiErrors.push(error);
      return;
    }
    case "tool_decision":
    case "tool_result": {
      const toolUseId = attrString(attrs, "tool_use_id");
      if (toolUseId === undefined) return;
      const call: ToolCallInput = {
        ...base,
        ...record.origin,
        call_key: toolCallKey(record.sessionId, toolUseId),
        authority: "event",
        tool_use_id: toolUseId,
      };
      if (record.name === "tool_decision") {
        assign(call, {
          tool_name: attrString(attrs, "tool_name"),
          prompt_id: promptId,
          decision: attrString(attrs, "decision"),
          decision_source: attrString(attrs, "source"),
        });
      } else {
        assign(call, {
          tool_name: attrString(attrs, "tool_name"),
          prompt_id: promptId,
          success: attrBoolean(attrs, "success"),
          duration_ms: attrNumber(attrs, "duration_ms"),
          error_type: attrString(attrs, "error_type"),
          error: storedText(attrString(attrs, "error")),
          decision: attrString(attrs, "decision_type"),
          decision_source: attrString(attrs, "decision_source"),
        });
      }
      batch.toolCalls.push(call);
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
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
}
