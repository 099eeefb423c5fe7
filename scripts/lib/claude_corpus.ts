/**
 * Generates Claude Code-format transcripts with a Zipf-like vocabulary, for
 * the backfill and search benchmarks and the crash-recovery test. Output is
 * deterministic for a seed.
 */

/** A tiny deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A vocabulary whose word ranks follow Zipf's law (s = 1). */
export class ZipfVocabulary {
  readonly words: string[];
  #cumulative: Float64Array;
  #random: () => number;

  constructor(size: number, random: () => number) {
    this.#random = random;
    this.words = Array.from({ length: size }, (_, i) => wordFor(i));
    this.#cumulative = new Float64Array(size);
    let total = 0;
    for (let i = 0; i < size; i++) {
      total += 1 / (i + 1);
      this.#cumulative[i] = total;
    }
    for (let i = 0; i < size; i++) this.#cumulative[i] /= total;
  }

  /** A random word, common ones far more often. */
  word(): string {
    const r = this.#random();
    let lo = 0;
    let hi = this.#cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.#cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo];
  }

  /** A sentence of `n` words. */
  sentence(n: number): string {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.word());
    return out.join(" ");
  }
}

/** A pronounceable, unique word for a rank. */
function wordFor(rank: number): string {
  const consonants = "bcdfghjklmnprstvz";
  const vowels = "aeiou";
  let n = rank;
  let word = "";
  do {
    word += consonants[n % consonants.length] +
      vowels[Math.floor(n / consonants.length) % vowels.length];
    n = Math.floor(n / (consonants.length * vowels.length));
  } while (n > 0);
  return word + (rank % 7 === 0 ? "x" : "");
}

/** What a generated file holds. */
export interface CorpusFile {
  /** Lines written (main file and sub-agents' files). */
  lines: number;
  /** Messages the lines hold (one per content block). */
  messages: number;
  /** Assistant responses (usage records after de-duplication). */
  usage: number;
  /** Tool calls. */
  toolCalls: number;
  /** Bytes written. */
  bytes: number;
  /** Final output tokens of every response, summed (what a correct count stores). */
  outputTokens: number;
  /** Cache writes of every response, summed. */
  cacheWriteTokens: number;
  /** Sub-agent runs (each a file of its own). */
  subagents: number;
}

/** The usage of one model call as the API reports it when the answer is complete. */
export interface AnswerUsage {
  /** Uncached input tokens. */
  input: number;
  /** Cache reads. */
  cacheRead: number;
  /** Cache writes. */
  cacheWrite: number;
  /** Lifetime of the cache writes (Claude Code writes 1-hour entries). */
  ttl: "5m" | "1h";
  /** Final output tokens. */
  output: number;
  /** Output tokens in the snapshot taken while the answer streamed. */
  partialOutput: number;
  /** Server-side web searches. */
  webSearches?: number;
}

/** One assistant answer: its ids, model, content blocks and usage. */
export interface AnswerSpec {
  /** `message.id`. */
  messageId: string;
  /** `requestId` of the envelope. */
  requestId: string;
  /** Model id. */
  model: string;
  /** Content blocks, one transcript line each. */
  blocks: Array<Record<string, unknown>>;
  /** The call's usage. */
  usage: AnswerUsage;
}

function usageSnapshot(usage: AnswerUsage, output: number): Record<string, unknown> {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: output,
    server_tool_use: { web_search_requests: usage.webSearches ?? 0, web_fetch_requests: 0 },
    service_tier: "standard",
    cache_creation: {
      ephemeral_1h_input_tokens: usage.ttl === "1h" ? usage.cacheWrite : 0,
      ephemeral_5m_input_tokens: usage.ttl === "5m" ? usage.cacheWrite : 0,
    },
    inference_geo: "",
    iterations: [],
    speed: "standard",
  };
}

/**
 * The records (without envelope) Claude Code writes for one answer: one per content block,
 * all with the same `message.id` and `requestId`. As in real transcripts, the usage on every
 * line but the last is the snapshot taken while the answer streamed (a partial output count);
 * only the last line carries the final figures.
 */
export function answerRecords(spec: AnswerSpec): Array<Record<string, unknown>> {
  return spec.blocks.map((block, i) => {
    const last = i === spec.blocks.length - 1;
    return {
      type: "assistant",
      requestId: spec.requestId,
      message: {
        id: spec.messageId,
        type: "message",
        role: "assistant",
        model: spec.model,
        content: [block],
        stop_reason: last ? (block.type === "tool_use" ? "tool_use" : "end_turn") : null,
        stop_sequence: null,
        usage: usageSnapshot(spec.usage, last ? spec.usage.output : spec.usage.partialOutput),
      },
    };
  });
}

/** Options for {@link writeClaudeTranscript}. */
export interface TranscriptOptions {
  /** Session id. */
  sessionId: string;
  /** Working directory recorded in every line. */
  cwd: string;
  /** Stop once the main file is about this big (its sub-agents' files come on top). */
  targetBytes: number;
  /** PRNG seed. */
  seed: number;
  /** First timestamp, ms. */
  startMs?: number;
  /** Shared vocabulary (so several files draw from one Zipf distribution). */
  vocabulary?: ZipfVocabulary;
  /** Model of every answer (default claude-sonnet-4-5). */
  model?: string;
  /**
   * Every this many turns the turn's tool call is an `Agent` call: the sub-agent writes its own
   * transcript, `<folder of path>/<sessionId>/subagents/agent-<id>.jsonl`, and the parent gets
   * its answer as the call's result. Absent or 0: no sub-agents.
   */
  subagentEvery?: number;
}

const TOOLS = ["Read", "Bash", "Edit", "Grep"] as const;
const PATCH = { oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ["-a", "+b"] };

/** Lines of one JSONL file, buffered and written in blocks; bytes counted into `stats`. */
class JsonlSink {
  #file: Deno.FsFile;
  #encoder = new TextEncoder();
  #buffer: string[] = [];
  /** Characters buffered and not yet written. */
  bufferChars = 0;
  /** Bytes written to this file. */
  written = 0;

  constructor(file: Deno.FsFile, readonly stats: CorpusFile) {
    this.#file = file;
  }

  static async open(path: string, stats: CorpusFile): Promise<JsonlSink> {
    return new JsonlSink(
      await Deno.open(path, { write: true, create: true, truncate: true }),
      stats,
    );
  }

  /** Adds one line holding `messages` messages (as Vantage counts them). */
  push(line: string, messages: number): void {
    this.#buffer.push(line);
    this.bufferChars += line.length;
    this.stats.lines++;
    this.stats.messages += messages;
  }

  async flush(): Promise<void> {
    const bytes = this.#encoder.encode(this.#buffer.join(""));
    let written = 0;
    while (written < bytes.length) written += await this.#file.write(bytes.subarray(written));
    this.stats.bytes += bytes.length;
    this.written += bytes.length;
    this.#buffer = [];
    this.bufferChars = 0;
  }

  async close(): Promise<void> {
    await this.flush();
    this.#file.close();
  }
}

/** What every conversation of one generated session shares: randomness, words and the clock. */
interface Shared {
  random: () => number;
  vocabulary: ZipfVocabulary;
  clock: { ts: number };
  cwd: string;
  sessionId: string;
}

/**
 * One conversation written to one file: the main session's, or a sub-agent's (its lines marked
 * as a side chain with the agent's id, as Claude Code writes them). It keeps the `parentUuid`
 * chain and the context that grows call by call (what each call reads from and writes to cache).
 */
class Conversation {
  #parent: string | null = null;
  #context: number;
  #pendingChars = 0;
  #calls = 0;

  constructor(
    readonly shared: Shared,
    readonly sink: JsonlSink,
    readonly model: string,
    readonly agentId?: string,
  ) {
    // System prompt and tools, cached on the first call (a sub-agent's are smaller).
    this.#context = agentId === undefined ? 12_000 : 6_000;
  }

  /** Writes one record in Claude Code's line envelope; answers its uuid. */
  emit(record: Record<string, unknown>, messages: number): string {
    const { random, clock, sessionId, cwd } = this.shared;
    clock.ts += 200 + Math.floor(random() * 3000);
    const prefix = this.agentId === undefined ? sessionId : `${sessionId}-${this.agentId}`;
    const uuid = `${prefix}-${this.sink.stats.lines}`;
    const envelope: Record<string, unknown> = {
      parentUuid: this.#parent,
      isSidechain: this.agentId !== undefined,
    };
    if (this.agentId !== undefined) envelope.agentId = this.agentId;
    const line = JSON.stringify({
      ...envelope,
      ...record,
      uuid,
      timestamp: new Date(clock.ts).toISOString(),
      userType: "external",
      entrypoint: "sdk-cli",
      cwd,
      sessionId,
      version: "2.1.197",
      gitBranch: "main",
    }) + "\n";
    this.#parent = uuid;
    this.sink.push(line, messages);
    return uuid;
  }

  /** A prompt the conversation answers (its text joins the context the next call writes). */
  prompt(text: string, extra: Record<string, unknown> = {}): void {
    this.#pendingChars += text.length;
    this.emit({ type: "user", ...extra, message: { role: "user", content: text } }, 1);
  }

  /**
   * One model call answered with `blocks`, one line each, repeating the message id with a
   * partial usage snapshot until the last line's final figures.
   */
  answer(blocks: Array<Record<string, unknown>>): void {
    const { random, sessionId } = this.shared;
    const written = Math.round(this.#pendingChars / 4);
    const usage: AnswerUsage = {
      input: 1 + Math.floor(random() * 9),
      cacheRead: this.#context,
      cacheWrite: written,
      ttl: "1h",
      output: 40 + Math.floor(random() * 900),
      partialOutput: 1 + Math.floor(random() * 20),
    };
    this.#context += written;
    this.#pendingChars = 0;
    this.#calls++;
    const id = this.agentId === undefined
      ? `${sessionId}_${this.#calls}`
      : `${sessionId}_${this.agentId}_${this.#calls}`;
    const records = answerRecords({
      messageId: `msg_${id}`,
      requestId: `req_${id}`,
      model: this.model,
      blocks,
      usage,
    });
    for (const record of records) this.emit(record, 1);
    const stats = this.sink.stats;
    stats.usage++;
    stats.outputTokens += usage.output;
    stats.cacheWriteTokens += usage.cacheWrite;
    // A context near the window is compacted: the next call starts from a summary.
    if (this.#context > 160_000) this.#context = 20_000;
  }

  /** A tool's result, answering the call `toolId` (its output joins the context). */
  toolResult(
    toolId: string,
    content: string | Array<Record<string, unknown>>,
    toolUseResult: Record<string, unknown>,
    isError: boolean,
  ): void {
    this.#pendingChars += typeof content === "string"
      ? content.length
      : JSON.stringify(content).length;
    this.emit({
      type: "user",
      message: {
        role: "user",
        content: [{ tool_use_id: toolId, type: "tool_result", content, is_error: isError }],
      },
      toolUseResult,
      sourceToolAssistantUUID: this.#parent,
    }, 1);
  }

  /**
   * A call that thinks, says something and uses one of the ordinary tools, then the tool's
   * result: file or command output (now and then a long one), repeated in `toolUseResult` as
   * Claude Code does (Read: the file content; Bash: stdout; Edit: the whole original file and
   * a structured patch).
   */
  toolTurn(turn: number): void {
    const { random, vocabulary, cwd, sessionId } = this.shared;
    const tool = TOOLS[Math.floor(random() * TOOLS.length)];
    const toolId = this.agentId === undefined
      ? `toolu_${sessionId}_${turn}`
      : `toolu_${sessionId}_${this.agentId}_${turn}`;
    const target = `${cwd}/src/${vocabulary.word()}.ts`;
    const input = tool === "Bash"
      ? { command: `npm test -- ${vocabulary.word()}`, description: vocabulary.sentence(5) }
      : tool === "Edit"
      ? {
        file_path: target,
        old_string: vocabulary.sentence(8),
        new_string: vocabulary.sentence(8),
      }
      : tool === "Grep"
      ? { pattern: vocabulary.word(), path: cwd }
      : { file_path: target };
    this.answer([
      ...this.#thoughts(),
      { type: "tool_use", id: toolId, name: tool, input },
    ]);
    this.sink.stats.toolCalls++;
    const output = tool === "Read" || tool === "Bash"
      ? this.#codeLines(this.#outputLines())
      : vocabulary.sentence(20 + Math.floor(random() * 80));
    const isError = random() < 0.05;
    this.toolResult(
      toolId,
      output,
      tool === "Read"
        ? {
          type: "text",
          file: { filePath: target, content: output, numLines: 40, startLine: 1, totalLines: 40 },
        }
        : tool === "Edit"
        ? {
          filePath: target,
          oldString: (input as { old_string: string }).old_string,
          newString: (input as { new_string: string }).new_string,
          originalFile: this.#codeLines(40 + Math.floor(random() * 120)),
          structuredPatch: [PATCH],
          userModified: false,
          replaceAll: false,
        }
        : { stdout: output, stderr: "", interrupted: false, isImage: false },
      isError,
    );
  }

  /** A thinking block and a text block, as most answers open. */
  #thoughts(): Array<Record<string, unknown>> {
    const { random, vocabulary } = this.shared;
    return [
      {
        type: "thinking",
        thinking: vocabulary.sentence(10 + Math.floor(random() * 40)),
        signature: btoa(vocabulary.sentence(30)),
      },
      { type: "text", text: vocabulary.sentence(20 + Math.floor(random() * 100)) },
    ];
  }

  /** Numbered source lines, as the Read tool shows a file. */
  #codeLines(n: number): string {
    const { random, vocabulary } = this.shared;
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      out.push(
        `${
          String(i + 1).padStart(4)
        }\u2192  const ${vocabulary.word()} = ${vocabulary.word()}(${vocabulary.word()}, ${
          Math.floor(random() * 100)
        });`,
      );
    }
    return out.join("\n");
  }

  /** Most tool output is short; now and then a whole file or a long log comes back. */
  #outputLines(): number {
    const random = this.shared.random;
    return random() < 0.08 ? 400 + Math.floor(random() * 1600) : 20 + Math.floor(random() * 120);
  }

  /**
   * A turn whose call starts a sub-agent (`Agent`): the sub-agent's own transcript (its task as
   * the first prompt, a few tool turns, a closing answer) goes to `subagentPath(id)`, then the
   * parent gets the answer as the call's result, naming the agent as Claude Code 2.1 does.
   */
  async agentTurn(turn: number, subagentPath: (agentId: string) => string): Promise<void> {
    const { random, vocabulary, sessionId } = this.shared;
    const stats = this.sink.stats;
    const toolId = `toolu_${sessionId}_${turn}`;
    const agentId = `a${(turn * 2654435761 >>> 0).toString(16).padStart(8, "0")}${
      Math.floor(random() * 0xffffff).toString(16)
    }`;
    const explore = random() < 0.5;
    const agentType = explore ? "Explore" : "general-purpose";
    const description = vocabulary.sentence(4);
    const task = vocabulary.sentence(30 + Math.floor(random() * 60));
    this.answer([
      ...this.#thoughts(),
      {
        type: "tool_use",
        id: toolId,
        name: "Agent",
        input: { description, prompt: task, subagent_type: agentType },
      },
    ]);
    stats.toolCalls++;
    stats.subagents++;
    const sink = await JsonlSink.open(subagentPath(agentId), stats);
    const agent = new Conversation(
      this.shared,
      sink,
      explore ? "claude-haiku-4-5" : this.model,
      agentId,
    );
    agent.prompt(task, { promptId: `p-${sessionId}-${turn}` });
    const steps = 2 + Math.floor(random() * 6);
    for (let step = 1; step <= steps; step++) {
      agent.toolTurn(step);
      if (sink.bufferChars > 1 << 20) await sink.flush();
    }
    const summary = vocabulary.sentence(40 + Math.floor(random() * 120));
    agent.answer([{ type: "text", text: summary }]);
    await sink.close();
    this.toolResult(
      toolId,
      [
        { type: "text", text: summary },
        {
          type: "text",
          text:
            `agentId: ${agentId} (use SendMessage with to: '${agentId}' to continue this agent)`,
        },
      ],
      {
        status: "completed",
        prompt: task,
        agentId,
        agentType,
        content: [{ type: "text", text: summary }],
        totalDurationMs: 1000 + Math.floor(random() * 60_000),
        totalTokens: 5000 + Math.floor(random() * 50_000),
        totalToolUseCount: steps,
      },
      false,
    );
  }
}

/**
 * Writes one Claude Code transcript of about `targetBytes`, shaped like the real files Claude
 * Code 2.1 writes: the full line envelope, a `file-history-snapshot` line (time nested in
 * `snapshot.timestamp`) before each prompt, a user prompt per turn, an assistant answer split
 * into thinking, text and tool_use lines that repeat one message id with a partial usage
 * snapshot until the last line's final figures (1-hour cache writes, a context that grows
 * turn by turn), tool results carrying file or command output (now and then a long one), now
 * and then an attachment record, and with `subagentEvery`, sub-agents in files of their own.
 * The stats cover the main file and its sub-agents' files.
 */
export async function writeClaudeTranscript(
  path: string,
  options: TranscriptOptions,
): Promise<CorpusFile> {
  const random = prng(options.seed);
  const shared: Shared = {
    random,
    vocabulary: options.vocabulary ?? new ZipfVocabulary(50_000, random),
    clock: { ts: options.startMs ?? Date.UTC(2026, 10, 1) },
    cwd: options.cwd,
    sessionId: options.sessionId,
  };
  const stats: CorpusFile = {
    lines: 0,
    messages: 0,
    usage: 0,
    toolCalls: 0,
    bytes: 0,
    outputTokens: 0,
    cacheWriteTokens: 0,
    subagents: 0,
  };
  const sink = await JsonlSink.open(path, stats);
  const main = new Conversation(shared, sink, options.model ?? "claude-sonnet-4-5");
  const folder = path.replace(/[^/\\]*$/, "");
  const subagents = `${folder}${options.sessionId}/subagents`;
  const subagentPath = (agentId: string) => `${subagents}/agent-${agentId}.jsonl`;
  const every = options.subagentEvery ?? 0;
  if (every > 0) await Deno.mkdir(subagents, { recursive: true });
  let turn = 0;
  try {
    while (sink.written + sink.bufferChars < options.targetBytes) {
      turn++;
      const promptUuid = `${options.sessionId}-prompt-${turn}`;
      sink.push(
        JSON.stringify({
          type: "file-history-snapshot",
          messageId: promptUuid,
          snapshot: {
            messageId: promptUuid,
            trackedFileBackups: {},
            timestamp: new Date(shared.clock.ts + 1).toISOString(),
          },
          isSnapshotUpdate: false,
        }) + "\n",
        0,
      );
      main.prompt(shared.vocabulary.sentence(8 + Math.floor(random() * 30)), {
        promptId: `p-${turn}`,
      });
      if (turn % 10 === 1) {
        main.emit({
          type: "attachment",
          attachment: {
            type: "hook_additional_context",
            content: [shared.vocabulary.sentence(60)],
          },
        }, 0);
      }
      if (every > 0 && turn % every === 0) await main.agentTurn(turn, subagentPath);
      else main.toolTurn(turn);
      if (sink.bufferChars > 1 << 20) await sink.flush();
    }
  } finally {
    await sink.close();
  }
  return stats;
}
