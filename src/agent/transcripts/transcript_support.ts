/**
 * Pieces shared by the per-agent transcript parsers: line decoding, text clean-up, the
 * session fact tracker and a bounded, serialisable set of seen keys. It also hands on the
 * readers of loosely typed JSON (`values.ts`) the parsers read every record with, so a parser
 * takes its building blocks from one module.
 *
 * @module
 */

import { redactString } from "../redact/redact.ts";
import {
  type AgentName,
  emptyRecords,
  type JsonObject,
  type JsonValue,
  type ParsedRecords,
  type SessionInfo,
  type TranscriptMessage,
  type TranscriptParser,
  type TranscriptParserOptions,
} from "../../model/agent_records.ts";
import { isRecord, str, truncate, type UnknownRecord } from "../values.ts";

export {
  count,
  firstLines,
  isRecord,
  num,
  parseJsonObject,
  parseTimestamp,
  pickStr,
  stableHash,
  str,
  textOf,
  type UnknownRecord,
} from "../values.ts";

/** Parses one transcript line into an object; `undefined` when it is not a JSON object. */
export function parseLineObject(line: string): UnknownRecord | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Redacts and caps message text according to the parser options. */
export class TextCleaner {
  readonly #redact: boolean;
  readonly #max: number;

  /** @param redact redact secrets; @param max cap in characters. */
  constructor(redact = true, max = 32_768) {
    this.#redact = redact;
    this.#max = max;
  }

  /** Cleans one text: redacts first, so a cut can never leave half a secret behind. */
  clean(text: string): string {
    return truncate(this.#redact ? redactString(text) : text, this.#max);
  }
}

/**
 * A bounded set of recently seen keys, oldest evicted first. Duplicates that matter (Claude
 * repeating a `message.id` once per content block) sit on adjacent lines, so a small window
 * catches them while keeping the persisted state small; the stable keys let the store catch
 * anything older.
 */
export class RecentKeys {
  readonly #limit: number;
  #keys: string[];
  #set: Set<string>;

  /** @param keys keys restored from saved state; @param limit window size. */
  constructor(keys: readonly string[] = [], limit = 256) {
    this.#limit = limit;
    this.#keys = keys.slice(-limit);
    this.#set = new Set(this.#keys);
  }

  /** Adds a key; answers `false` when it was already present. */
  add(key: string): boolean {
    if (this.#set.has(key)) return false;
    this.#keys.push(key);
    this.#set.add(key);
    if (this.#keys.length > this.#limit) {
      const dropped = this.#keys.shift();
      if (dropped !== undefined) this.#set.delete(dropped);
    }
    return true;
  }

  /** The keys, oldest first, for saving. */
  toJSON(): string[] {
    return [...this.#keys];
  }
}

type SessionFacts = Omit<SessionInfo, "agent" | "session_id" | "started_at" | "is_subagent">;

const FACT_KEYS = [
  "cwd",
  "model",
  "git_branch",
  "title",
  "parent_session_id",
  "subagent_type",
] as const;

/**
 * Tracks what is known about the session of one file and answers a {@link SessionInfo}
 * only when something new was learnt, so the store upserts sessions rarely.
 */
export class SessionTracker {
  readonly #agent: AgentName;
  sessionId: string | undefined;
  startedAt: number | undefined;
  facts: SessionFacts;
  /** The session is a sub-agent run (see {@link SessionInfo.is_subagent}). */
  isSubagent = false;
  #emitted: string;
  // Whether anything may have changed since the last signature was compared: a parser calls
  // `changed` once per line, and most lines teach nothing new.
  #dirty = true;
  #checkedSession: string | undefined;
  #checkedSubagent = false;

  /** @param agent agent of the file; @param saved state from {@link SessionTracker.toJSON}. */
  constructor(agent: AgentName, saved?: JsonValue) {
    this.#agent = agent;
    this.facts = {};
    this.#emitted = "";
    if (isRecord(saved)) {
      this.sessionId = str(saved.session_id);
      this.startedAt = typeof saved.started_at === "number" && saved.started_at > 0
        ? saved.started_at
        : undefined;
      this.#emitted = str(saved.emitted) ?? "";
      this.isSubagent = saved.is_subagent === true;
      for (const key of FACT_KEYS) {
        const value = str(saved[key]);
        if (value !== undefined) this.facts[key] = value;
      }
    }
  }

  /** Records facts; fields that are `undefined` leave what is known untouched. */
  learn(facts: Partial<SessionFacts>): void {
    for (const key of FACT_KEYS) {
      const value = facts[key];
      if (value !== undefined && value !== "" && this.facts[key] !== value) {
        this.facts[key] = value;
        this.#dirty = true;
      }
    }
  }

  /** Records the session start (the earliest time wins). */
  started(ts: number | undefined): void {
    if (ts === undefined || ts <= 0) return;
    if (this.startedAt === undefined || ts < this.startedAt) {
      this.startedAt = ts;
      this.#dirty = true;
    }
  }

  /** The session info when it changed since the last call that returned one. */
  changed(): SessionInfo | undefined {
    if (this.sessionId === undefined) return undefined;
    if (
      !this.#dirty && this.sessionId === this.#checkedSession &&
      this.isSubagent === this.#checkedSubagent
    ) {
      return undefined;
    }
    this.#dirty = false;
    this.#checkedSession = this.sessionId;
    this.#checkedSubagent = this.isSubagent;
    const info: SessionInfo = { agent: this.#agent, session_id: this.sessionId };
    // Never the epoch: a session whose records carry no time yet has no start.
    if (this.startedAt !== undefined) info.started_at = this.startedAt;
    for (const key of FACT_KEYS) {
      const value = this.facts[key];
      if (value !== undefined) info[key] = value;
    }
    if (this.isSubagent) info.is_subagent = true;
    const signature = JSON.stringify(info);
    if (signature === this.#emitted) return undefined;
    this.#emitted = signature;
    return info;
  }

  /** Serialisable state. */
  toJSON(): JsonObject {
    const out: JsonObject = { emitted: this.#emitted };
    if (this.sessionId !== undefined) out.session_id = this.sessionId;
    if (this.startedAt !== undefined) out.started_at = this.startedAt;
    if (this.isSubagent) out.is_subagent = true;
    for (const key of FACT_KEYS) {
      const value = this.facts[key];
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
}

/** Joins the text parts of a content value (string, or array of `{type:"text",text}`). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") parts.push(block);
    else if (isRecord(block)) {
      const text = str(block.text) ?? str(block.content);
      if (text !== undefined) parts.push(text);
      else if (block.type === "image" || block.type === "input_image") parts.push("[image]");
    }
  }
  return parts.join("\n");
}

/** Returns the basename of a path (either separator). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

/** Returns the path segments (either separator), without empty ones. */
export function pathSegments(path: string): string[] {
  return path.split(/[\\/]/).filter((part) => part !== "");
}

/**
 * Parses one transcript line with `parse`: a line that is not a JSON object,
 * or a record of an unexpected shape, is counted as malformed instead of
 * stopping the tailer.
 */
export function parseLineWith(
  line: string,
  parse: (record: UnknownRecord, line: string, out: ParsedRecords) => void,
): ParsedRecords {
  const out = emptyRecords();
  const record = parseLineObject(line);
  if (record === undefined) {
    out.malformed = true;
    return out;
  }
  try {
    parse(record, line, out);
  } catch {
    out.malformed = true;
  }
  return out;
}

/**
 * A message of `agent` to fill in: empty assistant text under `key`, with
 * the working directory and parent when known.
 */
export function newMessage(
  agent: AgentName,
  sessionId: string,
  ts: number,
  key: string,
  cwd: string | undefined,
  parent?: string,
): TranscriptMessage {
  const m: TranscriptMessage = {
    agent,
    session_id: sessionId,
    ts,
    role: "assistant",
    message_type: "assistant",
    text: "",
    message_key: key,
  };
  if (cwd !== undefined) m.cwd = cwd;
  if (parent !== undefined) m.parent = parent;
  return m;
}

/** The text clean-up the parser options ask for (redaction on and a 32,768-character cap by default). */
export function cleanerFor(options: TranscriptParserOptions): TextCleaner {
  return new TextCleaner(options.redact ?? true, options.maxTextChars ?? 32_768);
}

/** The state every parser keeps beside its byte offset. */
export interface CommonParserState {
  /** Session facts seen so far. */
  tracker: SessionTracker;
  /** Working directory in force. */
  cwd?: string;
  /** Model in force. */
  model?: string;
  /** Latest timestamp seen (for records without one). */
  lastTs: number;
}

/** Restores the common state from what {@linkcode saveCommonState} wrote. */
export function loadCommonState(agent: AgentName, saved: JsonObject): CommonParserState {
  const state: CommonParserState = {
    tracker: new SessionTracker(agent, saved.session),
    lastTs: typeof saved.last_ts === "number" ? saved.last_ts : 0,
  };
  const cwd = str(saved.cwd);
  const model = str(saved.model);
  if (cwd !== undefined) state.cwd = cwd;
  if (model !== undefined) state.model = model;
  return state;
}

/** The common state as JSON, with a parser's own fields added. */
export function saveCommonState(
  agent: AgentName,
  state: CommonParserState,
  extra: JsonObject = {},
): JsonObject {
  const out: JsonObject = {
    version: 1,
    agent,
    session: state.tracker.toJSON(),
    last_ts: state.lastTs,
    ...extra,
  };
  if (state.cwd !== undefined) out.cwd = state.cwd;
  if (state.model !== undefined) out.model = state.model;
  return out;
}

/**
 * A parser whose saved state is just {@linkcode CommonParserState}: it holds
 * the text cleaner, the session id the file's path names and that state, and
 * saves and decodes lines, so a subclass writes only how one record is read.
 */
export abstract class CommonStateParser implements TranscriptParser {
  /** Agent whose format this parser reads. */
  readonly agent: AgentName;
  /** Redacts and caps message text. */
  protected readonly cleaner: TextCleaner;
  /** The session id the file's path names, if it names one. */
  protected readonly fileSessionId: string | undefined;
  /** What is kept beside the byte offset. */
  protected readonly state: CommonParserState;

  /** Sets up a parser of `agent`'s files; `sessionIdFromPath` reads an id from a file's path. */
  constructor(
    agent: AgentName,
    options: TranscriptParserOptions,
    sessionIdFromPath: (path: string) => string | undefined,
  ) {
    this.agent = agent;
    this.cleaner = cleanerFor(options);
    this.fileSessionId = options.path !== undefined ? sessionIdFromPath(options.path) : undefined;
    this.state = loadCommonState(agent, options.state ?? {});
  }

  /** A JSON-serialisable snapshot of the parser state. */
  saveState(): JsonObject {
    return saveCommonState(this.agent, this.state);
  }

  /** Parses one line; never throws. */
  parseLine(line: string): ParsedRecords {
    return parseLineWith(line, (record, text, out) => this.parseRecord(record, text, out));
  }

  /** Reads one decoded record (`line` is its text) into `out`. */
  protected abstract parseRecord(record: UnknownRecord, line: string, out: ParsedRecords): void;
}
