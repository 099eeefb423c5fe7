/**
 * Writes the usage parity corpus in `tests/fixtures/usage_parity/`: Claude Code sessions and
 * Codex rollouts shaped like the real files (see shared/TESTING.md), on which Vantage's token
 * and cost counts are compared with ccusage's (`tests/agent/usage/ccusage_parity_test.ts`).
 *
 * Usage: deno run -A scripts/make_usage_fixtures.ts
 *
 * What the corpus holds, on purpose:
 * - Claude: answers written as several lines (thinking, text, tool_use) sharing one
 *   `message.id` + `requestId`, early lines with a partial output count; `file-history-snapshot`
 *   lines first (time nested in `snapshot.timestamp`); 1-hour and 5-minute cache writes (one
 *   call with both); long tool results; a resumed session that opens with a `summary` line and
 *   repeats an answer of another session; a compaction (`compact_boundary` and the summary
 *   prompt); sub-agents in `<session>/subagents/agent-<id>.jsonl`; a model switch; a web
 *   search; an API error written as a `<synthetic>` answer; a model no price table knows; a
 *   session that crosses midnight (UTC).
 * - Codex: cumulative `token_count` totals with cached input and reasoning, a repeated total
 *   and an `info: null` event (neither may count), a model switch in `turn_context`.
 * Sonnet 4.5 calls stay under 200K prompt tokens: above it ccusage and Vantage price long
 * context differently (see the README).
 *
 * Output is deterministic.
 *
 * @module
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { answerRecords, type AnswerUsage, prng, ZipfVocabulary } from "./lib/claude_corpus.ts";

const OUT = new URL("../tests/fixtures/usage_parity/", import.meta.url).pathname;
const random = prng(2026);
const words = new ZipfVocabulary(5_000, random);
const CWD = "/home/fixture/shop";
const PROJECT = "-home-fixture-shop";

function int(min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

function uuid(n: number, prefix: number): string {
  const hex = (prefix * 1_000_003 + n).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(0, 3)}-8${hex.slice(3, 6)}-${
    hex.padEnd(12, "0")
  }`;
}

function compact(record: unknown): string {
  return JSON.stringify(record);
}

function write(path: string, lines: string[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join("\n") + "\n");
}

/** One Claude Code transcript being written. */
class ClaudeFile {
  lines: string[] = [];
  #parent: string | null = null;
  #count = 0;
  ts: number;
  context = 14_000;
  #pending = 0;

  constructor(
    readonly sessionId: string,
    start: string,
    readonly seed: number,
    readonly agentId?: string,
  ) {
    this.ts = Date.parse(start);
  }

  #envelope(record: Record<string, unknown>): string {
    this.ts += int(400, 9000);
    const id = uuid(this.#count++, this.seed);
    const line = compact({
      parentUuid: this.#parent,
      isSidechain: this.agentId !== undefined,
      ...(this.agentId !== undefined ? { agentId: this.agentId } : {}),
      ...record,
      uuid: id,
      timestamp: new Date(this.ts).toISOString(),
      userType: "external",
      entrypoint: "cli",
      cwd: CWD,
      sessionId: this.sessionId,
      version: "2.1.197",
      gitBranch: "main",
    });
    this.#parent = id;
    this.lines.push(line);
    return id;
  }

  snapshot(): void {
    const id = uuid(900 + this.#count, this.seed);
    this.lines.push(compact({
      type: "file-history-snapshot",
      messageId: id,
      snapshot: {
        messageId: id,
        trackedFileBackups: {},
        timestamp: new Date(this.ts).toISOString(),
      },
      isSnapshotUpdate: false,
    }));
  }

  prompt(text = words.sentence(int(6, 30))): void {
    this.#pending += text.length;
    this.#envelope({ type: "user", message: { role: "user", content: text } });
  }

  /** One answer; `ttl` and splits as given; returns its usage. */
  answer(
    model: string,
    options: { tool?: string; ttl?: "5m" | "1h"; both?: boolean; webSearches?: number } = {},
  ): AnswerUsage {
    const n = this.#count;
    const written = Math.max(50, Math.round(this.#pending / 4));
    this.#pending = 0;
    const usage: AnswerUsage = {
      input: int(1, 12),
      cacheRead: this.context,
      cacheWrite: written,
      ttl: options.ttl ?? "1h",
      output: int(30, 1500),
      partialOutput: int(1, 25),
      webSearches: options.webSearches,
    };
    this.context += written;
    const blocks: Array<Record<string, unknown>> = [
      {
        type: "thinking",
        thinking: words.sentence(int(8, 40)),
        signature: btoa(words.sentence(8)),
      },
      { type: "text", text: words.sentence(int(10, 60)) },
    ];
    const toolId = `toolu_${this.seed}_${n}`;
    if (options.tool !== undefined) {
      blocks.push({
        type: "tool_use",
        id: toolId,
        name: options.tool,
        input: options.tool === "Bash"
          ? { command: `npm test -- ${words.word()}` }
          : { file_path: `${CWD}/src/${words.word()}.ts` },
      });
    }
    const records = answerRecords({
      messageId: `msg_${this.seed}_${n}`,
      requestId: `req_${this.seed}_${n}`,
      model,
      blocks,
      usage,
    });
    if (options.both === true) {
      // A call that wrote to both cache lifetimes: the split names each part.
      for (const record of records) {
        const u = (record.message as { usage: Record<string, unknown> }).usage;
        u.cache_creation = {
          ephemeral_1h_input_tokens: written - Math.floor(written / 3),
          ephemeral_5m_input_tokens: Math.floor(written / 3),
        };
      }
    }
    for (const record of records) this.#envelope(record);
    if (options.tool !== undefined) {
      // Now and then a long file or log comes back.
      const lines = random() < 0.25 ? int(300, 900) : int(10, 80);
      const output = Array.from({ length: lines }, (_, i) => `${i + 1}\t${words.sentence(8)}`)
        .join("\n");
      this.#pending += output.length;
      this.#envelope({
        type: "user",
        message: {
          role: "user",
          content: [{ tool_use_id: toolId, type: "tool_result", content: output }],
        },
        toolUseResult: { stdout: output, stderr: "", interrupted: false, isImage: false },
      });
    }
    return usage;
  }

  /** Repeats an answer line of another file verbatim (a resumed or forked session). */
  copy(line: string): void {
    this.lines.push(line);
  }

  synthetic(): void {
    this.#envelope({
      type: "assistant",
      message: {
        id: `msg_synthetic_${this.#count}`,
        type: "message",
        role: "assistant",
        model: "<synthetic>",
        content: [{ type: "text", text: "API Error: 529 overloaded" }],
        stop_reason: "stop_sequence",
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
      isApiErrorMessage: true,
    });
  }

  compaction(): void {
    this.#envelope({
      type: "system",
      subtype: "compact_boundary",
      content: "Conversation compacted",
      compactMetadata: { trigger: "auto", preTokens: this.context },
      level: "info",
    });
    this.context = 18_000;
    this.#envelope({
      type: "user",
      isCompactSummary: true,
      message: {
        role: "user",
        content: `This session is being continued from a previous conversation. ${
          words.sentence(80)
        }`,
      },
    });
  }

  turns(model: string, count: number, options: { ttl?: "5m" | "1h"; limit?: number } = {}) {
    for (let i = 0; i < count; i++) {
      this.snapshot();
      this.prompt();
      const calls = int(1, 3);
      for (let c = 0; c < calls; c++) {
        const tool = c < calls - 1 ? (random() < 0.5 ? "Read" : "Bash") : undefined;
        this.answer(model, { tool, ttl: options.ttl });
        if (options.limit !== undefined && this.context > options.limit) this.compaction();
      }
    }
  }
}

function claudeFile(file: ClaudeFile): string {
  const base = join(OUT, "claude", "projects", PROJECT);
  return file.agentId === undefined
    ? join(base, `${file.sessionId}.jsonl`)
    : join(base, file.sessionId, "subagents", `agent-${file.agentId}.jsonl`);
}

function writeClaude(): void {
  const files: ClaudeFile[] = [];
  // 1. Opus 4.6 with 1-hour writes, a web search, and a Haiku sub-agent.
  const s1 = new ClaudeFile(uuid(1, 11), "2026-11-24T09:12:00.000Z", 11);
  s1.snapshot();
  s1.turns("claude-opus-4-6", 5);
  s1.snapshot();
  s1.prompt("find the current price of the widget on the web");
  s1.answer("claude-opus-4-6", { webSearches: 2 });
  const sub1 = new ClaudeFile(s1.sessionId, "2026-11-24T09:40:00.000Z", 12, "a1b2c3d4e5f60718");
  sub1.prompt("Search the code for every use of the price table");
  for (let i = 0; i < 4; i++) sub1.answer("claude-haiku-4-5-20251001", { tool: "Bash" });
  sub1.answer("claude-haiku-4-5-20251001");
  s1.turns("claude-opus-4-6", 3);
  files.push(s1, sub1);

  // 2. Sonnet 4.5 with 5-minute writes, compacted, crossing midnight; prompts under 200K.
  const s2 = new ClaudeFile(uuid(2, 21), "2026-11-25T23:54:00.000Z", 21);
  s2.snapshot();
  s2.turns("claude-sonnet-4-5-20250929", 14, { ttl: "5m", limit: 150_000 });
  files.push(s2);

  // 3. Resumed: a summary line first (no time), an answer of session 1 repeated, then Opus 4.8
  //    switching to Sonnet 4.6, and a call writing to both cache lifetimes.
  const s3 = new ClaudeFile(uuid(3, 31), "2026-11-26T14:05:00.000Z", 31);
  s3.copy(
    compact({ type: "summary", summary: "Fix the checkout rounding", leafUuid: uuid(7, 11) }),
  );
  s3.snapshot();
  s3.copy(s1.lines.find((line) => line.includes('"type":"assistant"'))!);
  s3.turns("claude-opus-4-8", 4);
  s3.prompt("/model sonnet");
  s3.answer("claude-sonnet-4-6", { tool: "Read", both: true });
  s3.turns("claude-sonnet-4-6", 3);
  files.push(s3);

  // 4. A model no price table knows (Claude Code pointed at a local server), and an API error.
  const s4 = new ClaudeFile(uuid(4, 41), "2026-11-27T08:00:00.000Z", 41);
  s4.snapshot();
  s4.turns("fixture-local-model", 3);
  s4.prompt();
  s4.synthetic();
  s4.turns("fixture-local-model", 1);
  files.push(s4);

  // 5. Haiku 4.5 with a Sonnet 4.6 sub-agent.
  const s5 = new ClaudeFile(uuid(5, 51), "2026-11-28T16:30:00.000Z", 51);
  s5.snapshot();
  s5.turns("claude-haiku-4-5-20251001", 3);
  const sub5 = new ClaudeFile(s5.sessionId, "2026-11-28T16:45:00.000Z", 52, "f0e1d2c3b4a59687");
  sub5.prompt("Review the diff");
  for (let i = 0; i < 3; i++) sub5.answer("claude-sonnet-4-6", { tool: "Read" });
  sub5.answer("claude-sonnet-4-6");
  s5.turns("claude-haiku-4-5-20251001", 2);
  files.push(s5, sub5);

  for (const file of files) write(claudeFile(file), file.lines);
}

/** One Codex rollout being written. */
class Rollout {
  lines: string[] = [];
  ts: number;
  #totals = { input: 0, cached: 0, output: 0, reasoning: 0 };
  #context = 9_000;

  constructor(readonly id: string, readonly start: string, model: string) {
    this.ts = Date.parse(start);
    this.#line("session_meta", {
      id,
      timestamp: new Date(this.ts).toISOString(),
      cwd: CWD,
      originator: "codex_cli_rs",
      cli_version: "0.171.0",
      source: "cli",
      model_provider: "openai",
      git: { branch: "main" },
    });
    this.model(model);
  }

  #line(type: string, payload: Record<string, unknown>): void {
    this.ts += int(300, 6000);
    this.lines.push(compact({ timestamp: new Date(this.ts).toISOString(), type, payload }));
  }

  model(model: string): void {
    this.#line("turn_context", { cwd: CWD, model, effort: "medium", summary: "auto" });
  }

  #tokenCount(last: Record<string, number> | null): void {
    const t = this.#totals;
    this.#line("event_msg", {
      type: "token_count",
      info: last === null ? null : {
        total_token_usage: {
          input_tokens: t.input,
          cached_input_tokens: t.cached,
          output_tokens: t.output,
          reasoning_output_tokens: t.reasoning,
          total_tokens: t.input + t.output,
        },
        last_token_usage: last,
        model_context_window: 272_000,
      },
      rate_limits: { primary: { used_percent: 12.0, window_minutes: 300 } },
    });
  }

  turn(calls: number): void {
    const prompt = words.sentence(int(6, 24));
    this.#line("event_msg", { type: "user_message", message: prompt });
    this.#line("response_item", {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: prompt }],
    });
    this.#tokenCount(null);
    for (let c = 0; c < calls; c++) {
      const cached = Math.floor(this.#context * 0.9 / 256) * 256;
      const input = this.#context + int(200, 3000);
      const reasoning = int(0, 600);
      const output = reasoning + int(20, 900);
      this.#context = input + output;
      const t = this.#totals;
      t.input += input;
      t.cached += cached;
      t.output += output;
      t.reasoning += reasoning;
      this.#line("response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: words.sentence(12) }],
        encrypted_content: btoa(words.sentence(20)),
      });
      const callId = `call_${this.id.slice(0, 8)}_${this.lines.length}`;
      this.#line("response_item", {
        type: "function_call",
        name: "exec_command",
        arguments: JSON.stringify({ cmd: `rg ${words.word()} src` }),
        call_id: callId,
      });
      this.#tokenCount({
        input_tokens: input,
        cached_input_tokens: cached,
        output_tokens: output,
        reasoning_output_tokens: reasoning,
        total_tokens: input + output,
      });
      this.#line("response_item", {
        type: "function_call_output",
        call_id: callId,
        output: `Process exited with code 0\n${words.sentence(int(40, 400))}`,
      });
    }
    // A rate-limit update repeats the last totals: it adds no usage.
    const t = this.#totals;
    this.#tokenCount({
      input_tokens: 0,
      cached_input_tokens: 0,
      output_tokens: 0,
      reasoning_output_tokens: 0,
      total_tokens: t.input + t.output,
    });
    this.#line("response_item", {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: words.sentence(int(10, 60)) }],
    });
    this.#line("event_msg", { type: "task_complete", last_agent_message: "done" });
  }

  path(): string {
    const stamp = this.start.slice(0, 19).replaceAll(":", "-");
    const day = this.start.slice(0, 10).split("-");
    return join(OUT, "codex", "sessions", ...day, `rollout-${stamp}-${this.id}.jsonl`);
  }
}

function writeCodex(): void {
  const c1 = new Rollout(
    "019ac0de-0001-7000-8000-00000000c0d1",
    "2026-11-24T11:00:00.000Z",
    "gpt-5.3-codex",
  );
  for (let i = 0; i < 4; i++) c1.turn(int(1, 3));
  const c2 = new Rollout(
    "019ac0de-0002-7000-8000-00000000c0d2",
    "2026-11-26T10:20:00.000Z",
    "gpt-5.5",
  );
  for (let i = 0; i < 3; i++) c2.turn(int(1, 3));
  const c3 = new Rollout(
    "019ac0de-0003-7000-8000-00000000c0d3",
    "2026-11-27T15:45:00.000Z",
    "gpt-5.4-mini",
  );
  for (let i = 0; i < 2; i++) c3.turn(2);
  c3.model("gpt-5.3-codex");
  for (let i = 0; i < 2; i++) c3.turn(2);
  for (const rollout of [c1, c2, c3]) write(rollout.path(), rollout.lines);
}

rmSync(OUT, { recursive: true, force: true });
writeClaude();
writeCodex();
console.log(`wrote ${OUT}`);
