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
  /** Messages the lines hold (one per line). */
  messages: number;
  /** Assistant responses (usage records). */
  usage: number;
  /** Bytes written. */
  bytes: number;
}

/**
 * Writes one Claude Code transcript of about `targetBytes`, alternating user
 * prompts and assistant answers, each line one message.
 */
export async function writeClaudeTranscript(
  path: string,
  options: {
    sessionId: string;
    cwd: string;
    targetBytes: number;
    seed: number;
    startMs?: number;
    vocabulary?: ZipfVocabulary;
  },
): Promise<CorpusFile> {
  const random = prng(options.seed);
  const vocabulary = options.vocabulary ?? new ZipfVocabulary(50_000, random);
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const stats: CorpusFile = { lines: 0, messages: 0, usage: 0, bytes: 0 };
  let ts = options.startMs ?? Date.UTC(2026, 10, 1);
  let buffer: string[] = [];
  let bufferBytes = 0;
  const flush = async () => {
    const bytes = encoder.encode(buffer.join(""));
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    buffer = [];
    bufferBytes = 0;
  };
  try {
    while (stats.bytes < options.targetBytes) {
      ts += 1000 + Math.floor(random() * 5000);
      const n = stats.lines;
      const base = {
        sessionId: options.sessionId,
        cwd: options.cwd,
        uuid: `${options.sessionId}-${n}`,
        timestamp: new Date(ts).toISOString(),
      };
      let line: string;
      if (n % 2 === 0) {
        line = JSON.stringify({
          type: "user",
          ...base,
          message: { role: "user", content: vocabulary.sentence(8 + Math.floor(random() * 30)) },
        });
      } else {
        line = JSON.stringify({
          type: "assistant",
          ...base,
          requestId: `req_${options.sessionId}_${n}`,
          message: {
            id: `msg_${options.sessionId}_${n}`,
            type: "message",
            role: "assistant",
            model: "claude-sonnet-4-5",
            content: [{ type: "text", text: vocabulary.sentence(20 + Math.floor(random() * 120)) }],
            stop_reason: "end_turn",
            usage: {
              input_tokens: 12,
              output_tokens: 80,
              cache_read_input_tokens: 2000,
              cache_creation_input_tokens: 40,
            },
          },
        });
        stats.usage++;
      }
      line += "\n";
      buffer.push(line);
      bufferBytes += line.length;
      stats.lines++;
      stats.messages++;
      stats.bytes += encoder.encode(line).length;
      if (bufferBytes > 1 << 20) await flush();
    }
    await flush();
  } finally {
    file.close();
  }
  return stats;
}
