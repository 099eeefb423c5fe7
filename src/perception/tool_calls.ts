/**
 * Tool calls as the perception rules see them: Pre/Post hook events paired into one call, with
 * what the call touched (files, resolved to absolute paths), what kind of tool it was (edit,
 * read, shell, …), its input, its outcome and its output text.
 *
 * Agents name tools differently (`Edit`/`apply_patch`/`str_replace_editor`, `Read`/`view`,
 * `Bash`/`exec_command`/`shell`); the tables here fold them into a few kinds.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import { isShellTool } from "../agent/tool_input.ts";
import type { HookEvent, JsonValue } from "../model/agent_records.ts";

/** What a tool does, as far as the rules care. */
export type ToolKind = "edit" | "read" | "shell" | "search" | "other";

/** One tool call, from its Pre and/or Post hook event. */
export interface ToolCall {
  /** Session the call belongs to. */
  session_id: string;
  /** Tool name as the agent spells it. */
  tool_name: string;
  /** What kind of tool it is. */
  kind: ToolKind;
  /** When the call started (PreToolUse), or the only event's time. */
  ts: number;
  /** When the result arrived (PostToolUse / PostToolUseFailure). */
  end_ts?: number;
  /** The agent's id of the call, pairing Pre and Post events. */
  tool_use_id?: string;
  /** Files the call names, absolute when the event had a cwd to resolve against. */
  files: string[];
  /** Full shell command, for shell tools. */
  command?: string;
  /** Program and subcommand of `command`, as the ingest layer computed it. */
  command_prefix?: string;
  /** The tool input, parsed when it was JSON text. */
  input?: JsonValue;
  /** `true`/`false` once the result is known; unset while it is not (or never) known. */
  success?: boolean;
  /** Error summary of a failed call. */
  error?: string;
  /** Text the tool returned (stdout/stderr/content), capped. */
  output?: string;
  /** Working directory of the call. */
  cwd?: string;
}

const EDIT_TOOLS = new Set([
  "edit",
  "multiedit",
  "write",
  "notebookedit",
  "apply_patch",
  "applypatch",
  "str_replace_editor",
  "str_replace_based_edit_tool",
  "str_replace",
  "create",
  "create_file",
  "write_file",
  "edit_file",
  "replace",
  "insert",
  "patch",
]);

const READ_TOOLS = new Set([
  "read",
  "view",
  "read_file",
  "readfile",
  "notebookread",
  "open_file",
  "read_many_files",
  "cat",
]);

const SEARCH_TOOLS = new Set([
  "grep",
  "glob",
  "search",
  "find",
  "ls",
  "list_dir",
  "codebase_search",
  "file_search",
]);

/**
 * Classifies a tool name.
 *
 * @example
 * ```ts
 * toolKind("MultiEdit");     // "edit"
 * toolKind("exec_command");  // "shell"
 * toolKind("mcp__x__y");     // "other"
 * ```
 */
export function toolKind(toolName: string | undefined): ToolKind {
  if (toolName === undefined) return "other";
  const name = toolName.toLowerCase();
  if (EDIT_TOOLS.has(name)) return "edit";
  if (READ_TOOLS.has(name)) return "read";
  if (isShellTool(name)) return "shell";
  if (SEARCH_TOOLS.has(name)) return "search";
  return "other";
}

const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The tool input of a hook event's raw payload (`tool_input`, Copilot `toolArgs`, OpenClaw
 * `params`, …), parsed when it is JSON text.
 */
export function toolInputOf(event: HookEvent): JsonValue | undefined {
  const raw = event.raw;
  const input = raw.tool_input ?? raw.toolArgs ?? raw.toolInput ?? raw.tool_args ?? raw.params ??
    raw.arguments ?? raw.input;
  if (typeof input === "string") {
    const trimmed = input.trim();
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
      try {
        return JSON.parse(trimmed) as JsonValue;
      } catch {
        return input;
      }
    }
  }
  return input;
}

const OUTPUT_CAP = 64 * 1024;

function textOf(value: JsonValue | undefined, depth = 0): string {
  if (value === undefined || value === null || depth > 3) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return "";
  if (Array.isArray(value)) {
    return value.map((v) => textOf(v, depth + 1)).filter((t) => t !== "").join("\n");
  }
  const parts: string[] = [];
  for (
    const key of ["stdout", "stderr", "output", "content", "text", "error", "result", "message"]
  ) {
    const text = textOf(value[key], depth + 1);
    if (text !== "") parts.push(text);
  }
  return parts.join("\n");
}

/** The text a tool call returned, from the raw payload's `tool_response` (or `tool_result`). */
export function toolOutputOf(event: HookEvent): string {
  const raw = event.raw;
  const response = raw.tool_response ?? raw.toolResult ?? raw.tool_result ?? raw.result;
  const text = textOf(response);
  return text.length > OUTPUT_CAP ? text.slice(text.length - OUTPUT_CAP) : text;
}

/** Resolves a file path named by an event against the event's cwd. */
export function absoluteFile(path: string, cwd: string | undefined): string {
  if (isAbsolute(path) || cwd === undefined) return path;
  return resolve(cwd, path);
}

function filesOf(event: HookEvent): string[] {
  const names = event.file_paths ?? (event.file_path !== undefined ? [event.file_path] : []);
  const base = event.cwd ?? event.project;
  return [...new Set(names.map((name) => absoluteFile(name, base)))];
}

/**
 * Pairs the tool events of a session into calls, ordered by start time. Events without a
 * `tool_use_id` pair with the most recent open call of the same tool.
 *
 * @example
 * ```ts
 * const calls = toolCalls(events.filter((e) => e.session_id === id));
 * calls.filter((c) => c.kind === "edit").length;
 * ```
 */
export function toolCalls(events: readonly HookEvent[]): ToolCall[] {
  const sorted = [...events].filter((e) =>
    TOOL_EVENTS.has(e.event_type) && e.tool_name !== undefined
  )
    .sort((a, b) => a.ts - b.ts);
  const calls: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  const open: ToolCall[] = [];
  for (const event of sorted) {
    const isPre = event.event_type === "PreToolUse";
    let call: ToolCall | undefined;
    if (event.tool_use_id !== undefined) {
      call = byId.get(`${event.session_id}\u0000${event.tool_use_id}`);
    } else if (!isPre) {
      for (let i = open.length - 1; i >= 0; i--) {
        if (open[i].tool_name === event.tool_name && open[i].session_id === event.session_id) {
          call = open[i];
          open.splice(i, 1);
          break;
        }
      }
    }
    if (call === undefined) {
      call = {
        session_id: event.session_id,
        tool_name: event.tool_name!,
        kind: toolKind(event.tool_name),
        ts: event.ts,
        files: [],
      };
      calls.push(call);
      if (event.tool_use_id !== undefined) {
        call.tool_use_id = event.tool_use_id;
        byId.set(`${event.session_id}\u0000${event.tool_use_id}`, call);
      } else if (isPre) {
        open.push(call);
      }
    }
    for (const file of filesOf(event)) if (!call.files.includes(file)) call.files.push(file);
    if (call.command === undefined && event.command !== undefined) call.command = event.command;
    if (call.command_prefix === undefined && event.command_prefix !== undefined) {
      call.command_prefix = event.command_prefix;
    }
    if (call.cwd === undefined && event.cwd !== undefined) call.cwd = event.cwd;
    if (call.input === undefined) {
      const input = toolInputOf(event);
      if (input !== undefined) call.input = input;
    }
    if (isPre) continue;
    call.end_ts = event.ts;
    const failed = event.event_type === "PostToolUseFailure" || event.success === false;
    // A result whose outcome nobody told (a Codex hook before its rollout said the exit code)
    // is neither a pass nor a failure: counting it as a pass would end every failure streak.
    if (failed) call.success = false;
    else if (event.success === true || event.event_type !== "PostToolUse") call.success = true;
    else delete call.success;
    if (event.error !== undefined) call.error = event.error;
    const output = toolOutputOf(event);
    if (output !== "") call.output = output;
  }
  return calls;
}

/** One text replacement made by an edit call. */
export interface EditPair {
  /** File the replacement was made in (absolute when resolvable). */
  file?: string;
  /** Text replaced (`""` for a whole-file write or an added file). */
  old_text: string;
  /** Replacement text. */
  new_text: string;
}

function str(value: JsonValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

// `*** Update File: path` sections of a Codex patch: `-` lines are old text, `+` lines new.
function patchPairs(patch: string, cwd: string | undefined): EditPair[] {
  const pairs: EditPair[] = [];
  let file: string | undefined;
  let oldLines: string[] = [];
  let newLines: string[] = [];
  const flush = (): void => {
    if (oldLines.length > 0 || newLines.length > 0) {
      const pair: EditPair = { old_text: oldLines.join("\n"), new_text: newLines.join("\n") };
      if (file !== undefined) pair.file = absoluteFile(file, cwd);
      pairs.push(pair);
    }
    oldLines = [];
    newLines = [];
  };
  for (const line of patch.split("\n")) {
    const header = /^\*\*\* (?:Add|Update|Delete) File: (.+)$/.exec(line);
    if (header) {
      flush();
      file = header[1].trim();
    } else if (line.startsWith("@@")) {
      flush();
    } else if (line.startsWith("-") && !line.startsWith("---")) {
      oldLines.push(line.slice(1));
    } else if (line.startsWith("+") && !line.startsWith("+++")) {
      newLines.push(line.slice(1));
    }
  }
  flush();
  return pairs;
}

/**
 * The text replacements an edit call made: Claude `Edit` (`old_string`/`new_string`),
 * `MultiEdit` (`edits[]`), `str_replace_editor` (`old_str`/`new_str`), `Write` (whole content)
 * and Codex `apply_patch` hunks.
 */
export function editPairs(call: ToolCall): EditPair[] {
  const input = call.input;
  const file = call.files[0];
  const withFile = (pair: EditPair, path?: string): EditPair => {
    const target = path !== undefined ? absoluteFile(path, call.cwd) : file;
    return target === undefined ? pair : { ...pair, file: target };
  };
  if (typeof input === "string") return patchPairs(input, call.cwd);
  if (!isObject(input)) return [];
  const patch = str(input.patch) ?? str(input.input) ??
    (call.tool_name.toLowerCase() === "apply_patch" ? str(input.command) : undefined);
  if (patch !== undefined && patch.includes("*** ")) return patchPairs(patch, call.cwd);
  if (Array.isArray(input.edits)) {
    const pairs: EditPair[] = [];
    for (const edit of input.edits) {
      if (!isObject(edit)) continue;
      const oldText = str(edit.old_string) ?? str(edit.old_str) ?? str(edit.oldText);
      const newText = str(edit.new_string) ?? str(edit.new_str) ?? str(edit.newText);
      if (oldText !== undefined || newText !== undefined) {
        pairs.push(
          withFile(
            { old_text: oldText ?? "", new_text: newText ?? "" },
            str(edit.file_path) ?? str(edit.path),
          ),
        );
      }
    }
    return pairs;
  }
  const oldText = str(input.old_string) ?? str(input.old_str) ?? str(input.oldText);
  const newText = str(input.new_string) ?? str(input.new_str) ?? str(input.newText);
  if (oldText !== undefined || newText !== undefined) {
    return [withFile({ old_text: oldText ?? "", new_text: newText ?? "" })];
  }
  const content = str(input.content) ?? str(input.file_text) ?? str(input.text);
  if (content !== undefined) return [withFile({ old_text: "", new_text: content })];
  return [];
}

/**
 * Deterministic JSON with sorted keys, for comparing tool inputs.
 *
 * @example
 * ```ts
 * stableJson({ b: 1, a: [2, { d: 3, c: 4 }] }); // '{"a":[2,{"c":4,"d":3}],"b":1}'
 * ```
 */
export function stableJson(value: JsonValue | undefined): string {
  if (value === undefined) return "";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v)).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(",")}}`;
}

/** The base name of a path, for both separators. */
export function baseNameOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut === -1 ? path : path.slice(cut + 1);
}
