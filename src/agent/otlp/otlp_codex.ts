/**
 * Codex CLI's telemetry (the `[otel]` table of `config.toml`): log events
 * `codex.<name>` with `conversation.id` as the session. `sse_event` of kind
 * `response.completed` carries a model call's tokens (`input_token_count`
 * includes the cached part, `cached_token_count`); `api_request` a request's
 * status, so a failed one is an API error; `tool_decision` and
 * `tool_result` (`call_id`, `duration_ms`, `success`) a tool call.
 *
 * Codex names no request id its rollout also has, so a Codex model call is
 * matched to its transcript by session only (see the store's
 * telemetry/model_calls.ts): a session whose rollout was read counts the
 * rollout's figures.
 *
 * @module
 */
import type {
  ApiErrorInput,
  ModelCallInput,
  ToolCallInput,
} from "../../model/telemetry_records.ts";
import { assign } from "./otlp_claude_code.ts";
import { storedText } from "./otlp_context.ts";
import type { EventRecord } from "./otlp_records.ts";
import { attrBoolean, attrCount, attrNumber, attrString } from "./otlp_values.ts";

/** Reads a Codex log event. */
export function mapCodexEvent(record: EventRecord): void {
  const { attrs, batch } = record;
  const base = { agent: "codex", session_id: record.sessionId, ts: record.ts };
  switch (record.name) {
    case "sse_event": {
      if (attrString(attrs, "event.kind") !== "response.completed") return;
      const input = attrCount(attrs, "input_token_count");
      const cached = attrCount(attrs, "cached_token_count") ?? 0;
      const call: ModelCallInput = {
        ...base,
        ...record.origin,
        call_key: `codex:${record.sessionId}:${record.key}`,
        authority: "event",
      };
      assign(call, {
        model: attrString(attrs, "model", "slug"),
        input_tokens: input === undefined ? undefined : Math.max(0, input - cached),
        output_tokens: attrCount(attrs, "output_token_count"),
        cache_read_tokens: cached,
        reasoning_tokens: attrCount(attrs, "reasoning_token_count"),
        duration_ms: attrNumber(attrs, "duration_ms"),
        success: true,
      });
      batch.modelCalls.push(call);
      return;
    }
    case "api_request": {
      const status = attrCount(attrs, "http.response.status_code");
      const message = attrString(attrs, "error.message");
      if (message === undefined && (status === undefined || status < 400)) return;
      const error: ApiErrorInput = {
        ...base,
        ...record.origin,
        error_key: `codex:${record.sessionId}:${record.key}`,
      };
      assign(error, {
        model: attrString(attrs, "model", "slug"),
        status_code: status,
        error: storedText(message),
        duration_ms: attrNumber(attrs, "duration_ms"),
        attempt: attrCount(attrs, "attempt"),
      });
      batch.apiErrors.push(error);
      return;
    }
    case "tool_decision":
    case "tool_result": {
      const callId = attrString(attrs, "call_id");
      if (callId === undefined) return;
      const call: ToolCallInput = {
        ...base,
        ...record.origin,
        call_key: `codex:${record.sessionId}:${callId}`,
        authority: "event",
        tool_use_id: callId,
      };
      assign(call, {
        tool_name: attrString(attrs, "tool_name"),
        ...(record.name === "tool_decision"
          ? {
            decision: attrString(attrs, "decision"),
            decision_source: attrString(attrs, "source"),
          }
          : {
            duration_ms: attrNumber(attrs, "duration_ms"),
            success: attrBoolean(attrs, "success"),
          }),
      });
      batch.toolCalls.push(call);
      return;
    }
  }
}
