/**
 * Parser for Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`,
 * `~/.codex/archived_sessions/*.jsonl`).
 *
 * Each line is `{timestamp, type, payload}`. The conversation is read from `response_item`
 * records (messages, reasoning summaries, function calls and their outputs); the `event_msg`
 * copies of the same content (`user_message`, `agent_message`, `item_completed`, …) are
 * skipped so nothing is counted twice. Usage comes from `event_msg` `token_count`, whose
 * `info.total_token_usage` is **cumulative**: the parser emits the difference to the previous
 * total, keyed `<session>:<cumulative total>`, and skips repeats (`info: null` carries none).
 * Newer Codex builds also write per-response `token_usage_record` lines with the same figures;
 * they are recognised and ignored so usage is not counted twice.
 *
 * Tool outcomes: Codex's hooks hand over a command's output without its exit code, so the exit
 * status is read here and joined to the hook by `call_id`: from `item_completed`
 * (`CommandExecution` with `exit_code`, written just before the PostToolUse hook fires), from the
 * older `exec_command_end` / `patch_apply_end` events, and from `function_call_output`
 * (`Process exited with code N`, written after the hook).
 *
 * @module
 */

import { toolTarget } from "../tool_input.ts";
import {
  baseName,
  cleanerFor,
  contentText,
  count,
  firstLines,
  isRecord,
  newMessage,
  parseJsonObject,
  parseLineWith,
  parseTimestamp,
  SessionTracker,
  stableHash,
  str,
  type TextCleaner,
  textOf,
  type UnknownRecord,
} from "./transcript_support.ts";
import type {
  JsonObject,
  JsonValue,
  MessageRole,
  MessageType,
  ParsedRecords,
  ToolOutcome,
  TranscriptMessage,
  TranscriptParser,
  TranscriptParserOptions,
} from "../../model/agent_records.ts";

const KNOWN_TOP_TYPES = new Set([
  "session_meta",
  "turn_context",
  "response_item",
  "event_msg",
  "compacted",
  "world_state",
  "token_usage_record",
  "thread_settings_applied",
  "item_completed",
]);

// User-role messages Codex injects itself (environment, AGENTS.md, permissions): shown as
// system messages so a transcript reads as what the person actually typed.
const INJECTED_USER_PREFIXES = [
  "<environment_context>",
  "<user_instructions>",
  "<permissions instructions>",
  "<user_shell_command>",
  "# AGENTS.md instructions",
  "<INSTRUCTIONS>",
];

const UUID_IN_NAME = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/**
 * The session id embedded in a rollout file name, if any.
 *
 * @example
 * ```ts
 * codexSessionIdFromPath("rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
 * // "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
 * ```
 */
export function codexSessionIdFromPath(path: string): string | undefined {
  return UUID_IN_NAME.exec(baseName(path))?.[1];
}

interface Totals {
  input: number;
  cached: number;
  cache_write: number;
  output: number;
  reasoning: number;
  total: number;
}

function totalsOf(value: unknown): Totals | undefined {
  if (!isRecord(value)) return undefined;
  const totals: Totals = {
    input: count(value.input_tokens),
    cached: count(value.cached_input_tokens),
    cache_write: count(value.cache_write_input_tokens),
    output: count(value.output_tokens),
    reasoning: count(value.reasoning_output_tokens),
    total: count(value.total_tokens),
  };
  if (totals.total === 0) totals.total = totals.input + totals.output;
  return totals;
}

function totalsFromJson(value: JsonValue | undefined): Totals | undefined {
  return value === undefined || value === null ? undefined : totalsOf(value);
}

// Exit code inside a function_call_output: `Process exited with code 2` / `Exit code: 2`, or
// the older JSON-encoded `{"output":…,"metadata":{"exit_code":2}}`.
const EXIT_CODE = /^(?:Process exited with code (-?\d+)|Exit code:?\s*(-?\d+))/m;

function toolOutput(
  output: unknown,
): { text: string; isError: boolean; exitCode: number | undefined } {
  let text = "";
  let isError = false;
  let exitCode: number | undefined;
  let value = output;
  if (typeof value === "string" && value.trimStart().startsWith("{")) {
    value = parseJsonObject(value) ?? value;
  }
  if (typeof value === "string") {
    text = value;
  } else if (isRecord(value)) {
    text = typeof value.output === "string" ? value.output : contentText(value.content) ||
      textOf(value);
    const metadata = isRecord(value.metadata) ? value.metadata : undefined;
    const code = metadata !== undefined ? metadata.exit_code : value.exit_code;
    if (typeof code === "number") exitCode = code;
    if (value.success === false) isError = true;
  } else if (Array.isArray(value)) {
    text = contentText(value);
  }
  const match = EXIT_CODE.exec(text);
  if (exitCode === undefined && match !== null) exitCode = Number(match[1] ?? match[2]);
  if (exitCode !== undefined && exitCode !== 0) isError = true;
  return { text, isError, exitCode };
}

// A function_call_output of exec_command: `Chunk ID: …`, `Wall time: …`, `Process exited with
// code N`, `Original token count: …`, then `Output:` and the command's output.
const COMMAND_OUTPUT = /^Output:\n([\s\S]*)$/m;

// `item_completed` items that are tool calls, by the status they end with.
const TOOL_ITEM_TYPES = new Set(["CommandExecution", "FileChange", "McpToolCall"]);
const FAILED_STATUSES = new Set(["failed", "declined"]);

/** The error summary of a failed call: its exit code, then the first lines of its output. */
function failureText(exitCode: number | undefined, output: string): string {
  const head = exitCode !== undefined ? `Exit code ${exitCode}\n` : "";
  return firstLines(`${head}${output}`) || "tool failed";
}

class CodexParser implements TranscriptParser {
  readonly agent = "codex" as const;
  readonly #cleaner: TextCleaner;
  readonly #fileSessionId: string | undefined;
  readonly #tracker: SessionTracker;
  #cwd: string | undefined;
  #model: string | undefined;
  #lastTotals: Totals | undefined;
  #contextWindow: number | undefined;
  #lastTs: number;
  #sawMeta: boolean;

  constructor(options: TranscriptParserOptions) {
    this.#cleaner = cleanerFor(options);
    this.#fileSessionId = options.path !== undefined
      ? codexSessionIdFromPath(options.path)
      : undefined;
    const saved = options.state ?? {};
    this.#tracker = new SessionTracker("codex", saved.session);
    this.#cwd = str(saved.cwd);
    this.#model = str(saved.model);
    this.#lastTotals = totalsFromJson(saved.last_totals);
    this.#contextWindow = typeof saved.context_window === "number"
      ? saved.context_window
      : undefined;
    this.#lastTs = typeof saved.last_ts === "number" ? saved.last_ts : 0;
    this.#sawMeta = saved.saw_meta === true;
  }

  saveState(): JsonObject {
    const out: JsonObject = {
      version: 1,
      agent: this.agent,
      session: this.#tracker.toJSON(),
      last_ts: this.#lastTs,
      saw_meta: this.#sawMeta,
    };
    if (this.#cwd !== undefined) out.cwd = this.#cwd;
    if (this.#model !== undefined) out.model = this.#model;
    if (this.#lastTotals !== undefined) {
      const t = this.#lastTotals;
      out.last_totals = {
        input_tokens: t.input,
        cached_input_tokens: t.cached,
        cache_write_input_tokens: t.cache_write,
        output_tokens: t.output,
        reasoning_output_tokens: t.reasoning,
        total_tokens: t.total,
      };
    }
    if (this.#contextWindow !== undefined) out.context_window = this.#contextWindow;
    return out;
  }

  parseLine(line: string): ParsedRecords {
    return parseLineWith(line, (record, text, out) => this.#parse(record, text, out));
  }

  get #sessionId(): string | undefined {
    return this.#tracker.sessionId ?? this.#fileSessionId;
  }

  #parse(obj: UnknownRecord, line: string, out: ParsedRecords): void {
    const type = str(obj.type) ?? "";
    const payload = isRecord(obj.payload) ? obj.payload : {};
    const lineTs = parseTimestamp(obj.timestamp);
    const ts = lineTs ?? this.#lastTs;
    if (ts > this.#lastTs) this.#lastTs = ts;
    if (this.#tracker.sessionId === undefined && this.#fileSessionId !== undefined) {
      this.#tracker.sessionId = this.#fileSessionId;
    }

    switch (type) {
      case "session_meta":
        this.#sessionMeta(payload, ts);
        break;
      case "turn_context": {
        const cwd = str(payload.cwd);
        if (cwd !== undefined) this.#cwd = cwd;
        const model = str(payload.model);
        if (model !== undefined) this.#model = model;
        break;
      }
      case "response_item":
        this.#responseItem(payload, line, ts, out);
        break;
      case "event_msg":
        this.#eventMsg(payload, ts, out);
        break;
      case "item_completed":
        if (isRecord(payload.item)) this.#completedItem(payload.item, ts, out);
        break;
      default:
        if (!KNOWN_TOP_TYPES.has(type)) out.unknown_type = type === "" ? "(none)" : type;
    }
    this.#tracker.started(lineTs);
    this.#tracker.learn({ cwd: this.#cwd, model: this.#model });
    const info = this.#tracker.changed();
    if (info !== undefined) out.session = info;
  }

  #sessionMeta(payload: UnknownRecord, ts: number): void {
    // A fork or resume may replay earlier metadata; the first one names this file's session.
    if (this.#sawMeta) return;
    this.#sawMeta = true;
    const id = str(payload.id) ?? str(payload.session_id);
    if (id !== undefined) this.#tracker.sessionId = id;
    const cwd = str(payload.cwd);
    if (cwd !== undefined) this.#cwd = cwd;
    this.#tracker.started(parseTimestamp(payload.timestamp) ?? ts);
    const git = isRecord(payload.git) ? payload.git : undefined;
    const source = isRecord(payload.source) ? payload.source : undefined;
    const subagent = source !== undefined && isRecord(source.subagent)
      ? source.subagent
      : undefined;
    const spawn = subagent !== undefined && isRecord(subagent.thread_spawn)
      ? subagent.thread_spawn
      : undefined;
    const parent = (spawn !== undefined ? str(spawn.parent_thread_id) : undefined) ??
      str(payload.forked_from_id);
    this.#tracker.learn({
      git_branch: git !== undefined ? str(git.branch) : undefined,
      parent_session_id: parent,
    });
  }

  #base(ts: number, key: string): TranscriptMessage | undefined {
    const sessionId = this.#sessionId;
    if (sessionId === undefined) return undefined;
    return newMessage("codex", sessionId, ts, key, this.#cwd);
  }

  #responseItem(payload: UnknownRecord, line: string, ts: number, out: ParsedRecords): void {
    const itemType = str(payload.type) ?? "";
    const callId = str(payload.call_id);
    const lineKey = (): string => str(payload.id) ?? `line:${stableHash(line)}`;
    switch (itemType) {
      case "message": {
        const text = contentText(payload.content);
        if (text.trim() === "") return;
        const role = str(payload.role) ?? "assistant";
        let messageRole: MessageRole = "assistant";
        let messageType: MessageType = "assistant";
        if (role === "user") {
          const injected = INJECTED_USER_PREFIXES.some((p) => text.trimStart().startsWith(p));
          messageRole = injected ? "system" : "user";
          messageType = injected ? "system" : "user";
        } else if (role === "developer" || role === "system") {
          messageRole = "system";
          messageType = "system";
        }
        const m = this.#base(ts, lineKey());
        if (m === undefined) return;
        m.role = messageRole;
        m.message_type = messageType;
        m.text = this.#cleaner.clean(text);
        if (messageRole === "assistant" && this.#model !== undefined) m.model = this.#model;
        out.messages.push(m);
        return;
      }
      case "reasoning": {
        const parts: string[] = [];
        if (Array.isArray(payload.summary)) {
          for (const part of payload.summary) {
            const text = isRecord(part) ? str(part.text) : undefined;
            if (text !== undefined) parts.push(text);
          }
        }
        const raw = contentText(payload.content);
        const text = parts.length > 0 ? parts.join("\n") : raw;
        if (text.trim() === "") return;
        const m = this.#base(ts, lineKey());
        if (m === undefined) return;
        m.message_type = "thinking";
        m.text = this.#cleaner.clean(text);
        if (this.#model !== undefined) m.model = this.#model;
        out.messages.push(m);
        return;
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call":
      case "web_search_call": {
        const name = str(payload.name) ??
          (itemType === "local_shell_call"
            ? "local_shell"
            : itemType === "web_search_call"
            ? "web_search"
            : undefined);
        const input = itemType === "function_call"
          ? payload.arguments
          : itemType === "custom_tool_call"
          ? payload.input
          : payload.action;
        const m = this.#base(ts, `${callId ?? lineKey()}:call`);
        if (m === undefined) return;
        m.message_type = "tool_use";
        m.text = this.#cleaner.clean(textOf(input));
        if (name !== undefined) m.tool_name = name;
        if (callId !== undefined) m.tool_use_id = callId;
        if (this.#model !== undefined) m.model = this.#model;
        const target = toolTarget(name, input);
        if (target.file_path !== undefined) m.file_path = target.file_path;
        if (target.command !== undefined) m.command = this.#cleaner.clean(target.command);
        if (target.command_prefix !== undefined) m.command_prefix = target.command_prefix;
        out.messages.push(m);
        out.tool_calls++;
        return;
      }
      case "function_call_output":
      case "custom_tool_call_output":
      case "local_shell_call_output": {
        const { text, isError, exitCode } = toolOutput(payload.output);
        const m = this.#base(ts, `${callId ?? lineKey()}:output`);
        if (m === undefined) return;
        m.role = "tool";
        m.message_type = "tool_result";
        m.text = this.#cleaner.clean(text);
        if (callId !== undefined) m.tool_use_id = callId;
        if (isError) m.is_error = true;
        out.messages.push(m);
        // Only an exit code says how a call ended; other output text (an unsupported call, a
        // patch result) leaves it unknown.
        if (exitCode !== undefined) {
          // The command's own output follows the `Output:` line of Codex's header.
          const output = COMMAND_OUTPUT.exec(text)?.[1] ?? text;
          this.#outcome(out, callId, ts, exitCode === 0, exitCode, output);
        }
        return;
      }
      default:
        // compaction, image_generation_call, tool_search_call, …: no conversation text.
        return;
    }
  }

  #outcome(
    out: ParsedRecords,
    callId: string | undefined,
    ts: number,
    success: boolean,
    exitCode: number | undefined,
    output: string,
  ): void {
    const sessionId = this.#sessionId;
    if (callId === undefined || sessionId === undefined) return;
    const outcome: ToolOutcome = {
      agent: "codex",
      session_id: sessionId,
      tool_use_id: callId,
      ts,
      success,
    };
    if (exitCode !== undefined) outcome.exit_code = exitCode;
    if (!success) outcome.error = this.#cleaner.clean(failureText(exitCode, output));
    out.outcomes.push(outcome);
  }

  /** `item_completed`: a finished tool call says how it ended (exit code or status). */
  #completedItem(item: UnknownRecord, ts: number, out: ParsedRecords): void {
    const itemType = str(item.type);
    if (itemType === undefined || !TOOL_ITEM_TYPES.has(itemType)) return;
    const output = str(item.aggregated_output) ?? str(item.error) ?? "";
    if (typeof item.exit_code === "number") {
      const code = item.exit_code;
      this.#outcome(out, str(item.id), ts, code === 0, code, output);
      return;
    }
    const status = str(item.status);
    if (status === "completed") this.#outcome(out, str(item.id), ts, true, undefined, output);
    else if (status !== undefined && FAILED_STATUSES.has(status)) {
      this.#outcome(out, str(item.id), ts, false, undefined, `${status}\n${output}`);
    }
  }

  #eventMsg(payload: UnknownRecord, ts: number, out: ParsedRecords): void {
    const eventType = str(payload.type);
    if (eventType === "item_completed") {
      if (isRecord(payload.item)) this.#completedItem(payload.item, ts, out);
      return;
    }
    if (eventType === "exec_command_end") {
      // Older Codex builds: the end of a shell command, with its exit code.
      const code = typeof payload.exit_code === "number" ? payload.exit_code : undefined;
      if (code === undefined) return;
      const output = str(payload.aggregated_output) ?? str(payload.stderr) ??
        str(payload.stdout) ?? "";
      this.#outcome(out, str(payload.call_id), ts, code === 0, code, output);
      return;
    }
    if (eventType === "patch_apply_end" && typeof payload.success === "boolean") {
      const output = str(payload.stderr) ?? str(payload.stdout) ?? "";
      this.#outcome(out, str(payload.call_id), ts, payload.success, undefined, output);
      return;
    }
    if (eventType === "thread_name_updated") {
      const title = str(payload.thread_name) ?? str(payload.name);
      if (title !== undefined) this.#tracker.learn({ title });
      return;
    }
    if (eventType !== "token_count") return;
    const info = isRecord(payload.info) ? payload.info : undefined;
    if (info === undefined) return; // `info: null` before the first model call
    const window = count(info.model_context_window);
    if (window > 0) this.#contextWindow = window;
    const current = totalsOf(info.total_token_usage);
    const sessionId = this.#sessionId;
    if (current === undefined || sessionId === undefined) return;
    let previous = this.#lastTotals;
    if (previous !== undefined && current.total === previous.total) return; // repeated snapshot
    if (previous !== undefined && current.total < previous.total) previous = undefined; // reset
    this.#lastTotals = current;
    const delta = (key: keyof Totals): number =>
      Math.max(0, current[key] - (previous !== undefined ? previous[key] : 0));
    const cached = delta("cached");
    out.usage.push({
      agent: "codex",
      session_id: sessionId,
      ts,
      ...(this.#model !== undefined ? { model: this.#model } : {}),
      usage_key: `${sessionId}:${current.total}`,
      // OpenAI counts cached tokens inside input_tokens; Vantage keeps them apart.
      input_tokens: Math.max(0, delta("input") - cached),
      output_tokens: delta("output"),
      cache_read_tokens: cached,
      cache_write_tokens: delta("cache_write"),
      reasoning_tokens: delta("reasoning"),
      ...(this.#contextWindow !== undefined ? { context_window: this.#contextWindow } : {}),
    });
  }
}

/**
 * Creates a parser for one Codex rollout file.
 *
 * @example
 * ```ts
 * const parser = createCodexParser({ path: "rollout-2026-01-02T03-04-05-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl" });
 * parser.parseLine('{"type":"turn_context","payload":{"cwd":"/p","model":"gpt-5"}}');
 * ```
 */
export function createCodexParser(options: TranscriptParserOptions = {}): TranscriptParser {
  return new CodexParser(options);
}
