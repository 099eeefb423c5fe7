/**
 * The security scan over stored activity: every shell command an agent ran
 * (from hooks, transcripts or telemetry, each call once) checked against the
 * risky-command rules, and every tool result checked for prompt-injection
 * text, each finding with its evidence — session, time, the command or the
 * matched excerpt, the tool and what it read.
 *
 * @module
 */
import type {
  StoredToolText,
  StoredToolTexts,
  ToolTextWindow,
} from "../../store/agent/tool_texts.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { Store } from "../../store/store.ts";
import { isShellTool, SHELL_TOOL_NAMES, toolTarget } from "../tool_input.ts";
import { isRecord, str, type UnknownRecord } from "../values.ts";
import { findInjection, INJECTION_RULES } from "./prompt_injection.ts";
import {
  classifyCommand,
  fetchesFromNetwork,
  type RiskSeverity,
  RISKY_COMMAND_RULES,
} from "./risky_commands.ts";

/** A risky command, with its evidence. */
export interface RiskyCommandFinding {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** The most severe rule's severity. */
  severity: RiskSeverity;
  /** Matching rule ids, most severe first. */
  rules: string[];
  /** The command (redacted when stored; cut at 500 characters). */
  command: string;
  /** Where it was read. */
  source: StoredToolText["source"];
  /** The agent's tool call id. */
  tool_use_id: string | null;
}

/** Injection-like text in a tool result, with its evidence. */
export interface InjectionFinding {
  /** Time, ms. */
  ts: number;
  /** Agent. */
  agent: string;
  /** Session. */
  session_id: string;
  /** Matching rule ids. */
  rules: string[];
  /** The tool whose result it was, when known. */
  tool: string | null;
  /** What the tool read: a file, URL or command, when known. */
  target: string | null;
  /** The matched words with text around them. */
  excerpt: string;
  /** Where it was read. */
  source: StoredToolText["source"];
  /** The agent's tool call id. */
  tool_use_id: string | null;
}

/** What one scan found. */
export interface SecurityScan {
  /** Shell commands checked (each call once). */
  commands_scanned: number;
  /** Of them, commands that fetch from the network. */
  external_fetches: number;
  /** Risky commands found (every one, not only those listed). */
  commands_found: number;
  /** Risky commands per rule. */
  command_rules: Array<{ rule: string; severity: RiskSeverity; count: number }>;
  /** The latest risky commands. */
  commands: RiskyCommandFinding[];
  /** Tool results checked. */
  results_scanned: number;
  /** Tool results with injection text (every one, not only those listed). */
  injections_found: number;
  /** Injection findings per rule. */
  injection_rules: Array<{ rule: string; count: number }>;
  /** The latest injection findings. */
  injections: InjectionFinding[];
  /** Older records were left out by the per-source caps. */
  truncated: boolean;
}

/** Most rows read per source and kind. */
export const SCAN_ROWS = { commands: 20_000, results: 5_000 } as const;

const COMMAND_CHARS = 500;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON object given as an object or as JSON text. */
function recordOf(value: unknown): UnknownRecord | undefined {
  if (isRecord(value)) return value;
  if (typeof value === "string" && value.trimStart().startsWith("{")) {
    const parsed = parseJson(value);
    return isRecord(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** The command a stored shell call ran, if it names one. */
export function commandOf(row: StoredToolText): string | undefined {
  if (row.source === "hook") return row.text;
  if (row.source === "transcript") return toolTarget(row.tool_name ?? undefined, row.text).command;
  const attrs = recordOf(row.text);
  if (attrs === undefined) return undefined;
  // Claude Code (OTEL_LOG_TOOL_DETAILS=1): tool_parameters holds bash_command / full_command.
  const parameters = recordOf(attrs.tool_parameters);
  if (parameters !== undefined) {
    return str(parameters.full_command) ?? str(parameters.bash_command) ??
      (isShellTool(row.tool_name ?? undefined)
        ? toolTarget(row.tool_name ?? undefined, parameters).command
        : undefined);
  }
  const args = recordOf(attrs.arguments) ?? recordOf(attrs["gen_ai.tool.call.arguments"]);
  if (args === undefined) return undefined;
  if (isShellTool(row.tool_name ?? undefined)) {
    return toolTarget(row.tool_name ?? undefined, args).command;
  }
  // A GenAI application's own shell tool, under a name Vantage does not know.
  const named = args.command ?? args.cmd;
  return typeof named === "string" && named.trim() !== "" ? named : undefined;
}

/** The text a stored tool result returned. */
export function resultOf(row: StoredToolText): string | undefined {
  if (row.source !== "telemetry") return row.text;
  const attrs = recordOf(row.text);
  if (attrs === undefined) return undefined;
  const value = attrs["gen_ai.tool.call.result"] ?? attrs.output;
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** What a tool call read or ran, for the evidence: a file, a URL, a command or a query. */
function targetOf(toolName: string | undefined, input: unknown): string | null {
  const target = toolTarget(toolName, input);
  const record = recordOf(input);
  const text = target.file_path ?? str(record?.url) ?? target.command ?? str(record?.query) ??
    str(record?.pattern);
  return text === undefined ? null : text.slice(0, 300);
}

function callKey(row: StoredToolText, fallback: string): string {
  return `${row.session_id}\u0000${row.tool_use_id ?? fallback}`;
}

/** Every source's rows, one after another, and whether any source's cap left rows out. */
function allSources(...sources: StoredToolTexts[]): StoredToolTexts {
  return {
    rows: sources.flatMap((source) => source.rows),
    truncated: sources.some((source) => source.truncated),
  };
}

/**
 * The shell commands of the window: hook events with a command, transcript calls of the
 * shell tools (their input), and telemetry tool records carrying parameters or arguments.
 */
async function shellCallsIn(
  store: Store<StoreMode>,
  window: ToolTextWindow,
  limit: number,
): Promise<StoredToolTexts> {
  return allSources(
    await store.agent.hookShellCommands(window, limit),
    await store.agent.transcriptShellCalls(window, SHELL_TOOL_NAMES, limit),
    await store.telemetry.telemetryToolTexts(window, "arguments", limit),
  );
}

/** The tool results of the window: transcript results and telemetry records carrying one. */
async function toolResultsIn(
  store: Store<StoreMode>,
  window: ToolTextWindow,
  limit: number,
): Promise<StoredToolTexts> {
  return allSources(
    await store.agent.transcriptToolResults(window, limit),
    await store.telemetry.telemetryToolTexts(window, "results", limit),
  );
}

/**
 * Scans the window: risky commands and injection text, the latest `limit` of each listed
 * with evidence, every finding counted per rule.
 *
 * @example
 * ```ts ignore
 * const scan = await scanSecurity(store, { since: Date.now() - 86_400_000, until: Date.now() }, 20);
 * scan.commands[0]; // { rules: ["pipe_to_shell"], command: "curl … | sh", session_id, … }
 * ```
 */
export async function scanSecurity(
  store: Store<StoreMode>,
  window: ToolTextWindow,
  limit: number,
): Promise<SecurityScan> {
  const calls = await shellCallsIn(store, window, SCAN_ROWS.commands);
  const seenCalls = new Set<string>();
  const commands: RiskyCommandFinding[] = [];
  let scanned = 0;
  let fetches = 0;
  for (const row of calls.rows) {
    const command = commandOf(row);
    if (command === undefined || command.trim() === "") continue;
    const key = callKey(row, command);
    if (seenCalls.has(key)) continue;
    seenCalls.add(key);
    scanned++;
    if (fetchesFromNetwork(command)) fetches++;
    const risk = classifyCommand(command);
    if (risk === undefined) continue;
    commands.push({
      ts: row.ts,
      agent: row.agent,
      session_id: row.session_id,
      severity: risk.severity,
      rules: risk.rules,
      command: command.length > COMMAND_CHARS ? `${command.slice(0, COMMAND_CHARS)}…` : command,
      source: row.source,
      tool_use_id: row.tool_use_id,
    });
  }

  const results = await toolResultsIn(store, window, SCAN_ROWS.results);
  const seenResults = new Set<string>();
  const injections: InjectionFinding[] = [];
  let resultsScanned = 0;
  for (const row of results.rows) {
    const text = resultOf(row);
    if (text === undefined || text === "") continue;
    const matches = findInjection(text);
    const key = callKey(row, matches[0]?.excerpt ?? text.slice(0, 200));
    if (seenResults.has(key)) continue;
    seenResults.add(key);
    resultsScanned++;
    if (matches.length === 0) continue;
    injections.push({
      ts: row.ts,
      agent: row.agent,
      session_id: row.session_id,
      rules: matches.map((m) => m.rule),
      tool: row.tool_name,
      target: null,
      excerpt: matches[0].excerpt,
      source: row.source,
      tool_use_id: row.tool_use_id,
    });
  }

  commands.sort((a, b) => b.ts - a.ts);
  injections.sort((a, b) => b.ts - a.ts);
  const listed = injections.slice(0, limit);
  // What the tool read, for the listed ones: the call that the result answers.
  for (const finding of listed) {
    if (finding.source !== "transcript" || finding.tool_use_id === null) continue;
    const call = await store.agent.transcriptToolCall(finding.session_id, finding.tool_use_id);
    if (call === undefined) continue;
    finding.tool ??= call.tool_name;
    finding.target = targetOf(call.tool_name ?? undefined, call.text);
  }
  return {
    commands_scanned: scanned,
    external_fetches: fetches,
    commands_found: commands.length,
    command_rules: RISKY_COMMAND_RULES.map((rule) => ({
      rule: rule.id,
      severity: rule.severity,
      count: commands.filter((c) => c.rules.includes(rule.id)).length,
    })).filter((r) => r.count > 0),
    commands: commands.slice(0, limit),
    results_scanned: resultsScanned,
    injections_found: injections.length,
    injection_rules: INJECTION_RULES.map((rule) => ({
      rule: rule.id,
      count: injections.filter((i) => i.rules.includes(rule.id)).length,
    })).filter((r) => r.count > 0),
    injections: listed,
    truncated: calls.truncated || results.truncated,
  };
}
