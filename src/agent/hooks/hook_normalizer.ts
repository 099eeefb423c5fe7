/**
 * Maps the hook payload of any supported agent onto one {@link HookEvent}.
 *
 * Shapes accepted (all read from stdin by `vantage hook --agent <a>`):
 *
 * - **Claude Code** — snake_case: `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
 *   `tool_name`, `tool_input`, `tool_response`, `tool_use_id`, `duration_ms`, `prompt`, `error`
 *   (PostToolUseFailure), `source`/`reason`/`trigger`, `agent_id`/`agent_type`.
 * - **Codex** — the same snake_case shape plus `model` and `turn_id`; tool names `Bash`,
 *   `apply_patch` (patch text in `tool_input.command`), `exec_command`, MCP tool names. The
 *   legacy `notify` payload (`{"type":"agent-turn-complete","thread-id",…}`) is read as Stop.
 * - **Copilot CLI, camelCase mode** — `sessionId`, `timestamp` (ms), `cwd`, `toolName`,
 *   `toolArgs` (a JSON *string*), `toolResult{resultType,textResultForLlm}`, `error`,
 *   `prompt`, `transcriptPath`, `stopReason`. The payload carries no event name (it is implied
 *   by the hook it was configured under), so pass it as `options.eventName`; without it the
 *   event is inferred from the fields present.
 * - **Copilot CLI, PascalCase (VS Code compatible) mode** — `hook_event_name`, `session_id`,
 *   `timestamp` (ISO), `tool_name`, `tool_input`, `tool_result{result_type,
 *   text_result_for_llm}`, `transcript_path`, `stop_reason`.
 * - **OpenClaw** — OpenClaw has no command hooks; Vantage's OpenClaw plugin forwards its
 *   in-process plugin hooks as JSON shaped like Claude's:
 *   ```json
 *   { "hook_event_name": "after_tool_call",      // plugin hook name or a canonical name
 *     "session_id": "8c1d…", "session_key": "agent:main:main", "agent_id": "main",
 *     "cwd": "/work/app", "timestamp": 1767323045000,  // ms or ISO
 *     "tool_name": "exec", "tool_call_id": "call_1",
 *     "params": { "command": "npm test" },            // tool arguments
 *     "result": { "isError": true, "content": "…" },  // after_tool_call only
 *     "error": "…", "duration_ms": 812,
 *     "prompt": "…", "model": "anthropic/claude-sonnet-4-5", "transcript_path": "…" }
 *   ```
 *   Plugin hook names map as: `session_start`→SessionStart, `session_end`→SessionEnd,
 *   `before_tool_call`→PreToolUse, `after_tool_call`→PostToolUse, `message_received`→
 *   UserPromptSubmit, `agent_end`→Stop, `before_compaction`→PreCompact,
 *   `after_compaction`→PostCompact, `subagent_spawned`→SubagentStart, `subagent_ended`→
 *   SubagentStop.
 *
 * A PostToolUse whose result carries a failure marker (`is_error`, `success:false`,
 * `interrupted`, a non-zero exit code, Copilot `resultType` failure/error/denied, or a Copilot
 * shell result ending `<shellId: N completed with exit code M>` with M ≠ 0, which Copilot
 * reports as `resultType: "success"`) is reported as PostToolUseFailure with `success:false`,
 * because several agents never fire a dedicated failure hook and the anomaly rules key on that
 * event type. Codex sends a command's bare output without its exit code: such an event keeps
 * `success` unset, and the server fills it in from the rollout (`hook_intake.ts`).
 *
 * @module
 */

import { plausibleEpochMs } from "../../core/limits.ts";
import { HOOK_TEXT_CAPS, oversizedHookField, RAW_STRING_TAIL } from "./hook_limits.ts";
import { redactValue } from "../redact/redact.ts";
import { toolTarget } from "../tool_input.ts";
import {
  AGENT_NAMES,
  type AgentName,
  type CanonicalHookEventType,
  type HookEvent,
  type JsonObject,
  type NormalizeResult,
} from "../../model/agent_records.ts";
import {
  capStrings,
  firstLines,
  isRecord,
  num,
  parseJsonObject,
  parseTimestamp,
  pickStr,
  str,
  textOf,
  toJsonValue,
  truncate,
  type UnknownRecord,
} from "../values.ts";

/** Options of {@link normalizeHookPayload}. */
export interface NormalizeHookOptions {
  /**
   * Event name the hook was registered under (`--event preToolUse`), used when the payload
   * does not name its event (Copilot camelCase mode). A name in the payload wins.
   */
  eventName?: string;
  /** Redact secrets in the payload before anything is extracted (default `true`). */
  redact?: boolean;
  /** Cap on prompt text in characters (default 32 768). */
  maxTextChars?: number;
}

const CANONICAL_EVENTS: readonly CanonicalHookEventType[] = [
  "SessionStart",
  "SessionEnd",
  "Setup",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "PermissionRequest",
  "PermissionDenied",
  "Notification",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "ErrorOccurred",
  "Interrupt",
];

// Other Claude Code events: not needed by any rule, but canonicalised so every casing of
// them lands on the documented spelling.
const OTHER_CLAUDE_EVENTS = [
  "UserPromptExpansion",
  "MessageDisplay",
  "TaskCreated",
  "TaskCompleted",
  "TeammateIdle",
  "InstructionsLoaded",
  "ConfigChange",
  "CwdChanged",
  "DirectoryAdded",
  "FileChanged",
  "WorktreeCreate",
  "WorktreeRemove",
  "Elicitation",
  "ElicitationResult",
];

// Look-up key: lower case without `_`, `-`, `:`, `.` or spaces.
function eventKey(name: string): string {
  return name.toLowerCase().replace(/[-_:.\s]/g, "");
}

const EVENT_NAMES: ReadonlyMap<string, string> = new Map<string, string>([
  ...[...CANONICAL_EVENTS, ...OTHER_CLAUDE_EVENTS].map((n): [string, string] => [eventKey(n), n]),
  // Copilot CLI camelCase names that differ from Claude's.
  ["userpromptsubmitted", "UserPromptSubmit"],
  ["agentstop", "Stop"],
  // OpenClaw plugin hooks.
  ["beforetoolcall", "PreToolUse"],
  ["aftertoolcall", "PostToolUse"],
  ["messagereceived", "UserPromptSubmit"],
  ["agentend", "Stop"],
  ["beforecompaction", "PreCompact"],
  ["aftercompaction", "PostCompact"],
  ["sessioncompactbefore", "PreCompact"],
  ["sessioncompactafter", "PostCompact"],
  ["subagentspawned", "SubagentStart"],
  ["subagentended", "SubagentStop"],
  // Codex legacy `notify` program payload.
  ["agentturncomplete", "Stop"],
]);

/**
 * Maps any known spelling of a hook event name to its canonical PascalCase name; unknown
 * names are returned exactly as given.
 *
 * @example
 * ```ts
 * canonicalEventName("userPromptSubmitted"); // "UserPromptSubmit"
 * canonicalEventName("before_tool_call");    // "PreToolUse"
 * canonicalEventName("MyCustomEvent");       // "MyCustomEvent"
 * ```
 */
export function canonicalEventName(name: string): string {
  return EVENT_NAMES.get(eventKey(name)) ?? name;
}

// Copilot camelCase payloads do not name their event; the fields tell which hook fired.
function inferEventName(p: UnknownRecord): string | undefined {
  const hasTool = str(p.toolName) !== undefined || str(p.tool_name) !== undefined;
  if (hasTool) {
    if (p.toolResult !== undefined || p.tool_result !== undefined) return "PostToolUse";
    if (p.error !== undefined) return "PostToolUseFailure";
    return "PreToolUse";
  }
  if (isRecord(p.error) && (p.errorContext !== undefined || p.error_context !== undefined)) {
    return "ErrorOccurred";
  }
  if (str(p.notification_type) !== undefined) return "Notification";
  if (str(p.prompt) !== undefined) return "UserPromptSubmit";
  if (str(p.agentName) !== undefined && str(p.stopReason) !== undefined) return "SubagentStop";
  if (str(p.agentName) !== undefined) return "SubagentStart";
  if (str(p.stopReason) !== undefined || str(p.stop_reason) !== undefined) return "Stop";
  if (str(p.trigger) !== undefined) return "PreCompact";
  if (str(p.reason) !== undefined) return "SessionEnd";
  if (str(p.source) !== undefined) return "SessionStart";
  return undefined;
}

interface Failure {
  error: string;
}

const FAILED_RESULT_TYPES = new Set(["failure", "error", "denied", "rejected"]);

function errorText(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (isRecord(value)) return pickStr(value, "message", "error", "text");
  return undefined;
}

function responseText(resp: UnknownRecord): string {
  return (
    pickStr(
      resp,
      "textResultForLlm",
      "text_result_for_llm",
      "stderr",
      "error",
      "output",
      "stdout",
      "message",
    ) ?? errorText(resp.error) ?? textOf(resp.content)
  );
}

// Codex tool output text begins `Exit code: 1` (exec) or says `Process exited with code 1`.
const EXIT_CODE_TEXT = /^(?:Exit code:?\s*(-?\d+)|Process exited with code (-?\d+))/m;

// Copilot CLI reports a shell command that exited non-zero as `resultType: "success"`; only the
// text it hands the model ends with the exit code (`<shellId: 0 completed with exit code 2>`,
// older builds `<exited with exit code 2>`).
const COPILOT_SHELL_EXIT = /<(?:shellId: [^<>\n]*? completed|exited) with exit code (-?\d+)>\s*$/;

/**
 * Finds a failure marker in a tool response of any agent, answering `undefined` for a
 * success or a response that says nothing.
 */
function detectFailure(resp: unknown): Failure | undefined {
  if (typeof resp === "string") {
    const match = EXIT_CODE_TEXT.exec(resp);
    const code = match ? Number(match[1] ?? match[2]) : 0;
    return code !== 0 ? { error: firstLines(resp) } : undefined;
  }
  if (!isRecord(resp)) return undefined;
  const resultType = pickStr(resp, "resultType", "result_type");
  if (resultType !== undefined && FAILED_RESULT_TYPES.has(resultType.toLowerCase())) {
    return { error: firstLines(`${resultType}: ${responseText(resp)}`) };
  }
  const llmText = pickStr(resp, "textResultForLlm", "text_result_for_llm");
  const shellExit = llmText !== undefined ? COPILOT_SHELL_EXIT.exec(llmText) : null;
  if (llmText !== undefined && shellExit !== null && Number(shellExit[1]) !== 0) {
    return { error: firstLines(`Exit code ${shellExit[1]}\n${llmText}`) };
  }
  if (resp.is_error === true || resp.isError === true || resp.success === false) {
    return { error: firstLines(responseText(resp)) || "tool reported an error" };
  }
  if (resp.interrupted === true) {
    return { error: firstLines(`interrupted\n${responseText(resp)}`) };
  }
  for (const key of ["exit_code", "exitCode", "code", "returncode"]) {
    const code = num(resp[key]);
    if (typeof resp[key] === "number" && code !== undefined && code !== 0) {
      return { error: firstLines(`Exit code ${code}\n${responseText(resp)}`) };
    }
  }
  const error = errorText(resp.error);
  if (error !== undefined) return { error: firstLines(error) };
  return undefined;
}

/** The tool call's input in a payload of any agent (an object, or Copilot's JSON string). */
export function toolInputOf(p: UnknownRecord): unknown {
  return p.tool_input ?? p.toolArgs ?? p.toolInput ?? p.tool_args ?? p.params ?? p.arguments;
}

function modelOf(p: UnknownRecord): string | undefined {
  const model = p.model;
  if (typeof model === "string") return str(model);
  if (isRecord(model)) return pickStr(model, "id", "name", "model");
  return undefined;
}

/**
 * Normalizes one hook payload. Never throws: anything unusable is answered with
 * `{ ok: false, reason }` naming what was wrong.
 *
 * @param agent Agent that fired the hook.
 * @param payload The parsed JSON payload (a JSON string is parsed first).
 * @param now Time to use when the payload carries no timestamp, in epoch ms.
 * @param options Event name hint, redaction switch, text cap.
 *
 * @example
 * ```ts
 * const result = normalizeHookPayload("claude_code", {
 *   session_id: "s1", cwd: "/p", hook_event_name: "PreToolUse",
 *   tool_name: "Bash", tool_input: { command: "npm test" },
 * }, Date.now());
 * if (result.ok) result.event.command_prefix; // "npm test"
 * ```
 */
export function normalizeHookPayload(
  agent: AgentName,
  payload: unknown,
  now: number = Date.now(),
  options: NormalizeHookOptions = {},
): NormalizeResult {
  try {
    return normalize(agent, payload, now, options);
  } catch (error) {
    // Defensive: extraction is total, but a hook must never take the server down.
    return { ok: false, reason: `could not normalize payload: ${String(error)}` };
  }
}

function normalize(
  agent: AgentName,
  payload: unknown,
  now: number,
  options: NormalizeHookOptions,
): NormalizeResult {
  if (!AGENT_NAMES.includes(agent)) {
    return { ok: false, reason: `unknown agent ${JSON.stringify(String(agent))}` };
  }
  let input = payload;
  if (typeof input === "string") {
    const parsed = parseJsonObject(input);
    if (parsed === undefined) return { ok: false, reason: "payload is not a JSON object" };
    input = parsed;
  }
  if (!isRecord(input)) {
    const kind = input === null ? "null" : Array.isArray(input) ? "an array" : typeof input;
    return { ok: false, reason: `payload is not an object (got ${kind})` };
  }

  const jsonRaw = toJsonValue(input) as JsonObject;
  const raw = options.redact === false ? jsonRaw : (redactValue(jsonRaw) as JsonObject);
  const p: UnknownRecord = raw;

  const sessionId = pickStr(p, "session_id", "sessionId", "thread-id", "thread_id", "threadId") ??
    pickStr(p, "session_key", "sessionKey");
  if (sessionId === undefined) {
    return { ok: false, reason: "missing session id (expected session_id or sessionId)" };
  }

  const givenName = pickStr(p, "hook_event_name", "hookEventName", "event", "hook") ??
    (agent === "codex" ? str(p.type) : undefined) ?? str(options.eventName) ?? inferEventName(p);
  if (givenName === undefined) {
    return {
      ok: false,
      reason: "missing hook event name (expected hook_event_name, or pass the event name)",
    };
  }
  let eventType = canonicalEventName(givenName);

  const cwd = pickStr(p, "cwd", "workingDirectory", "working_directory");
  const project = pickStr(p, "project_dir", "projectDir", "git_root", "gitRoot") ?? cwd;
  // A payload time outside the believable range (a unit mix-up, garbage) is no time at all.
  const given = parseTimestamp(p.timestamp ?? p.ts ?? p.time);
  const ts = given !== undefined && plausibleEpochMs(given, now) ? given : now;

  const event: HookEvent = { agent, session_id: sessionId, event_type: eventType, ts, raw };
  if (cwd !== undefined) event.cwd = cwd;
  if (project !== undefined) event.project = project;

  const toolName = pickStr(p, "tool_name", "toolName", "tool");
  if (toolName !== undefined) event.tool_name = toolName;
  const toolUseId = pickStr(p, "tool_use_id", "toolUseId", "tool_call_id", "toolCallId", "call_id");
  if (toolUseId !== undefined) event.tool_use_id = toolUseId;

  const toolInput = toolInputOf(p);
  if (toolName !== undefined && toolInput !== undefined) {
    const target = toolTarget(toolName, toolInput);
    if (target.file_path !== undefined) event.file_path = target.file_path;
    if (target.file_paths !== undefined) event.file_paths = target.file_paths;
    if (target.command !== undefined) {
      event.command = truncate(target.command, HOOK_TEXT_CAPS.command);
    }
    if (target.command_prefix !== undefined) event.command_prefix = target.command_prefix;
  } else if (eventType === "FileChanged") {
    const file = pickStr(p, "file_path", "filePath");
    if (file !== undefined) event.file_path = file;
  }

  const response = p.tool_response ?? p.toolResult ?? p.tool_result ?? p.toolResponse ??
    p.result;
  if (eventType === "PostToolUseFailure") {
    event.success = false;
    const failure = detectFailure(response);
    const error = errorText(p.error) ?? failure?.error ?? "tool failed";
    event.error = firstLines(p.is_interrupt === true ? `interrupted\n${error}` : error);
  } else if (eventType === "PostToolUse") {
    const failure = detectFailure(response);
    if (failure !== undefined) {
      eventType = "PostToolUseFailure";
      event.event_type = eventType;
      event.success = false;
      event.error = failure.error;
    } else if (typeof response !== "string" || EXIT_CODE_TEXT.test(response)) {
      event.success = true;
    }
    // Otherwise the response is bare output text (Codex sends a failed command's output
    // without its exit code): whether it succeeded is unknown, so `success` stays unset.
  } else if (eventType === "ErrorOccurred" || eventType === "StopFailure") {
    const error = errorText(p.error);
    if (error !== undefined) event.error = firstLines(error);
  }

  const duration = num(p.duration_ms ?? p.durationMs ?? p.duration) ??
    (isRecord(response) ? num(response.durationMs ?? response.duration_ms) : undefined);
  if (duration !== undefined && duration >= 0) event.duration_ms = Math.round(duration);

  const prompt = pickStr(p, "prompt", "user_prompt", "initialPrompt", "initial_prompt");
  if (prompt !== undefined) {
    event.prompt = truncate(prompt, options.maxTextChars ?? HOOK_TEXT_CAPS.prompt);
  }
  const model = modelOf(p);
  if (model !== undefined) event.model = model;
  const transcript = pickStr(p, "transcript_path", "transcriptPath");
  if (transcript !== undefined) event.transcript_path = transcript;
  const source = pickStr(
    p,
    "source",
    "reason",
    "trigger",
    "notification_type",
    "errorContext",
    "error_context",
  );
  if (source !== undefined) event.source = truncate(source, HOOK_TEXT_CAPS.source);
  const message = pickStr(
    p,
    "message",
    "last_assistant_message",
    "last-assistant-message",
    "stop_reason",
    "stopReason",
  );
  if (message !== undefined) event.message = truncate(message, HOOK_TEXT_CAPS.message);
  const agentId = pickStr(p, "agent_id", "agentId", "agentName", "agent_name");
  if (agentId !== undefined) event.agent_id = agentId;
  const agentType = pickStr(p, "agent_type", "agentType", "agentDisplayName", "agent_display_name");
  if (agentType !== undefined) event.agent_type = agentType;

  const oversized = oversizedHookField(event);
  if (oversized !== undefined) return { ok: false, reason: oversized };
  // Fields were read from the whole payload; what is kept of it is bounded string by string.
  event.raw = capStrings(raw, HOOK_TEXT_CAPS.raw_string, RAW_STRING_TAIL) as JsonObject;
  return { ok: true, event };
}
