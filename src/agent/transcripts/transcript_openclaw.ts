/**
 * Parser for OpenClaw session transcripts: the JSONL files of OpenClaw before 2026.8
 * (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`) and the entries of its SQLite store since
 * (`openclaw_store.ts`), which are the same objects, one per row.
 *
 * The first line is a header `{"type":"session","version":3,"id","timestamp","cwd",
 * "parentSession"?}`; then entries linked by `id`/`parentId`: `message` entries wrap
 * `{role: "user"|"assistant"|"toolResult"|"bashExecution", content, model, provider, usage}`
 * with content blocks `text`, `thinking`, `toolCall{id,name,arguments}`; `model_change`
 * `{provider, modelId}`; `compaction {summary}`; `session_info {name}`; and bookkeeping
 * entries (`thinking_level_change`, `custom`, `custom_message`, `branch_summary`, `label`).
 *
 * A tool result is an error when `isError` is set or, for `exec`, when `details` reports a
 * non-zero `exitCode`, a signal or a time-out (OpenClaw marks those `isError: false`).
 *
 * Each assistant message carries its own usage (`input`, `output`, `cacheRead`, `cacheWrite`,
 * `cost.total`): one {@link UsageRecord} per entry, keyed `<session>:<entry id>`.
 *
 * @module
 */

import { toolTarget } from "../tool_input.ts";
import {
  baseName,
  CommonStateParser,
  contentText,
  count,
  isRecord,
  newMessage,
  num,
  parseTimestamp,
  pickStr,
  stableHash,
  str,
  textOf,
  type UnknownRecord,
} from "./transcript_support.ts";
import type {
  ParsedRecords,
  TranscriptMessage,
  TranscriptParser,
  TranscriptParserOptions,
  UsageRecord,
} from "../../model/agent_records.ts";

const IGNORED_TYPES = new Set([
  "thinking_level_change",
  "custom",
  "custom_message",
  "branch_summary",
  "label",
]);

/**
 * The session id in an OpenClaw transcript file name: `<id>.jsonl`, `<ts>_<id>.jsonl`, the
 * archived `<id>.jsonl.reset.<ts>` / `.deleted.<ts>` forms, and `<store>#<id>` for a session
 * read from the SQLite store.
 *
 * @example
 * ```ts
 * openclawSessionIdFromPath("/h/.openclaw/agents/main/sessions/8c1d.jsonl"); // "8c1d"
 * ```
 */
export function openclawSessionIdFromPath(path: string): string | undefined {
  // A session inside the SQLite store is named `<store path>#<session id>`.
  const hash = baseName(path).lastIndexOf("#");
  if (hash >= 0) return str(baseName(path).slice(hash + 1));
  const name = baseName(path).replace(/\.jsonl(\.(reset|deleted|bak)\..*)?$/, "");
  if (name === "" || name === "sessions") return undefined;
  const underscore = name.lastIndexOf("_");
  return underscore >= 0 && /^\d/.test(name) ? name.slice(underscore + 1) : name;
}

// OpenClaw's `exec` returns a command that exited non-zero with `isError: false`; how it ended
// is in `details` (`exitCode`, `exitSignal`, `noOutputTimedOut`).
function execFailed(details: unknown): boolean {
  if (!isRecord(details)) return false;
  const code = num(details.exitCode);
  return (code !== undefined && code !== 0) || str(details.exitSignal) !== undefined ||
    details.noOutputTimedOut === true;
}

class OpenClawParser extends CommonStateParser {
  constructor(options: TranscriptParserOptions) {
    super("openclaw", options, openclawSessionIdFromPath);
  }

  protected parseRecord(obj: UnknownRecord, line: string, out: ParsedRecords): void {
    const type = str(obj.type) ?? "";
    const message = isRecord(obj.message) ? obj.message : undefined;
    const lineTs = parseTimestamp(obj.timestamp) ??
      (message !== undefined ? parseTimestamp(message.timestamp) : undefined);
    const ts = lineTs ?? this.state.lastTs;
    if (ts > this.state.lastTs) this.state.lastTs = ts;
    const tracker = this.state.tracker;
    const id = str(obj.id) ?? stableHash(line);

    if (type === "session") {
      if (tracker.sessionId === undefined) tracker.sessionId = str(obj.id) ?? this.fileSessionId;
      const cwd = str(obj.cwd);
      if (cwd !== undefined) this.state.cwd = cwd;
      const parentSession = obj.parentSession;
      const parent = typeof parentSession === "string"
        ? str(parentSession)
        : isRecord(parentSession)
        ? pickStr(parentSession, "id", "sessionId")
        : undefined;
      tracker.learn({ parent_session_id: parent });
      tracker.started(lineTs);
    } else {
      if (tracker.sessionId === undefined) tracker.sessionId = this.fileSessionId;
      switch (type) {
        case "message":
          if (message !== undefined) this.#message(obj, message, id, ts, out);
          break;
        case "model_change": {
          const model = pickStr(obj, "modelId", "model");
          if (model !== undefined) this.state.model = model;
          break;
        }
        case "session_info": {
          const title = pickStr(obj, "name", "title");
          if (title !== undefined) tracker.learn({ title });
          break;
        }
        case "compaction": {
          const summary = str(obj.summary);
          const m = this.#base(id, ts, str(obj.parentId));
          if (summary !== undefined && m !== undefined) {
            m.role = "system";
            m.message_type = "system";
            m.text = this.cleaner.clean(summary);
            out.messages.push(m);
          }
          break;
        }
        default:
          if (!IGNORED_TYPES.has(type)) out.unknown_type = type === "" ? "(none)" : type;
      }
    }
    tracker.learn({ cwd: this.state.cwd, model: this.state.model });
    const info = tracker.changed();
    if (info !== undefined) out.session = info;
  }

  #base(key: string, ts: number, parent: string | undefined): TranscriptMessage | undefined {
    const sessionId = this.state.tracker.sessionId;
    if (sessionId === undefined) return undefined;
    return newMessage("openclaw", sessionId, ts, key, this.state.cwd, parent);
  }

  #message(
    obj: UnknownRecord,
    message: UnknownRecord,
    id: string,
    ts: number,
    out: ParsedRecords,
  ): void {
    const role = str(message.role) ?? "";
    const parent = str(obj.parentId);
    const content = message.content;
    if (role === "user") {
      const text = contentText(content);
      const m = this.#base(`${id}:0`, ts, parent);
      if (m === undefined || text.trim() === "") return;
      m.role = "user";
      m.message_type = "user";
      m.text = this.cleaner.clean(text);
      out.messages.push(m);
      return;
    }
    if (role === "toolResult") {
      const m = this.#base(`${id}:0`, ts, parent);
      if (m === undefined) return;
      m.role = "tool";
      m.message_type = "tool_result";
      m.text = this.cleaner.clean(contentText(content));
      const callId = str(message.toolCallId);
      if (callId !== undefined) m.tool_use_id = callId;
      const name = str(message.toolName);
      if (name !== undefined) m.tool_name = name;
      if (message.isError === true || execFailed(message.details)) m.is_error = true;
      out.messages.push(m);
      return;
    }
    if (role === "bashExecution") {
      // A command the person ran with `!` in the chat: a tool call and its result.
      const command = str(message.command);
      const use = this.#base(`${id}:call`, ts, parent);
      const result = this.#base(`${id}:output`, ts, parent);
      if (command === undefined || use === undefined || result === undefined) return;
      const target = toolTarget("bash", { command });
      use.role = "user";
      use.message_type = "tool_use";
      use.tool_name = "bash";
      use.text = this.cleaner.clean(command);
      use.command = use.text;
      if (target.command_prefix !== undefined) use.command_prefix = target.command_prefix;
      result.role = "tool";
      result.message_type = "tool_result";
      result.tool_name = "bash";
      result.text = this.cleaner.clean(str(message.output) ?? "");
      const exitCode = num(message.exitCode);
      if ((exitCode !== undefined && exitCode !== 0) || message.cancelled === true) {
        result.is_error = true;
      }
      out.messages.push(use, result);
      out.tool_calls++;
      return;
    }
    if (role !== "assistant") return;

    const model = str(message.model);
    if (model !== undefined) this.state.model = model;
    const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
    if (Array.isArray(blocks)) {
      blocks.forEach((block: unknown, index: number) => {
        if (!isRecord(block)) return;
        const m = this.#base(`${id}:${index}`, ts, parent);
        if (m === undefined) return;
        if (this.state.model !== undefined) m.model = this.state.model;
        if (block.type === "text") {
          const text = str(block.text);
          if (text === undefined) return;
          m.text = this.cleaner.clean(text);
          out.messages.push(m);
        } else if (block.type === "thinking") {
          const text = str(block.thinking);
          if (text === undefined) return;
          m.message_type = "thinking";
          m.text = this.cleaner.clean(text);
          out.messages.push(m);
        } else if (block.type === "toolCall" || block.type === "tool_use") {
          const name = str(block.name);
          const input = block.arguments ?? block.input;
          m.message_type = "tool_use";
          m.text = this.cleaner.clean(textOf(input));
          if (name !== undefined) m.tool_name = name;
          const callId = str(block.id);
          if (callId !== undefined) m.tool_use_id = callId;
          const target = toolTarget(name, input);
          if (target.file_path !== undefined) m.file_path = target.file_path;
          if (target.command !== undefined) m.command = this.cleaner.clean(target.command);
          if (target.command_prefix !== undefined) m.command_prefix = target.command_prefix;
          out.messages.push(m);
          out.tool_calls++;
        }
      });
    }

    const usage = isRecord(message.usage) ? message.usage : undefined;
    const sessionId = this.state.tracker.sessionId;
    if (usage === undefined || sessionId === undefined) return;
    const record: UsageRecord = {
      agent: "openclaw",
      session_id: sessionId,
      ts,
      usage_key: `${sessionId}:${id}`,
      input_tokens: count(usage.input),
      output_tokens: count(usage.output),
      cache_read_tokens: count(usage.cacheRead),
      cache_write_tokens: count(usage.cacheWrite),
      reasoning_tokens: count(usage.reasoningTokens),
    };
    if (this.state.model !== undefined) record.model = this.state.model;
    const cost = isRecord(usage.cost) ? num(usage.cost.total) : undefined;
    if (cost !== undefined && cost > 0) record.reported_cost_usd = cost;
    out.usage.push(record);
  }
}

/**
 * Creates a parser for one OpenClaw session transcript.
 *
 * @example
 * ```ts
 * const parser = createOpenClawParser({ path: "/h/.openclaw/agents/main/sessions/8c1d.jsonl" });
 * parser.parseLine('{"type":"session","version":3,"id":"8c1d","timestamp":"2026-01-02T03:04:05Z","cwd":"/p"}');
 * ```
 */
export function createOpenClawParser(options: TranscriptParserOptions = {}): TranscriptParser {
  return new OpenClawParser(options);
}
