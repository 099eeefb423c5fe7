/**
 * Finds the transcript fixtures and folds a parser's output over a whole file, so tests can
 * assert exact totals.
 *
 * @module
 */

import { readJsonlLines } from "../../src/agent/transcripts/jsonl_reader.ts";
import type {
  AgentName,
  JsonObject,
  MessageType,
  SessionInfo,
  ToolOutcome,
  TranscriptMessage,
  TranscriptParser,
  UsageRecord,
} from "../../src/model/agent_records.ts";
import { createTranscriptParser } from "../../src/agent/transcripts/transcript_parser.ts";

/** Folder of the transcript fixtures. */
export const FIXTURES: string = new URL("../fixtures/transcripts/", import.meta.url).pathname;

/** Every file below `dir` (recursively) whose name passes `keep`, sorted. */
export async function findFiles(dir: string, keep: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir.replace(/\/$/, "")}/${entry.name}`;
    if (entry.isDirectory) out.push(...await findFiles(path, keep));
    else if (entry.isFile && keep(entry.name)) out.push(path);
  }
  return out.sort();
}

/** Totals of one parsed file. */
export interface FileTotals {
  /** Every distinct session id reported, in first-seen order. */
  sessionIds: string[];
  /** The last session info reported per session id. */
  sessions: Map<string, SessionInfo>;
  messages: TranscriptMessage[];
  byType: Partial<Record<MessageType, number>>;
  toolCalls: number;
  outcomes: ToolOutcome[];
  /** The final usage of each model call, in first-seen order (a later record of a key replaces it). */
  usage: UsageRecord[];
  /** Usage records the parser emitted, updates included. */
  usageEmitted: number;
  tokens: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    reasoning: number;
  };
  unknownTypes: string[];
  malformedLines: number;
  lines: number;
  parser: TranscriptParser;
}

/** Parses lines with a parser and adds everything up. */
export function foldLines(parser: TranscriptParser, lines: string[]): FileTotals {
  const totals: FileTotals = {
    sessionIds: [],
    sessions: new Map(),
    messages: [],
    byType: {},
    toolCalls: 0,
    outcomes: [],
    usage: [],
    usageEmitted: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    unknownTypes: [],
    malformedLines: 0,
    lines: lines.length,
    parser,
  };
  const callIndex = new Map<string, number>();
  for (const line of lines) {
    const records = parser.parseLine(line);
    if (records.session !== undefined) {
      const id = records.session.session_id;
      if (!totals.sessions.has(id)) totals.sessionIds.push(id);
      totals.sessions.set(id, records.session);
    }
    for (const message of records.messages) {
      totals.messages.push(message);
      totals.byType[message.message_type] = (totals.byType[message.message_type] ?? 0) + 1;
    }
    totals.toolCalls += records.tool_calls;
    totals.outcomes.push(...records.outcomes);
    for (const usage of records.usage) {
      // A later record of the same call carries its grown figures: it replaces the earlier.
      totals.usageEmitted++;
      const at = callIndex.get(usage.usage_key);
      if (at === undefined) {
        callIndex.set(usage.usage_key, totals.usage.length);
        totals.usage.push(usage);
      } else {
        totals.usage[at] = usage;
      }
    }
    if (records.unknown_type !== undefined) totals.unknownTypes.push(records.unknown_type);
    if (records.malformed) totals.malformedLines++;
  }
  for (const usage of totals.usage) {
    totals.tokens.input += usage.input_tokens;
    totals.tokens.output += usage.output_tokens;
    totals.tokens.cacheRead += usage.cache_read_tokens;
    totals.tokens.cacheWrite += usage.cache_write_tokens;
    totals.tokens.reasoning += usage.reasoning_tokens;
  }
  return totals;
}

/** Reads a whole fixture file as lines. */
export async function fixtureLines(path: string): Promise<string[]> {
  const lines: string[] = [];
  let offset = 0;
  for (;;) {
    const result = await readJsonlLines(path, offset);
    lines.push(...result.lines.map((line) => line.text));
    offset = result.nextOffset;
    if (result.done) return lines;
  }
}

/** Parses a whole fixture file with the agent's parser. */
export async function parseFixture(
  agent: AgentName,
  path: string,
  state?: JsonObject,
): Promise<FileTotals> {
  const parser = createTranscriptParser(agent, { path, state });
  return foldLines(parser, await fixtureLines(path));
}
