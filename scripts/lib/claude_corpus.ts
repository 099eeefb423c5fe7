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
  /** Lines written. */
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
  /** Stop once the file is about this big. */
  targetBytes: number;
  /** PRNG seed. */
  seed: number;
  /** First timestamp, ms. */
  startMs?: number;
  /** Shared vocabulary (so several files draw from one Zipf distribution). */
  vocabulary?: ZipfVocabulary;
  /** Model of every answer (default claude-sonnet-4-5). */
  model?: string;
}

const TOOLS = ["Read", "Bash", "Edit", "Grep"] as const;

/**
 * Writes one Claude Code transcript of about `targetBytes`, shaped like the real files Claude
 * Code 2.1 writes: the full line envelope, a `file-history-snapshot` line (time nested in
 * `snapshot.timestamp`) before each prompt, a user prompt per turn, an assistant answer split
 * into thinking, text and tool_use lines that repeat one message id with a partial usage
 * snapshot until the last line's final figures (1-hour cache writes, a context that grows
 * turn by turn), tool results carrying file or command output (now and then a long one), and
 * now and then an attachment record.
 */
export async function writeClaudeTranscript(
  path: string,
  options: TranscriptOptions,
): Promise<CorpusFile> {
  const random = prng(options.seed);
  const vocabulary = options.vocabulary ?? new ZipfVocabulary(50_000, random);
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const stats: CorpusFile = {
    lines: 0,
    messages: 0,
    usage: 0,
    toolCalls: 0,
    bytes: 0,
    outputTokens: 0,
    cacheWriteTokens: 0,
  };
  let ts = options.startMs ?? Date.UTC(2026, 10, 1);
  let parent: string | null = null;
  let buffer: string[] = [];
  let bufferChars = 0;
  let turn = 0;
  let context = 12_000; // System prompt and tools, cached on the first call.
  let pendingChars = 0; // Text added to the conversation since the last call.
  const flush = async () => {
    const bytes = encoder.encode(buffer.join(""));
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    stats.bytes += bytes.length;
    buffer = [];
    bufferChars = 0;
  };
  const push = (line: string, messages: number) => {
    buffer.push(line);
    bufferChars += line.length;
    stats.lines++;
    stats.messages += messages;
  };
  const emit = (record: Record<string, unknown>, messages: number) => {
    ts += 200 + Math.floor(random() * 3000);
    const uuid = `${options.sessionId}-${stats.lines}`;
    const line = JSON.stringify({
      parentUuid: parent,
      isSidechain: false,
      ...record,
      uuid,
      timestamp: new Date(ts).toISOString(),
      userType: "external",
      entrypoint: "sdk-cli",
      cwd: options.cwd,
      sessionId: options.sessionId,
      version: "2.1.197",
      gitBranch: "main",
    }) + "\n";
    parent = uuid;
    push(line, messages);
    return uuid;
  };
  const codeLines = (n: number) => {
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
  };
  // Most tool output is short; now and then a whole file or a long log comes back.
  const outputLines = () =>
    random() < 0.08 ? 400 + Math.floor(random() * 1600) : 20 + Math.floor(random() * 120);
  try {
    while (stats.bytes + bufferChars < options.targetBytes) {
      turn++;
      const promptUuid = `${options.sessionId}-prompt-${turn}`;
      push(
        JSON.stringify({
          type: "file-history-snapshot",
          messageId: promptUuid,
          snapshot: {
            messageId: promptUuid,
            trackedFileBackups: {},
            timestamp: new Date(ts + 1).toISOString(),
          },
          isSnapshotUpdate: false,
        }) + "\n",
        0,
      );
      const prompt = vocabulary.sentence(8 + Math.floor(random() * 30));
      pendingChars += prompt.length;
      emit({
        type: "user",
        promptId: `p-${turn}`,
        message: { role: "user", content: prompt },
      }, 1);
      if (turn % 10 === 1) {
        emit({
          type: "attachment",
          attachment: { type: "hook_additional_context", content: [vocabulary.sentence(60)] },
        }, 0);
      }
      const tool = TOOLS[Math.floor(random() * TOOLS.length)];
      const toolId = `toolu_${options.sessionId}_${turn}`;
      const target = `${options.cwd}/src/${vocabulary.word()}.ts`;
      const input = tool === "Bash"
        ? { command: `npm test -- ${vocabulary.word()}`, description: vocabulary.sentence(5) }
        : tool === "Edit"
        ? {
          file_path: target,
          old_string: vocabulary.sentence(8),
          new_string: vocabulary.sentence(8),
        }
        : tool === "Grep"
        ? { pattern: vocabulary.word(), path: options.cwd }
        : { file_path: target };
      const blocks: Array<Record<string, unknown>> = [
        {
          type: "thinking",
          thinking: vocabulary.sentence(10 + Math.floor(random() * 40)),
          signature: btoa(vocabulary.sentence(30)),
        },
        { type: "text", text: vocabulary.sentence(20 + Math.floor(random() * 100)) },
        { type: "tool_use", id: toolId, name: tool, input },
      ];
      const written = Math.round(pendingChars / 4);
      const usage: AnswerUsage = {
        input: 1 + Math.floor(random() * 9),
        cacheRead: context,
        cacheWrite: written,
        ttl: "1h",
        output: 40 + Math.floor(random() * 900),
        partialOutput: 1 + Math.floor(random() * 20),
      };
      context += written;
      pendingChars = 0;
      const records = answerRecords({
        messageId: `msg_${options.sessionId}_${turn}`,
        requestId: `req_${options.sessionId}_${turn}`,
        model: options.model ?? "claude-sonnet-4-5",
        blocks,
        usage,
      });
      for (const record of records) emit(record, 1);
      stats.usage++;
      stats.toolCalls++;
      stats.outputTokens += usage.output;
      stats.cacheWriteTokens += usage.cacheWrite;
      const output = tool === "Read" || tool === "Bash"
        ? codeLines(outputLines())
        : vocabulary.sentence(20 + Math.floor(random() * 80));
      pendingChars += output.length;
      emit({
        type: "user",
        message: {
          role: "user",
          content: [{
            tool_use_id: toolId,
            type: "tool_result",
            content: output,
            is_error: random() < 0.05,
          }],
        },
        // Claude Code repeats the tool's output in toolUseResult (Read: the file content; Bash:
        // stdout; Edit: the whole original file and a structured patch), as real transcripts do.
        toolUseResult: tool === "Read"
          ? {
            type: "text",
            file: { filePath: target, content: output, numLines: 40, startLine: 1, totalLines: 40 },
          }
          : tool === "Edit"
          ? {
            filePath: target,
            oldString: (input as { old_string: string }).old_string,
            newString: (input as { new_string: string }).new_string,
            originalFile: codeLines(40 + Math.floor(random() * 120)),
            structuredPatch: [{
              oldStart: 3,
              oldLines: 1,
              newStart: 3,
              newLines: 1,
              lines: ["-a", "+b"],
            }],
            userModified: false,
            replaceAll: false,
          }
          : { stdout: output, stderr: "", interrupted: false, isImage: false },
        sourceToolAssistantUUID: parent,
      }, 1);
      // A context near the window is compacted: the next call starts from a summary.
      if (context > 160_000) context = 20_000;
      if (bufferChars > 1 << 20) await flush();
    }
    await flush();
  } finally {
    file.close();
  }
  return stats;
}
