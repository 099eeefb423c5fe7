/**
 * Vantage's hook entries in a Claude-Code-shaped hooks file
 * (`{"hooks": {"Event": [{"matcher": "*", "hooks": [handler…]}]}}`, used by
 * Claude Code's `settings.json` and Codex's `hooks.json`): one matcher group
 * of Vantage's own per event, added, updated or removed without touching the
 * user's groups.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import {
  appendItem,
  detectJsonStyle,
  expectObject,
  newJsonDocument,
  pruneEmptyObjects,
  removeItemAt,
  replaceNode,
  sameJson,
  setJsonValue,
} from "./json_edit.ts";
import {
  findMember,
  type JsonArrayNode,
  type JsonFlavor,
  type JsonNode,
  nodeValue,
  parseJsonDocument,
} from "./json_syntax.ts";

/** One matcher group: an optional matcher and its handlers. */
export interface HookGroup {
  /** Which tools or sources the group applies to ("*" = all); absent where the event has none. */
  matcher?: string;
  /** The handlers to run. */
  hooks: Array<Record<string, unknown>>;
}

/** Tells Vantage's handlers from the user's. */
export type HandlerTest = (handler: unknown) => boolean;

/**
 * Makes the file's Vantage hooks exactly `desired` (event name → group):
 * updates Vantage's group in place, appends it where missing, removes
 * Vantage's groups from other events, and leaves every other group alone.
 * With an empty `desired` it removes all of Vantage's hooks. Events (and the
 * `hooks` object) left empty are removed when `prune` says Vantage created them.
 *
 * @example
 * ```ts
 * import { setHookGroups } from "./json_hooks.ts";
 * const ours = (h: unknown) => (h as { command?: string }).command?.endsWith(" hook --agent x") ?? false;
 * setHookGroups(undefined, "json", "settings.json", {
 *   Stop: { hooks: [{ type: "command", command: "v hook --agent x", timeout: 5 }] },
 * }, ours, () => true);
 * ```
 */
export function setHookGroups(
  text: string | undefined,
  flavor: JsonFlavor,
  file: string,
  desired: Readonly<Record<string, HookGroup>>,
  isOurs: HandlerTest,
  prune: (path: readonly string[]) => boolean,
): string | undefined {
  const events = Object.keys(desired);
  if (text === undefined || text.trim() === "") {
    if (events.length === 0) return text;
    const hooks: Record<string, HookGroup[]> = {};
    for (const event of events) hooks[event] = [desired[event]];
    return newJsonDocument(["hooks"], hooks);
  }
  let result = text;
  const emptied = new Set<string>();
  // One edit per pass, re-parsing after each, so every offset used is current.
  for (;;) {
    const action = nextAction(result, flavor, file, desired, isOurs);
    if (action === undefined) break;
    result = action.apply(result);
    if (action.event !== undefined) emptied.add(action.event);
  }
  for (const event of events) {
    const array = eventArray(result, flavor, file, event);
    if (array === undefined) {
      result = setJsonValue(result, flavor, ["hooks", event], [desired[event]], file);
    } else if (!array.items.some((item) => isOurGroup(nodeValue(item), isOurs))) {
      result = appendItem(result, detectJsonStyle(result), array, desired[event]);
    }
  }
  for (const event of emptied) {
    if (events.includes(event)) continue;
    result = pruneEmptyObjects(result, flavor, ["hooks", event], file, prune);
  }
  return result;
}

/** The events whose arrays hold a group made only of Vantage's handlers. */
export function eventsWithOurHooks(
  text: string,
  flavor: JsonFlavor,
  file: string,
  isOurs: HandlerTest,
): string[] {
  const root = parseJsonDocument(text, flavor, file);
  const hooks = root.kind === "object" ? findMember(root, "hooks")?.value : undefined;
  if (hooks === undefined || hooks.kind !== "object") return [];
  return hooks.members
    .filter((member) =>
      member.value.kind === "array" &&
      member.value.items.some((item) => isOurGroup(nodeValue(item), isOurs))
    )
    .map((member) => member.key);
}

/** The handlers of Vantage's groups, by event. */
export function ourHandlers(
  text: string,
  flavor: JsonFlavor,
  file: string,
  isOurs: HandlerTest,
): Record<string, Array<Record<string, unknown>>> {
  const found: Record<string, Array<Record<string, unknown>>> = {};
  const root = parseJsonDocument(text, flavor, file);
  const hooks = root.kind === "object" ? findMember(root, "hooks")?.value : undefined;
  if (hooks === undefined || hooks.kind !== "object") return found;
  for (const member of hooks.members) {
    if (member.value.kind !== "array") continue;
    for (const item of member.value.items) {
      const group = nodeValue(item) as { hooks?: unknown };
      if (!Array.isArray(group?.hooks)) continue;
      for (const handler of group.hooks) {
        if (isOurs(handler)) (found[member.key] ??= []).push(handler as Record<string, unknown>);
      }
    }
  }
  return found;
}

interface Action {
  event?: string;
  apply(text: string): string;
}

function nextAction(
  text: string,
  flavor: JsonFlavor,
  file: string,
  desired: Readonly<Record<string, HookGroup>>,
  isOurs: HandlerTest,
): Action | undefined {
  const root = expectObject(parseJsonDocument(text, flavor, file), file, []);
  const hooksMember = findMember(root, "hooks");
  if (hooksMember === undefined) return undefined;
  const hooks = expectObject(hooksMember.value, file, ["hooks"]);
  const style = detectJsonStyle(text);
  for (const member of hooks.members) {
    if (member.value.kind !== "array") continue;
    const array = member.value;
    const want = Object.hasOwn(desired, member.key) ? desired[member.key] : undefined;
    let keeper = false;
    for (let index = 0; index < array.items.length; index += 1) {
      const item = array.items[index];
      const value = nodeValue(item);
      if (isOurGroup(value, isOurs)) {
        if (want !== undefined && !keeper) {
          keeper = true;
          if (!sameJson(value, want)) return { apply: (t) => replaceNode(t, style, item, want) };
          continue;
        }
        return { event: member.key, apply: (t) => removeItemAt(t, array, index) };
      }
      const handler = ourHandlerIn(item, isOurs);
      if (handler !== undefined) {
        return { apply: (t) => removeItemAt(t, handler.array, handler.index) };
      }
    }
  }
  return undefined;
}

function eventArray(
  text: string,
  flavor: JsonFlavor,
  file: string,
  event: string,
): JsonArrayNode | undefined {
  const root = expectObject(parseJsonDocument(text, flavor, file), file, []);
  const hooks = findMember(root, "hooks");
  if (hooks === undefined) return undefined;
  const member = findMember(expectObject(hooks.value, file, ["hooks"]), event);
  if (member === undefined) return undefined;
  if (member.value.kind !== "array") {
    throw new VantageError(
      "conflict",
      `${file}: "hooks.${event}" is not a list of matcher groups, so Vantage cannot add its ` +
        `hook there; fix the file and run the command again`,
      { details: { file, path: `hooks.${event}` } },
    );
  }
  return member.value;
}

function isOurGroup(value: unknown, isOurs: HandlerTest): boolean {
  if (value === null || typeof value !== "object") return false;
  const handlers = (value as { hooks?: unknown }).hooks;
  return Array.isArray(handlers) && handlers.length > 0 && handlers.every(isOurs);
}

/** A Vantage handler inside a group that also holds the user's handlers. */
function ourHandlerIn(
  item: JsonNode,
  isOurs: HandlerTest,
): { array: JsonArrayNode; index: number } | undefined {
  if (item.kind !== "object") return undefined;
  const handlers = findMember(item, "hooks")?.value;
  if (handlers === undefined || handlers.kind !== "array") return undefined;
  const index = handlers.items.findIndex((handler) => isOurs(nodeValue(handler)));
  return index === -1 ? undefined : { array: handlers, index };
}
