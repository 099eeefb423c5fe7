/**
 * Who changed a file: an agent (a recent hook event shows it writing that file, or running a
 * shell command that names it) or `unknown` — a person, a formatter, a build, another tool.
 * Only observed agent writes count as `agent`; everything else is external to the agents.
 *
 * @module
 */

import type { HookEvent } from "../model/agent_records.ts";
import { absoluteFile, baseNameOf, toolKind } from "./tool_calls.ts";
import type { FileChangeEvent } from "./file_watcher.ts";

/** The verdict on one change. */
export type Attribution = "agent" | "unknown";

/** A file change with its verdict and, for `agent`, the event that explains it. */
export interface AttributedChange extends FileChangeEvent {
  /** The verdict. */
  attribution: Attribution;
  /** Session whose event explained the change. */
  session_id?: string;
  /** Agent of that event. */
  agent?: string;
  /** Tool of that event (`Edit`, `Bash`, …). */
  tool_name?: string;
  /** Time of that event. */
  event_ts?: number;
}

/** Options for {@linkcode attributeChange}. */
export interface AttributionOptions {
  /** How long before the change an agent event may be. Default 5000 ms. */
  windowMs?: number;
  /**
   * How long *after* the change an event may be and still explain it. PostToolUse fires after
   * the write it reports, and hook and watcher clocks are read at slightly different moments.
   * Default 1000 ms.
   */
  skewMs?: number;
}

const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// Does the command text name the file: its absolute path, its path relative to the command's
// cwd, or its base name as a whole word (`sed -i s/a/b/ util.ts`, `> out/report.json`).
function commandNames(command: string, path: string, cwd: string | undefined): boolean {
  if (command.includes(path)) return true;
  if (
    cwd !== undefined && path.startsWith(`${cwd}/`) && command.includes(path.slice(cwd.length + 1))
  ) {
    return true;
  }
  const base = baseNameOf(path);
  if (base === "") return false;
  return new RegExp(`(^|[^\\w.-])${escapeRegex(base)}($|[^\\w.-])`).test(command);
}

/** Whether one hook event explains a write to `path` (time not considered). */
export function eventExplains(event: HookEvent, path: string): boolean {
  if (!TOOL_EVENTS.has(event.event_type)) return false;
  const kind = toolKind(event.tool_name);
  const base = event.cwd ?? event.project;
  if (kind === "edit" || kind === "other") {
    const files = event.file_paths ?? (event.file_path !== undefined ? [event.file_path] : []);
    if (files.some((f) => absoluteFile(f, base) === path)) return true;
  }
  if (event.command !== undefined) return commandNames(event.command, path, base);
  return false;
}

/**
 * Attributes one change: `agent` when an agent event explains it within the window, else
 * `unknown`. The closest explaining event wins.
 *
 * @example
 * ```ts
 * attributeChange(
 *   { path: "/p/a.ts", kind: "modify", ts: 10_000 },
 *   [{ event_type: "PreToolUse", tool_name: "Edit", file_path: "/p/a.ts", ts: 9_000, … }],
 * ).attribution; // "agent"
 * ```
 */
export function attributeChange(
  change: FileChangeEvent,
  events: readonly HookEvent[],
  options: AttributionOptions = {},
): AttributedChange {
  const windowMs = options.windowMs ?? 5000;
  const skewMs = options.skewMs ?? 1000;
  let best: HookEvent | undefined;
  for (const event of events) {
    if (event.ts < change.ts - windowMs || event.ts > change.ts + skewMs) continue;
    if (!eventExplains(event, change.path)) continue;
    if (best === undefined || Math.abs(change.ts - event.ts) < Math.abs(change.ts - best.ts)) {
      best = event;
    }
  }
  if (best === undefined) return { ...change, attribution: "unknown" };
  const attributed: AttributedChange = {
    ...change,
    attribution: "agent",
    session_id: best.session_id,
    agent: best.agent,
    event_ts: best.ts,
  };
  if (best.tool_name !== undefined) attributed.tool_name = best.tool_name;
  return attributed;
}

/**
 * Attributes a batch of changes against the same recent events (events outside every
 * change's window are skipped once, not per change).
 */
export function attributeChanges(
  changes: readonly FileChangeEvent[],
  events: readonly HookEvent[],
  options: AttributionOptions = {},
): AttributedChange[] {
  if (changes.length === 0) return [];
  const windowMs = options.windowMs ?? 5000;
  const skewMs = options.skewMs ?? 1000;
  const from = Math.min(...changes.map((c) => c.ts)) - windowMs;
  const to = Math.max(...changes.map((c) => c.ts)) + skewMs;
  const relevant = events.filter((e) =>
    e.ts >= from && e.ts <= to && TOOL_EVENTS.has(e.event_type)
  );
  return changes.map((change) => attributeChange(change, relevant, options));
}
