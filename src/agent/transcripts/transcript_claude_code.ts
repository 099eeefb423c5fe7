/**
 * Parser for Claude Code session transcripts (`~/.claude/projects/<slug>/<session>.jsonl`).
 *
 * Every line carries an envelope (`type`, `uuid`, `parentUuid`, `sessionId`, `cwd`,
 * `gitBranch`, `timestamp`, `requestId`) around an API `message`. Claude Code writes **one
 * line per content block** of an assistant message while the answer streams, each repeating
 * the same `message.id` with a usage snapshot of that moment (a partial `output_tokens` first,
 * the final one last): a call's usage is its largest figures per `message.id`+`requestId`,
 * emitted again whenever a later line brings larger ones ({@link CallFigures}); the key is
 * stable, so a store merges the records of a key and drops copies seen in other files
 * (resumed and forked sessions). The usage also says what changes the price: 1-hour cache
 * writes (`cache_creation.ephemeral_1h_input_tokens`), web searches, service tier, fast mode
 * and US-only inference.
 *
 * Time comes from every record that has one, nested ones included (`file-history-snapshot`
 * lines keep theirs in `snapshot.timestamp`); the session starts at the earliest, never at
 * the epoch.
 *
 * Sub-agent transcripts (`<session>/subagents/agent-<id>.jsonl`, or `agent-<id>.jsonl` beside
 * the session in older versions) carry the parent's `sessionId`: the parser files their
 * messages and usage under a session of their own, `<parent>/agent-<id>`, marked as a
 * sub-agent of the parent (the store adds its counts to the parent's totals). The parent's
 * transcript names each sub-agent's type and task description (see
 * `claude_code_subagents.ts`); those links are reported as `linked_sessions`, so the order in
 * which the two files are read does not matter. Side-chain records inside a main transcript
 * (older versions) keep the main session and carry a `subagent_id`.
 *
 * Compaction boundaries, compaction summaries and API errors become messages of their own
 * types (see `claude_code_events.ts`).
 *
 * @module
 */

import {
  apiErrorText,
  apiRetryText,
  compactionText,
  isApiErrorRecord,
} from "./claude_code_events.ts";
import { internalSubagentType, SubagentLinks, subagentSessionId } from "./claude_code_subagents.ts";
import { CallFigures, type Figures } from "../usage/call_usage.ts";
import { toolTarget } from "../tool_input.ts";
import {
  baseName,
  cleanerFor,
  contentText,
  count,
  isRecord,
  newMessage,
  parseLineWith,
  parseTimestamp,
  pathSegments,
  pickStr,
  SessionTracker,
  stableHash,
  str,
  type TextCleaner,
  textOf,
  type UnknownRecord,
} from "./transcript_support.ts";
import type {
  JsonObject,
  ParsedRecords,
  SessionInfo,
  TranscriptMessage,
  TranscriptParser,
  TranscriptParserOptions,
  UsageRecord,
} from "../../model/agent_records.ts";

// Record types Claude Code writes that carry no conversation content.
const IGNORED_TYPES = new Set([
  "attachment",
  "progress",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "agent-setting",
  "pr-link",
  "tag",
  "mode",
  "permission-mode",
  "agent-name",
  "agent-color",
  "worktree-state",
  "content-replacement",
  "marble-origami-commit",
  "marble-origami-snapshot",
]);

/** Where a transcript file sits relative to its session. */
export interface ClaudeFileRole {
  /** Session id taken from the file name (main transcripts only). */
  session_id?: string;
  /** Parent session id, for sub-agent transcripts in `<session>/subagents/`. */
  parent_session_id?: string;
  /** Sub-agent id (`agent-<id>.jsonl` → `<id>`), for sub-agent transcripts. */
  subagent_id?: string;
}

/**
 * Tells from its path whether a Claude Code transcript is a main or a sub-agent transcript.
 *
 * @example
 * ```ts
 * claudeFileRole("/h/.claude/projects/-p/abc/subagents/agent-x1.jsonl");
 * // { parent_session_id: "abc", subagent_id: "x1" }
 * claudeFileRole("/h/.claude/projects/-p/abc.jsonl"); // { session_id: "abc" }
 * ```
 */
export function claudeFileRole(path: string): ClaudeFileRole {
  const name = baseName(path).replace(/\.jsonl$/, "");
  if (name.startsWith("agent-")) {
    const segments = pathSegments(path);
    const role: ClaudeFileRole = { subagent_id: name.slice("agent-".length) };
    if (segments.length >= 3 && segments[segments.length - 2] === "subagents") {
      role.parent_session_id = segments[segments.length - 3];
    }
    return role;
  }
  return name === "" ? {} : { session_id: name };
}

interface ClaudeState {
  tracker: SessionTracker;
  calls: CallFigures;
  cwd?: string;
  model?: string;
  lastTs: number;
  hasTitle: boolean;
  links: SubagentLinks;
  /** `summary` lines read before any timestamp, stored once a time is known. */
  pendingSummaries: Array<{ key: string; text: string }>;
}

/** Summaries held back at most while waiting for a timestamp. */
const PENDING_SUMMARY_LIMIT = 20;

class ClaudeCodeParser implements TranscriptParser {
  readonly agent = "claude_code" as const;
  readonly #role: ClaudeFileRole;
  readonly #cleaner: TextCleaner;
  readonly #state: ClaudeState;

  constructor(options: TranscriptParserOptions) {
    this.#role = options.path !== undefined ? claudeFileRole(options.path) : {};
    this.#cleaner = cleanerFor(options);
    const saved = options.state ?? {};
    this.#state = {
      tracker: new SessionTracker("claude_code", saved.session),
      // `seen_usage` (bare keys) is what versions before the figures were kept saved.
      calls: new CallFigures(saved.call_usage ?? saved.seen_usage),
      cwd: str(saved.cwd),
      model: str(saved.model),
      lastTs: typeof saved.last_ts === "number" ? saved.last_ts : 0,
      hasTitle: saved.has_title === true,
      links: new SubagentLinks(saved.links),
      pendingSummaries: Array.isArray(saved.pending_summaries)
        ? saved.pending_summaries.flatMap((entry) =>
          isRecord(entry) && typeof entry.key === "string" && typeof entry.text === "string"
            ? [{ key: entry.key, text: entry.text }]
            : []
        )
        : [],
    };
  }

  saveState(): JsonObject {
    const s = this.#state;
    const out: JsonObject = {
      version: 1,
      agent: this.agent,
      session: s.tracker.toJSON(),
      call_usage: s.calls.toJSON(),
      last_ts: s.lastTs,
      has_title: s.hasTitle,
      links: s.links.toJSON(),
    };
    if (s.pendingSummaries.length > 0) {
      out.pending_summaries = s.pendingSummaries.map((p) => ({ key: p.key, text: p.text }));
    }
    if (s.cwd !== undefined) out.cwd = s.cwd;
    if (s.model !== undefined) out.model = s.model;
    return out;
  }

  parseLine(line: string): ParsedRecords {
    return parseLineWith(line, (record, text, out) => this.#parse(record, text, out));
  }

  #parse(obj: UnknownRecord, line: string, out: ParsedRecords): void {
    const s = this.#state;
    const type = str(obj.type) ?? "";
    const lineTs = recordTime(obj);
    const ts = lineTs ?? s.lastTs;
    if (ts > s.lastTs) s.lastTs = ts;

    const cwd = str(obj.cwd);
    if (cwd !== undefined) s.cwd = cwd;
    const lineSession = str(obj.sessionId);
    const fileAgent = this.#role.subagent_id;
    // Sub-agent lines carry the parent's session id; main lines their own.
    const sessionId = lineSession ?? this.#role.parent_session_id ?? this.#role.session_id;

    const tracker = s.tracker;
    if (sessionId !== undefined && tracker.sessionId === undefined) {
      if (fileAgent !== undefined) {
        tracker.sessionId = subagentSessionId(sessionId, fileAgent);
        tracker.isSubagent = true;
        tracker.learn({
          parent_session_id: sessionId,
          subagent_type: internalSubagentType(fileAgent),
        });
      } else {
        tracker.sessionId = sessionId;
      }
    }
    // Newer versions name the sub-agent's type on its own assistant lines.
    if (fileAgent !== undefined) tracker.learn({ subagent_type: str(obj.attributionAgent) });
    const recordSession = tracker.sessionId ?? sessionId;
    // A sub-agent file's records carry its id; side-chain records of a main file their own.
    const subagentId = fileAgent ??
      (obj.isSidechain === true ? str(obj.agentId) ?? "sidechain" : undefined);
    // A line copied from another session (a resumed or forked transcript repeats earlier
    // answers with their own session id and time) says nothing about when this one started.
    const ownSession = fileAgent !== undefined
      ? tracker.facts.parent_session_id
      : tracker.sessionId;
    if (lineSession === undefined || lineSession === ownSession) tracker.started(lineTs);
    tracker.learn({ cwd: s.cwd, git_branch: str(obj.gitBranch) });
    if (lineTs !== undefined && recordSession !== undefined) {
      for (const pending of s.pendingSummaries.splice(0)) {
        out.messages.push(this.#summary(recordSession, lineTs, pending.key, pending.text));
      }
    }
    if (fileAgent === undefined && tracker.sessionId !== undefined && ts > 0) {
      this.#link(obj, tracker.sessionId, ts, out);
    }

    switch (type) {
      case "user":
      case "assistant":
      case "system":
        if (recordSession !== undefined) {
          this.#message(obj, type, line, ts, recordSession, subagentId, out);
        }
        break;
      case "ai-title":
      case "custom-title": {
        const title = pickStr(obj, "aiTitle", "customTitle", "title");
        if (title !== undefined) {
          tracker.learn({ title });
          s.hasTitle = true;
        }
        break;
      }
      case "summary": {
        // Summaries may describe an earlier session (leafUuid points elsewhere): a title only
        // when nothing better is known.
        const summary = str(obj.summary);
        if (summary === undefined) break;
        if (!s.hasTitle) tracker.learn({ title: summary });
        // Older versions wrote these, without a time, where a conversation was compacted.
        const key = `summary:${str(obj.leafUuid) ?? stableHash(line)}`;
        const text = this.#cleaner.clean(summary);
        if (ts > 0 && recordSession !== undefined) {
          out.messages.push(this.#summary(recordSession, ts, key, text));
        } else if (s.pendingSummaries.length < PENDING_SUMMARY_LIMIT) {
          s.pendingSummaries.push({ key, text });
        }
        break;
      }
      default:
        if (!IGNORED_TYPES.has(type)) out.unknown_type = type === "" ? "(none)" : type;
    }
    if (s.model !== undefined) tracker.learn({ model: s.model });
    const info = tracker.changed();
    if (info !== undefined) out.session = info;
  }

  /**
   * Reports the sub-agents this main-transcript record names. A run starts when its parent
   * made the call: that time (earlier than any of its own records) keeps the start the same
   * whichever file is read first.
   */
  #link(obj: UnknownRecord, parentId: string, ts: number, out: ParsedRecords): void {
    for (const link of this.#state.links.linksOf(obj)) {
      const info: SessionInfo = {
        agent: "claude_code",
        session_id: subagentSessionId(parentId, link.agent_id),
        started_at: link.called_at ?? ts,
        parent_session_id: parentId,
        is_subagent: true,
      };
      const type = link.subagent_type ?? internalSubagentType(link.agent_id);
      if (type !== undefined) info.subagent_type = type;
      if (link.description !== undefined) info.title = this.#cleaner.clean(link.description);
      if (this.#state.cwd !== undefined) info.cwd = this.#state.cwd;
      (out.linked_sessions ??= []).push(info);
    }
  }

  /** A compaction summary line as a `compaction` message. */
  #summary(sessionId: string, ts: number, key: string, text: string): TranscriptMessage {
    const m = newMessage("claude_code", sessionId, ts, key, this.#state.cwd);
    m.role = "system";
    m.message_type = "compaction";
    m.text = text;
    if (this.#role.subagent_id !== undefined) m.subagent_id = this.#role.subagent_id;
    return m;
  }

  #message(
    obj: UnknownRecord,
    type: string,
    line: string,
    ts: number,
    sessionId: string,
    subagentId: string | undefined,
    out: ParsedRecords,
  ): void {
    const s = this.#state;
    const uuid = str(obj.uuid) ?? stableHash(line);
    const parent = str(obj.parentUuid);
    const message = isRecord(obj.message) ? obj.message : undefined;
    const base = (index: number): TranscriptMessage => {
      const m = newMessage("claude_code", sessionId, ts, `${uuid}:${index}`, s.cwd, parent);
      m.role = "user";
      m.message_type = "user";
      if (subagentId !== undefined) m.subagent_id = subagentId;
      return m;
    };

    if (type === "system") {
      const subtype = str(obj.subtype);
      const messageType = subtype === "compact_boundary"
        ? "compaction"
        : subtype === "api_error"
        ? "api_error"
        : "system";
      const text = messageType === "compaction"
        ? compactionText(obj)
        : messageType === "api_error"
        ? apiRetryText(obj)
        : str(obj.content) ?? "";
      if (text.trim() === "") return;
      const m = base(0);
      m.role = "system";
      m.message_type = messageType;
      m.text = this.#cleaner.clean(text);
      out.messages.push(m);
      return;
    }
    if (message === undefined) return;
    const content = message.content;
    // The summary written after a compaction is context handed to the model, not a prompt.
    const isMeta = obj.isMeta === true || obj.isCompactSummary === true;

    if (type === "user") {
      const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
      if (!Array.isArray(blocks)) return;
      blocks.forEach((block: unknown, index: number) => {
        if (typeof block === "string") block = { type: "text", text: block };
        if (!isRecord(block)) return;
        if (block.type === "text") {
          const text = str(block.text);
          if (text === undefined) return;
          const m = base(index);
          if (isMeta) {
            m.role = "system";
            m.message_type = "system";
          }
          m.text = this.#cleaner.clean(text);
          out.messages.push(m);
        } else if (block.type === "tool_result") {
          const m = base(index);
          m.role = "tool";
          m.message_type = "tool_result";
          m.text = this.#cleaner.clean(contentText(block.content));
          const toolUseId = str(block.tool_use_id);
          if (toolUseId !== undefined) m.tool_use_id = toolUseId;
          if (block.is_error === true) m.is_error = true;
          out.messages.push(m);
        }
      });
      return;
    }

    // Assistant: content blocks, model and usage.
    const model = str(message.model);
    const realModel = model !== undefined && model !== "<synthetic>" ? model : undefined;
    if (realModel !== undefined) s.model = realModel;
    const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
    if (Array.isArray(blocks) && isApiErrorRecord(obj)) {
      // Written in the model's place when a call failed: one error event, not an answer.
      const said = blocks.map((block) => (isRecord(block) ? str(block.text) ?? "" : ""))
        .filter((text) => text !== "").join("\n");
      const m = base(0);
      m.role = "system";
      m.message_type = "api_error";
      m.text = this.#cleaner.clean(apiErrorText(obj, said));
      out.messages.push(m);
    } else if (Array.isArray(blocks)) {
      blocks.forEach((block: unknown, index: number) => {
        if (!isRecord(block)) return;
        const m = base(index);
        m.role = "assistant";
        if (realModel !== undefined) m.model = realModel;
        if (block.type === "text") {
          const text = str(block.text);
          if (text === undefined) return;
          m.message_type = "assistant";
          m.text = this.#cleaner.clean(text);
          out.messages.push(m);
        } else if (block.type === "thinking") {
          const text = str(block.thinking);
          if (text === undefined) return;
          m.message_type = "thinking";
          m.text = this.#cleaner.clean(text);
          out.messages.push(m);
        } else if (block.type === "tool_use" || block.type === "server_tool_use") {
          s.links.noteToolUse(block, ts);
          const name = str(block.name);
          m.message_type = "tool_use";
          m.text = this.#cleaner.clean(textOf(block.input));
          if (name !== undefined) m.tool_name = name;
          const id = str(block.id);
          if (id !== undefined) m.tool_use_id = id;
          const target = toolTarget(name, block.input);
          if (target.file_path !== undefined) m.file_path = target.file_path;
          if (target.command !== undefined) m.command = this.#cleaner.clean(target.command);
          if (target.command_prefix !== undefined) m.command_prefix = target.command_prefix;
          out.messages.push(m);
          out.tool_calls++;
        } else if (block.type === "web_search_tool_result") {
          const id = str(block.tool_use_id);
          m.role = "tool";
          m.message_type = "tool_result";
          m.text = this.#cleaner.clean(textOf(block.content));
          if (id !== undefined) m.tool_use_id = id;
          out.messages.push(m);
        }
      });
    }
    this.#usage(obj, message, realModel, ts, sessionId, subagentId, out);
  }

  #usage(
    obj: UnknownRecord,
    message: UnknownRecord,
    model: string | undefined,
    ts: number,
    sessionId: string,
    subagentId: string | undefined,
    out: ParsedRecords,
  ): void {
    const usage = message.usage;
    const messageId = str(message.id);
    if (!isRecord(usage) || messageId === undefined || model === undefined) return;
    const requestId = str(obj.requestId);
    const key = requestId !== undefined ? `${messageId}:${requestId}` : messageId;
    const split = isRecord(usage.cache_creation) ? usage.cache_creation : {};
    const server = isRecord(usage.server_tool_use) ? usage.server_tool_use : {};
    const writes = count(usage.cache_creation_input_tokens);
    const line: Figures = {
      input_tokens: count(usage.input_tokens),
      output_tokens: count(usage.output_tokens),
      cache_read_tokens: count(usage.cache_read_input_tokens),
      // The total covers both lifetimes; should a line's total lag its split, the split wins.
      cache_write_tokens: Math.max(
        writes,
        count(split.ephemeral_5m_input_tokens) + count(split.ephemeral_1h_input_tokens),
      ),
      cache_write_1h_tokens: count(split.ephemeral_1h_input_tokens),
      web_search_requests: count(server.web_search_requests),
    };
    const figures = this.#state.calls.grow(key, line);
    if (figures === undefined) return;
    const record: UsageRecord = {
      agent: "claude_code",
      session_id: sessionId,
      ts,
      model,
      usage_key: key,
      input_tokens: figures.input_tokens,
      output_tokens: figures.output_tokens,
      cache_read_tokens: figures.cache_read_tokens,
      cache_write_tokens: figures.cache_write_tokens,
      reasoning_tokens: 0,
    };
    if (figures.cache_write_1h_tokens > 0) {
      record.cache_write_1h_tokens = figures.cache_write_1h_tokens;
    }
    if (figures.web_search_requests > 0) record.web_search_requests = figures.web_search_requests;
    const tier = str(usage.service_tier);
    if (tier !== undefined) record.service_tier = tier;
    const speed = str(usage.speed);
    if (speed !== undefined) record.speed = speed;
    const geo = str(usage.inference_geo);
    if (geo !== undefined) record.inference_geo = geo;
    if (subagentId !== undefined) record.subagent_id = subagentId;
    out.usage.push(record);
  }
}

/**
 * The time of a record: its `timestamp`, or the one nested in its payload
 * (`file-history-snapshot` lines keep theirs in `snapshot.timestamp`).
 */
function recordTime(obj: UnknownRecord): number | undefined {
  const own = parseTimestamp(obj.timestamp);
  if (own !== undefined) return own;
  for (const nested of [obj.snapshot, obj.message]) {
    if (isRecord(nested)) {
      const time = parseTimestamp(nested.timestamp);
      if (time !== undefined) return time;
    }
  }
  return undefined;
}

/**
 * Creates a parser for one Claude Code transcript file.
 *
 * @example
 * ```ts
 * const parser = createClaudeCodeParser({ path: "/h/.claude/projects/-p/abc.jsonl" });
 * const records = parser.parseLine('{"type":"user","sessionId":"abc","message":{"role":"user","content":"hi"}}');
 * records.messages[0].text; // "hi"
 * ```
 */
export function createClaudeCodeParser(options: TranscriptParserOptions = {}): TranscriptParser {
  return new ClaudeCodeParser(options);
}
