// Builders for crafted hook-event sequences used by the anomaly rule tests.
import type {
  HookEvent,
  JsonObject,
  JsonValue,
  UsageRecord,
} from "../../src/model/agent_records.ts";
import type {
  ObservedBuildRun,
  ObservedFileChange,
  SessionActivity,
} from "../../src/perception/anomaly_types.ts";
import type { BuildError } from "../../src/perception/build_errors.ts";

export const T0 = 1_800_000_000_000;
export const SESSION = "sess-1";
export const CWD = "/repo";

/** Milliseconds after T0, given in minutes and seconds. */
export function at(min: number, sec = 0): number {
  return T0 + min * 60_000 + sec * 1000;
}

let nextId = 0;

export interface CallSpec {
  tool: string;
  ts: number;
  file?: string;
  command?: string;
  input?: JsonValue;
  /** Omit for a call without a result yet. */
  success?: boolean;
  error?: string;
  output?: string;
  session?: string;
  /** Time between Pre and Post. Default 1 s. */
  durationMs?: number;
}

/** A PreToolUse + PostToolUse(Failure) pair sharing a tool_use_id. */
export function call(spec: CallSpec): HookEvent[] {
  const id = `toolu_${++nextId}`;
  const session = spec.session ?? SESSION;
  const input: JsonValue = spec.input ??
    (spec.command !== undefined
      ? { command: spec.command }
      : spec.file !== undefined
      ? { file_path: spec.file }
      : {});
  const base = (): HookEvent => {
    const event: HookEvent = {
      agent: "claude_code",
      session_id: session,
      cwd: CWD,
      event_type: "PreToolUse",
      ts: spec.ts,
      tool_name: spec.tool,
      tool_use_id: id,
      raw: { tool_input: input } as JsonObject,
    };
    if (spec.file !== undefined) event.file_path = spec.file;
    if (spec.command !== undefined) {
      event.command = spec.command;
      event.command_prefix = spec.command.split(/\s+/).slice(0, 2).join(" ");
    }
    return event;
  };
  const pre = base();
  if (spec.success === undefined) return [pre];
  const post = base();
  post.ts = spec.ts + (spec.durationMs ?? 1000);
  post.event_type = spec.success ? "PostToolUse" : "PostToolUseFailure";
  post.success = spec.success;
  if (spec.error !== undefined) post.error = spec.error;
  post.raw = {
    tool_input: input,
    tool_response: { stdout: spec.output ?? "", stderr: spec.error ?? "" },
  };
  return [pre, post];
}

export const read = (file: string, ts: number): HookEvent[] =>
  call({ tool: "Read", file, ts, success: true });

export const edit = (file: string, ts: number, oldText = "a", newText = "b"): HookEvent[] =>
  call({
    tool: "Edit",
    file,
    ts,
    success: true,
    input: { file_path: file, old_string: oldText, new_string: newText },
  });

export const shell = (command: string, ts: number, ok: boolean, output = ""): HookEvent[] =>
  call({
    tool: "Bash",
    command,
    ts,
    success: ok,
    error: ok ? undefined : output,
    output: ok ? output : "",
  });

export function change(
  path: string,
  ts: number,
  attribution: "agent" | "unknown" = "unknown",
  kind: "create" | "modify" | "remove" = "modify",
): ObservedFileChange {
  const c: ObservedFileChange = { path, ts, kind, attribution };
  if (attribution === "agent") c.session_id = SESSION;
  return c;
}

export function buildRun(
  command: string,
  ts: number,
  exitCode: number,
  errors: BuildError[] = [],
): ObservedBuildRun {
  return { command_line: command, started_at: ts, duration_ms: 2000, exit_code: exitCode, errors };
}

export function usage(ts: number, fields: Partial<UsageRecord> = {}): UsageRecord {
  return {
    agent: "claude_code",
    session_id: SESSION,
    ts,
    usage_key: `u${++nextId}`,
    input_tokens: 10,
    output_tokens: 500,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    model: "claude-sonnet-4-5-20250929",
    ...fields,
  };
}

export function activity(
  events: HookEvent[][],
  now: number,
  extra: Partial<SessionActivity> = {},
): SessionActivity {
  return { session_id: SESSION, now, events: events.flat(), ...extra };
}
