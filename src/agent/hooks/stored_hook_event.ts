/**
 * A stored hook event back as the {@link HookEvent} its intake normalized:
 * the columns hold what normalizing found (event type, tool, files,
 * command, outcome, prompt, model), so an event read back is not normalized
 * again. Only `file_paths` (every file of a multi-file edit, where the
 * column keeps the first) is read from the stored tool input. The fields
 * nothing downstream of the store reads (transcript path, source, message,
 * sub-agent id and type) stay in `raw`.
 *
 * @module
 */
import { type HookEvent, type JsonObject, parseAgentName } from "../../model/agent_records.ts";
import type { StoredEventRow } from "../../store/agent/events.ts";
import { toolTarget } from "../tool_input.ts";
import { parseJsonObject } from "../values.ts";
import { toolInputOf } from "./hook_normalizer.ts";

/**
 * The event a stored row holds; undefined for a row no intake could have
 * written (an unknown agent, a payload that is not a JSON object).
 *
 * @example
 * ```ts ignore
 * const events = bundle.events.map(storedHookEvent).filter((e) => e !== undefined);
 * ```
 */
export function storedHookEvent(row: StoredEventRow): HookEvent | undefined {
  const agent = parseAgentName(row.agent);
  if (agent === undefined) return undefined;
  const raw = parseJsonObject(row.raw);
  if (raw === undefined) return undefined;
  const event: HookEvent = {
    agent,
    session_id: row.session_id,
    event_type: row.event_type,
    ts: row.ts,
    raw: raw as JsonObject,
  };
  if (row.cwd !== null) event.cwd = row.cwd;
  if (row.project !== null) event.project = row.project;
  if (row.tool_name !== null) event.tool_name = row.tool_name;
  if (row.tool_use_id !== null) event.tool_use_id = row.tool_use_id;
  if (row.file_path !== null) event.file_path = row.file_path;
  if (row.tool_name !== null) {
    const input = toolInputOf(raw);
    const files = input === undefined ? undefined : toolTarget(row.tool_name, input).file_paths;
    if (files !== undefined) event.file_paths = files;
  }
  if (row.command !== null) event.command = row.command;
  if (row.command_prefix !== null) event.command_prefix = row.command_prefix;
  if (row.success !== null) event.success = row.success === 1;
  if (row.error !== null) event.error = row.error;
  if (row.duration_ms !== null) event.duration_ms = row.duration_ms;
  if (row.prompt !== null) event.prompt = row.prompt;
  if (row.model !== null) event.model = row.model;
  return event;
}
