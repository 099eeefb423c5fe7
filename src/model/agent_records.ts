/**
 * Normalized records produced by the ingestion layer.
 *
 * Hooks, transcripts and usage of four different agents are mapped onto the small set of
 * record shapes below, so the store, the anomaly rules and the dashboard never need to know
 * which agent wrote what. Field names are snake_case because they are persisted as is.
 *
 * @module
 */

/** Canonical agent names (the same spelling TMA1 uses for `agent_source`). */
export type AgentName = "claude_code" | "codex" | "copilot_cli" | "openclaw";

/** Every canonical agent name, in a stable order. */
export const AGENT_NAMES: readonly AgentName[] = [
  "claude_code",
  "codex",
  "copilot_cli",
  "openclaw",
];

// Spellings people type on a command line or in an MCP argument. Keys are lower-cased and
// have `-`, `_`, spaces and dots removed before the look-up, so `Claude-Code`, `claude_code`
// and `claudecode` all land on the same entry.
const AGENT_ALIASES: Readonly<Record<string, AgentName>> = {
  claudecode: "claude_code",
  claude: "claude_code",
  cc: "claude_code",
  codex: "codex",
  codexcli: "codex",
  copilotcli: "copilot_cli",
  copilot: "copilot_cli",
  ghcopilot: "copilot_cli",
  openclaw: "openclaw",
  clawdbot: "openclaw",
};

/**
 * Parses an agent name as typed on a command line (`claude-code`, `copilot-cli`, `cc`,
 * `claude`, `copilot`, canonical names, any case) into its canonical {@link AgentName}.
 *
 * @example
 * ```ts
 * parseAgentName("claude-code"); // "claude_code"
 * parseAgentName("copilot");     // "copilot_cli"
 * parseAgentName("vim");         // undefined
 * ```
 */
export function parseAgentName(input: string): AgentName | undefined {
  const key = input.trim().toLowerCase().replace(/[-_.\s]/g, "");
  return AGENT_ALIASES[key];
}

/** A JSON value as produced by `JSON.parse` (used for raw payloads and parser state). */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Canonical hook event names. Agents spell them differently (`preToolUse`, `PreToolUse`,
 * `before_tool_call`); the normalizer maps every known spelling onto one of these and keeps
 * unknown names exactly as given.
 */
export type CanonicalHookEventType =
  | "SessionStart"
  | "SessionEnd"
  | "Setup"
  | "UserPromptSubmit"
  | "PreToolUse"
  | "PostToolUse"
  | "PostToolUseFailure"
  | "PostToolBatch"
  | "PermissionRequest"
  | "PermissionDenied"
  | "Notification"
  | "Stop"
  | "StopFailure"
  | "SubagentStart"
  | "SubagentStop"
  | "PreCompact"
  | "PostCompact"
  | "ErrorOccurred"
  | "Interrupt";

/** One hook invocation of any agent, normalized. */
export interface HookEvent {
  /** Agent that fired the hook. */
  agent: AgentName;
  /** The agent's own session id (never rewritten or prefixed). */
  session_id: string;
  /** Working directory reported by the agent, when it reported one. */
  cwd?: string;
  /** Project root: the cwd unless the payload names a better root (git root, project dir). */
  project?: string;
  /** Canonical PascalCase event name, or the name as given when it is not a known one. */
  event_type: CanonicalHookEventType | string;
  /** Event time in milliseconds since the epoch (payload time when present, else `now`). */
  ts: number;
  /** Tool name as the agent spells it (`Bash`, `exec_command`, `bash`, `mcp__x__y`). */
  tool_name?: string;
  /** The agent's id for this tool call, used to pair Pre/Post events. */
  tool_use_id?: string;
  /** First file the tool call reads or writes. */
  file_path?: string;
  /** Every file the tool call names, when there are several (e.g. a multi-file patch). */
  file_paths?: string[];
  /** Full shell command for shell-like tools. */
  command?: string;
  /** First word(s) of {@link command}: `npm test`, `git status`, `pytest`. */
  command_prefix?: string;
  /** `true`/`false` for tool results; `undefined` when the event says nothing about it. */
  success?: boolean;
  /** Short error summary (first lines) when {@link success} is `false`. */
  error?: string;
  /** Tool duration reported by the agent. */
  duration_ms?: number;
  /** User prompt text (UserPromptSubmit). */
  prompt?: string;
  /** Model id when the payload names one. */
  model?: string;
  /** Transcript file the agent writes for this session. */
  transcript_path?: string;
  /** SessionStart source / SessionEnd reason / PreCompact trigger, as given. */
  source?: string;
  /** Notification type or message, Stop's last assistant message (truncated). */
  message?: string;
  /** Sub-agent id for events fired inside a sub-agent. */
  agent_id?: string;
  /** Sub-agent type / name. */
  agent_type?: string;
  /** The original payload object (after secret redaction, when enabled). */
  raw: JsonObject;
  /** Team mode: the person whose token sent the hook; absent for the server's owner. */
  person?: string;
  /** The machine the hook ran on, as the hook said (`X-Vantage-Host`). */
  host?: string;
}

/** Result of {@link normalizeHookPayload}-style functions: never an exception. */
export type NormalizeResult = { ok: true; event: HookEvent } | { ok: false; reason: string };

/** Who produced a transcript message. */
export type MessageRole = "user" | "assistant" | "system" | "tool";

/** What kind of content a transcript message holds (filterable, unlike `role`). */
export type MessageType =
  | "user"
  | "assistant"
  | "thinking"
  | "tool_use"
  | "tool_result"
  | "system"
  | "compaction"
  | "api_error";

/** One message (or one content block of a message) read from a session transcript. */
export interface TranscriptMessage {
  /** Agent that wrote the transcript. */
  agent: AgentName;
  /** Session the message belongs to (a sub-agent transcript's records go to the sub-agent's own). */
  session_id: string;
  /** Working directory in force when the message was written, read from the records. */
  cwd?: string;
  /** Message time in milliseconds since the epoch. */
  ts: number;
  /** Who produced the message. */
  role: MessageRole;
  /** What the message holds; filter on this rather than on {@link role}. */
  message_type: MessageType;
  /** Plain text: prose, thinking, the tool input as JSON, or the tool output. */
  text: string;
  /** Tool name, for tool uses and (when known) tool results. */
  tool_name?: string;
  /** Tool call id joining a tool use to its result. */
  tool_use_id?: string;
  /** `true` when a tool result reports failure. */
  is_error?: boolean;
  /** Model that produced an assistant message. */
  model?: string;
  /**
   * Stable id, unique within the session, for idempotent inserts: re-parsing the same file
   * yields the same keys (line uuid + block index, call id + kind, or a hash of the line).
   */
  message_key: string;
  /** Id of the parent record (Claude `parentUuid`, Copilot/OpenClaw `parentId`). */
  parent?: string;
  /** For tool uses: the file the tool touches. */
  file_path?: string;
  /** For shell tool uses: the full command. */
  command?: string;
  /** For shell tool uses: the first word(s) of the command. */
  command_prefix?: string;
  /**
   * The sub-agent that wrote the record: set on every record of a sub-agent transcript (filed
   * under the sub-agent's own session) and on side-chain records kept in a main transcript.
   */
  subagent_id?: string;
}

/**
 * Token usage of one model call. A transcript may report a call more than once with growing
 * figures (Claude Code writes one line per content block while the answer streams): a later
 * record with the same {@link usage_key} replaces the earlier one, each field taking the larger
 * value, so nothing is counted twice and the final figures win.
 */
export interface UsageRecord {
  /** Agent that made the model call. */
  agent: AgentName;
  /** Session charged (a sub-agent's own session; the store adds it to the parent's totals). */
  session_id: string;
  /** Time of the call in milliseconds since the epoch. */
  ts: number;
  /** Model id as the agent reports it. */
  model?: string;
  /**
   * De-duplication key, stable across restarts: Claude `message.id:requestId`, Codex
   * `<session>:<cumulative total>`, OpenClaw `<session>:<entry id>`.
   */
  usage_key: string;
  /** Input tokens that were neither read from nor written to the prompt cache. */
  input_tokens: number;
  /** Output tokens (for OpenAI models this includes the reasoning tokens). */
  output_tokens: number;
  /** Input tokens read from the prompt cache. */
  cache_read_tokens: number;
  /** Input tokens written to the prompt cache, every cache lifetime. */
  cache_write_tokens: number;
  /** The part of {@link cache_write_tokens} written with a 1-hour lifetime (priced higher). */
  cache_write_1h_tokens?: number;
  /** Reasoning tokens, already counted inside {@link output_tokens}. */
  reasoning_tokens: number;
  /** Server-side web searches the call made (billed per search). */
  web_search_requests?: number;
  /** The provider's service tier when the transcript states it (`standard`, `batch`, …). */
  service_tier?: string;
  /** `fast` when the call ran in fast mode (billed at a multiple). */
  speed?: string;
  /** Where inference ran when the call asked (`us` is billed at a multiple). */
  inference_geo?: string;
  /**
   * How many model calls the record sums, when it sums several (Copilot CLI reports totals per
   * model at shutdown); absent = one.
   */
  calls?: number;
  /** Model context window when the agent reports it. */
  context_window?: number;
  /** Cost the agent itself reported, when it reports one (OpenClaw). */
  reported_cost_usd?: number;
  /** Set when the usage belongs to a sub-agent (its session is the sub-agent's own). */
  subagent_id?: string;
}

/**
 * A model call as the store counts it: a {@linkcode UsageRecord} from any agent that reports
 * usage, the four agents' transcripts and OpenTelemetry from other applications (`gen_ai`).
 */
export interface CountedUsage extends Omit<UsageRecord, "agent"> {
  /** Agent (or application) that made the call. */
  agent: string;
}

/**
 * How one tool call ended, as a transcript records it. Some agents' hooks carry no exit status
 * (Codex sends a command's bare output), so the outcome is read from the transcript and joined
 * to the hook event by the agent's call id.
 */
export interface ToolOutcome {
  /** Agent that ran the call. */
  agent: AgentName;
  /** Session of the call. */
  session_id: string;
  /** The agent's id of the call (Codex `call_id`), the same id its hooks report. */
  tool_use_id: string;
  /** When the transcript recorded the outcome, ms. */
  ts: number;
  /** `false` for a non-zero exit code or a call the agent reports as failed. */
  success: boolean;
  /** The exit code of a shell command, when the transcript gives it. */
  exit_code?: number;
  /** Short error summary (first lines) of a failed call. */
  error?: string;
}

/**
 * What one model call costs: USD, or unpriced when no price fits its model (its cost is then
 * unknown, not zero).
 */
export type CallPrice = { priced: true; usd: number } | { priced: false };

/** What a transcript tells about its session. Emitted again when new facts appear. */
export interface SessionInfo {
  /** Agent that ran the session. */
  agent: AgentName;
  /** The agent's session id (`<parent>/agent-<id>` for Claude sub-agent transcripts). */
  session_id: string;
  /** Working directory, read from the records (never decoded from folder names). */
  cwd?: string;
  /** Session start in milliseconds since the epoch: its earliest real timestamp; absent until one is seen. */
  started_at?: number;
  /** Latest model the session used. */
  model?: string;
  /** Git branch at the start of the session. */
  git_branch?: string;
  /** Title the agent gave the session. */
  title?: string;
  /** Session this one was spawned from (sub-agent thread, fork, sub-agent transcript). */
  parent_session_id?: string;
  /**
   * The session is a sub-agent run of {@link parent_session_id} (a Claude Code Task/Agent
   * call): it is listed under its parent, and its counts add to the parent's totals.
   */
  is_subagent?: boolean;
  /** The sub-agent's type (`general-purpose`, `Explore`, `compact`, …), when known. */
  subagent_type?: string;
}

/** Everything one transcript line yielded. */
export interface ParsedRecords {
  /** Present when the line created or changed what is known about the session. */
  session?: SessionInfo;
  /** Messages found on the line (one per content block). */
  messages: TranscriptMessage[];
  /** Usage found on the line, already de-duplicated. */
  usage: UsageRecord[];
  /**
   * Other sessions the line tells about: a main transcript names the sub-agents its Task
   * calls started (id, type, description) before or after their own files are read.
   */
  linked_sessions?: SessionInfo[];
  /** Tool calls started on this line. */
  tool_calls: number;
  /** How tool calls ended, when the line says so. */
  outcomes: ToolOutcome[];
  /** The line was not a JSON object. */
  malformed: boolean;
  /** Record type the parser does not know (the line is otherwise ignored). */
  unknown_type?: string;
}

/**
 * A stateful per-file transcript parser. Feed it every complete line of one file, in order;
 * persist {@link TranscriptParser.saveState} beside the byte offset and pass it back to the
 * factory after a restart to resume exactly where parsing stopped.
 */
export interface TranscriptParser {
  /** Agent whose format this parser reads. */
  readonly agent: AgentName;
  /** Parses one line (without its line terminator). Never throws. */
  parseLine(line: string): ParsedRecords;
  /** A JSON-serialisable snapshot of the parser state. */
  saveState(): JsonObject;
}

/** Options shared by every transcript parser factory. */
export interface TranscriptParserOptions {
  /** Path of the transcript file (used for session ids and sub-agent detection only). */
  path?: string;
  /** State previously returned by {@link TranscriptParser.saveState} for the same file. */
  state?: JsonObject;
  /** Redact secrets in message text (default `true`). */
  redact?: boolean;
  /** Cap on message text in characters (default 32 768); longer text is cut with a marker. */
  maxTextChars?: number;
}

/** Creates an empty {@link ParsedRecords}. */
export function emptyRecords(): ParsedRecords {
  return { messages: [], usage: [], tool_calls: 0, outcomes: [], malformed: false };
}
