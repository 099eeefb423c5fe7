/**
 * How a Claude Code main transcript names the sub-agents it started.
 *
 * A `Task` (older) or `Agent` (2.1+) tool call carries the sub-agent's type and a short
 * description in its input; the sub-agent's id (the `<id>` of `subagents/agent-<id>.jsonl`)
 * shows up later in the same file, on `progress` records of type `agent_progress`
 * (`data.agentId`, `parentToolUseID` = the call's id) and on the call's result
 * (`toolUseResult.agentId` / `agentType`, or the text `agentId: <id>` in older versions).
 * {@link SubagentLinks} joins the two, so a sub-agent gets its type and description however
 * the files arrive: its own file may be read before or after its parent's.
 *
 * @module
 */

import { RecentKeys } from "./transcript_support.ts";
import type { JsonObject, JsonValue } from "../../model/agent_records.ts";
import { isRecord, str, type UnknownRecord } from "../values.ts";

/** Tool names that start a sub-agent. */
const SPAWNING_TOOLS = new Set(["Task", "Agent"]);

/** Calls remembered at most: a call's result follows it within a few lines. */
const CALL_LIMIT = 64;

/** What one main-transcript line tells about a sub-agent. */
export interface SubagentLink {
  /** The sub-agent's id (file `agent-<id>.jsonl`). */
  agent_id: string;
  /** Its type (`general-purpose`, `Explore`, …), when known. */
  subagent_type?: string;
  /** The description the parent gave the task, when known. */
  description?: string;
  /** When the parent made the call, ms (the run's start), when known. */
  called_at?: number;
}

/**
 * The session id Vantage gives a Claude Code sub-agent: its parent's id, then `/agent-<id>`.
 *
 * @example
 * ```ts
 * subagentSessionId("843adfa2", "aae8c0de"); // "843adfa2/agent-aae8c0de"
 * ```
 */
export function subagentSessionId(parentSessionId: string, agentId: string): string {
  return `${parentSessionId}/agent-${agentId}`;
}

/**
 * The type of a sub-agent Claude Code runs on its own, read from its id: `acompact-<hex>`
 * (the agent that writes a compaction summary) is `compact`. Ids of Task/Agent calls are
 * plain hex, so they answer `undefined`.
 *
 * @example
 * ```ts
 * internalSubagentType("acompact-70d8e7"); // "compact"
 * internalSubagentType("a93ccab");         // undefined
 * ```
 */
export function internalSubagentType(agentId: string): string | undefined {
  const match = /^a([a-z][a-z_]*)-[0-9a-f]+$/.exec(agentId);
  return match?.[1];
}

interface CallFacts {
  type?: string;
  description?: string;
  at?: number;
}

/** Joins a main transcript's Task/Agent calls to the sub-agent ids that later name them. */
export class SubagentLinks {
  #calls: Map<string, CallFacts>;
  #reported: RecentKeys;

  /** @param saved what {@link SubagentLinks.toJSON} returned, after a restart. */
  constructor(saved?: JsonValue) {
    this.#calls = new Map();
    const record = isRecord(saved) ? saved : {};
    if (Array.isArray(record.calls)) {
      for (const entry of record.calls) {
        if (!Array.isArray(entry) || typeof entry[0] !== "string" || !isRecord(entry[1])) continue;
        const facts: CallFacts = {};
        const type = str(entry[1].type);
        const description = str(entry[1].description);
        const at = entry[1].at;
        if (type !== undefined) facts.type = type;
        if (description !== undefined) facts.description = description;
        if (typeof at === "number" && at > 0) facts.at = at;
        this.#calls.set(entry[0], facts);
      }
    }
    this.#reported = new RecentKeys(
      Array.isArray(record.reported)
        ? record.reported.filter((k): k is string => typeof k === "string")
        : [],
    );
  }

  /** Remembers a `tool_use` block, made at `at` (ms), when it starts a sub-agent. */
  noteToolUse(block: UnknownRecord, at: number): void {
    const id = str(block.id);
    const name = str(block.name);
    if (id === undefined || name === undefined || !SPAWNING_TOOLS.has(name)) return;
    const input = isRecord(block.input) ? block.input : {};
    const facts: CallFacts = {};
    const type = str(input.subagent_type);
    const description = str(input.description);
    if (type !== undefined) facts.type = type;
    if (description !== undefined) facts.description = description;
    if (at > 0) facts.at = at;
    this.#calls.delete(id);
    this.#calls.set(id, facts);
    while (this.#calls.size > CALL_LIMIT) {
      const oldest = this.#calls.keys().next().value;
      if (oldest === undefined) break;
      this.#calls.delete(oldest);
    }
  }

  /**
   * The sub-agents a record names that were not reported yet with the same facts: an
   * `agent_progress` record, or a user record carrying a Task/Agent call's result.
   */
  linksOf(record: UnknownRecord): SubagentLink[] {
    const found: SubagentLink[] = [];
    const data = isRecord(record.data) ? record.data : undefined;
    if (record.type === "progress" && data?.type === "agent_progress") {
      const agentId = str(data.agentId);
      if (agentId !== undefined) found.push(this.#link(agentId, str(record.parentToolUseID)));
    } else if (record.type === "user") {
      found.push(...this.#fromResult(record));
    }
    return found.filter((link) =>
      this.#reported.add(
        [link.agent_id, link.subagent_type ?? "", link.description ?? "", link.called_at ?? ""]
          .join("\u0000"),
      )
    );
  }

  /** Serialisable state. */
  toJSON(): JsonObject {
    const calls: JsonValue[] = [];
    for (const [id, facts] of this.#calls) calls.push([id, { ...facts }]);
    return { calls, reported: this.#reported.toJSON() };
  }

  #fromResult(record: UnknownRecord): SubagentLink[] {
    const message = isRecord(record.message) ? record.message : undefined;
    const blocks = Array.isArray(message?.content) ? message.content : [];
    const result = isRecord(record.toolUseResult) ? record.toolUseResult : undefined;
    const links: SubagentLink[] = [];
    for (const block of blocks) {
      if (!isRecord(block) || block.type !== "tool_result") continue;
      const callId = str(block.tool_use_id);
      const agentId = str(result?.agentId) ??
        (callId !== undefined && this.#calls.has(callId)
          ? agentIdInText(block.content)
          : undefined);
      if (agentId === undefined) continue;
      const link = this.#link(agentId, callId);
      const type = str(result?.agentType);
      if (type !== undefined) link.subagent_type = type;
      links.push(link);
      break; // One record answers one call.
    }
    return links;
  }

  #link(agentId: string, callId: string | undefined): SubagentLink {
    const link: SubagentLink = { agent_id: agentId };
    const facts = callId === undefined ? undefined : this.#calls.get(callId);
    if (facts?.type !== undefined) link.subagent_type = facts.type;
    if (facts?.description !== undefined) link.description = facts.description;
    if (facts?.at !== undefined) link.called_at = facts.at;
    return link;
  }
}

/** Older versions only say `agentId: <id>` in the call's result text. */
function agentIdInText(content: unknown): string | undefined {
  const texts = typeof content === "string"
    ? [content]
    : Array.isArray(content)
    ? content.map((part) => (isRecord(part) ? str(part.text) ?? "" : ""))
    : [];
  for (const text of texts) {
    const match = /\bagentId: ([A-Za-z0-9_-]+)/.exec(text);
    if (match !== null) return match[1];
  }
  return undefined;
}
