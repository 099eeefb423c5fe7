/**
 * Parser for GitHub Copilot CLI session logs (`~/.copilot/session-state/<id>/events.jsonl`).
 *
 * Each line is an event `{type, data, id, parentId, timestamp, agentId?, ephemeral?}`.
 * Conversation: `user.message`, `assistant.message` (`content`, `reasoningText`), tool calls
 * from `tool.execution_start` / `tool.execution_complete` (the `toolRequests` inside
 * `assistant.message` announce the same calls and are not counted again); a tool result is an
 * error when `success` is false or its `shellExecution.exitCode` is not 0. Session facts:
 * `session.start` / `session.resume` (`context.cwd`, `context.branch`, `selectedModel`),
 * `session.model_change`, `session.context_changed`.
 *
 * Usage: Copilot 1.0.102 writes one `session.usage_record` per model call (`data.usage`:
 * `model`, `inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`,
 * `reasoningTokens`, `accounting.usageId`); each becomes a {@link UsageRecord} keyed
 * `<session>:usage:<usage id>`. Older builds kept per-call usage ephemeral, so the only usage on
 * their disk is `session.shutdown.modelMetrics`, totals per model for the process lifetime: a
 * shutdown is counted (one record per model, keyed `<session>:shutdown:<event id>:<model>`) only
 * when no `session.usage_record` came since the process started (`session.start` /
 * `session.resume`), so nothing is counted twice. Copilot's `inputTokens` include the cached
 * ones (a recorded call: `inputTokens` 9200, `cacheReadTokens` 8800 for 400 fresh tokens), so
 * cache reads are taken out of the input count, which Vantage keeps for fresh input only.
 *
 * @module
 */

import { toolTarget } from "../tool_input.ts";
import {
  CommonStateParser,
  contentText,
  count,
  isRecord,
  newMessage,
  parseTimestamp,
  pathSegments,
  pickStr,
  saveCommonState,
  stableHash,
  str,
  textOf,
  type UnknownRecord,
} from "./transcript_support.ts";
import type {
  JsonObject,
  ParsedRecords,
  TranscriptMessage,
  TranscriptParser,
  TranscriptParserOptions,
  UsageRecord,
} from "../../model/agent_records.ts";

// Copilot has a hundred event types (`session.*`, `assistant.*`, `permission.*`, …); any
// dotted name is a Copilot event we may simply not need. Only other shapes are "unknown".
const COPILOT_EVENT_NAME = /^[a-z_]+(\.[a-z_]+)+$/;

/**
 * The session id of a Copilot CLI events file (`session-state/<id>/events.jsonl`).
 *
 * @example
 * ```ts
 * copilotSessionIdFromPath("/h/.copilot/session-state/3f2a/events.jsonl"); // "3f2a"
 * ```
 */
export function copilotSessionIdFromPath(path: string): string | undefined {
  const segments = pathSegments(path);
  if (segments.length >= 2 && segments[segments.length - 1] === "events.jsonl") {
    return segments[segments.length - 2];
  }
  return undefined;
}

class CopilotCliParser extends CommonStateParser {
  // `session.usage_record` events since the process started: its shutdown totals repeat them.
  #usageRecords: number;

  constructor(options: TranscriptParserOptions) {
    super("copilot_cli", options, copilotSessionIdFromPath);
    const saved = options.state?.usage_records;
    this.#usageRecords = typeof saved === "number" ? saved : 0;
  }

  override saveState(): JsonObject {
    return saveCommonState(this.agent, this.state, { usage_records: this.#usageRecords });
  }

  protected parseRecord(obj: UnknownRecord, line: string, out: ParsedRecords): void {
    const type = str(obj.type) ?? "";
    if (obj.ephemeral === true) return;
    const data = isRecord(obj.data) ? obj.data : {};
    const lineTs = parseTimestamp(obj.timestamp);
    const ts = lineTs ?? this.state.lastTs;
    if (ts > this.state.lastTs) this.state.lastTs = ts;
    const id = str(obj.id) ?? stableHash(line);
    const parent = str(obj.parentId);
    const tracker = this.state.tracker;
    if (tracker.sessionId === undefined) {
      tracker.sessionId = (type === "session.start" ? str(data.sessionId) : undefined) ??
        this.fileSessionId;
    }

    const base = (key: string): TranscriptMessage | undefined => {
      const sessionId = tracker.sessionId;
      if (sessionId === undefined) return undefined;
      return newMessage("copilot_cli", sessionId, ts, key, this.state.cwd, parent);
    };

    switch (type) {
      case "session.start":
      case "session.resume": {
        const context = isRecord(data.context) ? data.context : undefined;
        this.#context(context);
        const model = str(data.selectedModel);
        if (model !== undefined) this.state.model = model;
        if (type === "session.start") tracker.started(parseTimestamp(data.startTime) ?? lineTs);
        this.#usageRecords = 0;
        break;
      }
      case "session.usage_record":
        this.#usageRecord(data, id, ts, out);
        break;
      case "session.context_changed":
        this.#context(isRecord(data.context) ? data.context : data);
        break;
      case "session.model_change": {
        const model = str(data.newModel);
        if (model !== undefined) this.state.model = model;
        break;
      }
      case "session.title_changed": {
        const title = str(data.title);
        if (title !== undefined) tracker.learn({ title });
        break;
      }
      case "session.error": {
        const m = base(id);
        if (m === undefined) break;
        const errorType = str(data.errorType);
        const message = str(data.message) ?? "";
        m.role = "system";
        m.message_type = "system";
        m.text = this.cleaner.clean(
          errorType !== undefined ? `${errorType}: ${message}` : message,
        );
        out.messages.push(m);
        break;
      }
      case "user.message": {
        const text = contentText(data.content);
        const m = base(id);
        if (m === undefined || text.trim() === "") break;
        m.role = "user";
        m.message_type = "user";
        m.text = this.cleaner.clean(text);
        out.messages.push(m);
        break;
      }
      case "assistant.message":
        this.#assistant(data, id, base, out);
        break;
      case "tool.execution_start": {
        const callId = str(data.toolCallId);
        const name = pickStr(data, "toolName", "mcpToolName");
        const m = base(`${callId ?? id}:call`);
        if (m === undefined) break;
        m.message_type = "tool_use";
        m.text = this.cleaner.clean(textOf(data.arguments));
        if (name !== undefined) m.tool_name = name;
        if (callId !== undefined) m.tool_use_id = callId;
        if (this.state.model !== undefined) m.model = this.state.model;
        const target = toolTarget(name, data.arguments);
        if (target.file_path !== undefined) m.file_path = target.file_path;
        if (target.command !== undefined) m.command = this.cleaner.clean(target.command);
        if (target.command_prefix !== undefined) m.command_prefix = target.command_prefix;
        out.messages.push(m);
        out.tool_calls++;
        break;
      }
      case "tool.execution_complete": {
        const callId = str(data.toolCallId);
        const m = base(`${callId ?? id}:output`);
        if (m === undefined) break;
        const result = isRecord(data.result) ? data.result : undefined;
        const error = isRecord(data.error) ? str(data.error.message) : str(data.error);
        const text =
          (result !== undefined ? str(result.content) ?? contentText(result.contents) ?? "" : "") ||
          error || "";
        m.role = "tool";
        m.message_type = "tool_result";
        m.text = this.cleaner.clean(text);
        if (callId !== undefined) m.tool_use_id = callId;
        // A shell command that exits non-zero still comes back with `success: true`: its exit
        // code is in `shellExecution`.
        const shell = isRecord(data.shellExecution) ? data.shellExecution : undefined;
        const exitCode = shell !== undefined ? shell.exitCode : undefined;
        if (data.success === false || (typeof exitCode === "number" && exitCode !== 0)) {
          m.is_error = true;
        }
        out.messages.push(m);
        break;
      }
      case "session.shutdown":
        this.#shutdown(data, id, ts, out);
        break;
      default:
        if (type !== "abort" && !COPILOT_EVENT_NAME.test(type)) {
          out.unknown_type = type === "" ? "(none)" : type;
        }
    }
    tracker.learn({ cwd: this.state.cwd, model: this.state.model });
    const info = tracker.changed();
    if (info !== undefined) out.session = info;
  }

  #context(context: UnknownRecord | undefined): void {
    if (context === undefined) return;
    const cwd = str(context.cwd);
    if (cwd !== undefined) this.state.cwd = cwd;
    this.state.tracker.learn({ git_branch: str(context.branch) });
  }

  #assistant(
    data: UnknownRecord,
    id: string,
    base: (key: string) => TranscriptMessage | undefined,
    out: ParsedRecords,
  ): void {
    const model = str(data.model);
    if (model !== undefined) this.state.model = model;
    const key = str(data.messageId) ?? id;
    const reasoning = str(data.reasoningText);
    if (reasoning !== undefined) {
      const m = base(`${key}:thinking`);
      if (m !== undefined) {
        m.message_type = "thinking";
        m.text = this.cleaner.clean(reasoning);
        if (this.state.model !== undefined) m.model = this.state.model;
        out.messages.push(m);
      }
    }
    const text = contentText(data.content);
    if (text.trim() !== "") {
      const m = base(`${key}:text`);
      if (m !== undefined) {
        m.text = this.cleaner.clean(text);
        if (this.state.model !== undefined) m.model = this.state.model;
        out.messages.push(m);
      }
    }
  }

  #usageRecord(data: UnknownRecord, id: string, ts: number, out: ParsedRecords): void {
    const sessionId = this.state.tracker.sessionId;
    const usage = isRecord(data.usage) ? data.usage : undefined;
    if (sessionId === undefined || usage === undefined) return;
    this.#usageRecords++;
    const accounting = isRecord(usage.accounting) ? usage.accounting : undefined;
    const usageId = (accounting !== undefined ? str(accounting.usageId) : undefined) ??
      str(usage.apiCallId) ?? id;
    const model = str(usage.model) ?? this.state.model;
    out.usage.push(tokens(usage, {
      agent: "copilot_cli",
      session_id: sessionId,
      ts,
      ...(model !== undefined ? { model } : {}),
      usage_key: `${sessionId}:usage:${usageId}`,
    }));
  }

  #shutdown(data: UnknownRecord, id: string, ts: number, out: ParsedRecords): void {
    const sessionId = this.state.tracker.sessionId;
    const metrics = isRecord(data.modelMetrics) ? data.modelMetrics : undefined;
    // The calls of this process were counted one by one already.
    const counted = this.#usageRecords > 0;
    this.#usageRecords = 0;
    if (sessionId === undefined || metrics === undefined || counted) return;
    for (const [model, metric] of Object.entries(metrics)) {
      if (!isRecord(metric)) continue;
      const usage = isRecord(metric.usage) ? metric.usage : undefined;
      if (usage === undefined) continue;
      const requests = isRecord(metric.requests) ? count(metric.requests.count) : 0;
      out.usage.push(tokens(usage, {
        agent: "copilot_cli",
        session_id: sessionId,
        ts,
        model,
        usage_key: `${sessionId}:shutdown:${id}:${model}`,
        // The totals of every request to this model: priced and counted as that many calls.
        ...(requests > 1 ? { calls: requests } : {}),
      }));
    }
  }
}

/** Copilot's token figures as a usage record; its input count includes the cached input. */
function tokens(
  usage: UnknownRecord,
  base: Pick<UsageRecord, "agent" | "session_id" | "ts" | "model" | "usage_key" | "calls">,
): UsageRecord {
  const cacheRead = count(usage.cacheReadTokens);
  return {
    ...base,
    input_tokens: Math.max(0, count(usage.inputTokens) - cacheRead),
    output_tokens: count(usage.outputTokens),
    cache_read_tokens: cacheRead,
    cache_write_tokens: count(usage.cacheWriteTokens),
    reasoning_tokens: count(usage.reasoningTokens),
  };
}

/**
 * Creates a parser for one Copilot CLI `events.jsonl` file.
 *
 * @example
 * ```ts
 * const parser = createCopilotCliParser({ path: "/h/.copilot/session-state/abc/events.jsonl" });
 * parser.parseLine('{"type":"user.message","id":"e1","timestamp":"2026-01-02T03:04:05Z","data":{"content":"hi"}}');
 * ```
 */
export function createCopilotCliParser(options: TranscriptParserOptions = {}): TranscriptParser {
  return new CopilotCliParser(options);
}
