/**
 * Reading one JSONL transcript file into batches of parsed records, each with the cursor
 * (byte offset, parser state, line counts) reached after it. Storing a batch together with its
 * cursor is `transcript_commit.ts`'s part; this module touches no database, so a caller may read
 * a file's batches first and choose how to commit them (alone, or in a backfill's group).
 *
 * @module
 */
import { JsonlFile, nextTurn } from "./jsonl_reader.ts";
import { createTranscriptParser } from "./transcript_parser.ts";
import type { TranscriptCursor } from "../../store/agent/transcript_cursors.ts";
import type {
  AgentName,
  JsonObject,
  ParsedRecords,
  SessionInfo,
  ToolOutcome,
  TranscriptMessage,
  UsageRecord,
} from "../../model/agent_records.ts";

/** Bytes of lines read (and parsed) at a time. */
const READ_CHUNK_BYTES = 256 * 1024;

/** Most bytes of a file consumed per batch (one transaction) by default. */
export const BATCH_BYTES = 4 * 1024 * 1024;

/** The records of a batch of lines, as a commit stores them. */
export interface BatchRecords {
  /** Session facts, in order. */
  readonly sessions: SessionInfo[];
  /** Sessions this file only names (a parent's sub-agents): someone else's transcript. */
  readonly linked: SessionInfo[];
  /** Messages. */
  readonly messages: TranscriptMessage[];
  /** Usage records. */
  readonly usage: UsageRecord[];
  /** Tool outcomes. */
  readonly outcomes: ToolOutcome[];
  /** Lines that were not JSON objects. */
  malformed: number;
  /** Lines of record types the parser does not know. */
  unknown: number;
  /** Tool calls started. */
  toolCalls: number;
}

/** Parsed records gathered from a batch of lines, waiting to be committed. */
export class ParsedBatch implements BatchRecords {
  /** Session facts, in order. */
  readonly sessions: SessionInfo[] = [];
  /** Sessions this file only names (a parent's sub-agents): someone else's transcript. */
  readonly linked: SessionInfo[] = [];
  /** Messages. */
  readonly messages: TranscriptMessage[] = [];
  /** Usage records. */
  readonly usage: UsageRecord[] = [];
  /** Tool outcomes. */
  readonly outcomes: ToolOutcome[] = [];
  /** Lines that were not JSON objects. */
  malformed = 0;
  /** Lines of record types the parser does not know. */
  unknown = 0;
  /** Tool calls started. */
  toolCalls = 0;

  /** Adds what one line yielded. */
  add(parsed: ParsedRecords): void {
    if (parsed.malformed) this.malformed++;
    if (parsed.unknown_type !== undefined) this.unknown++;
    if (parsed.session !== undefined) this.sessions.push(parsed.session);
    if (parsed.linked_sessions !== undefined) this.linked.push(...parsed.linked_sessions);
    for (const message of parsed.messages) this.messages.push(message);
    for (const usage of parsed.usage) this.usage.push(usage);
    for (const outcome of parsed.outcomes) this.outcomes.push(outcome);
    this.toolCalls += parsed.tool_calls;
  }
}

/** One batch read from a file: its records and where reading stood after it. */
export interface FileBatch {
  /** The records. */
  records: BatchRecords;
  /** The file's cursor after the batch (a copy: later batches do not change it). */
  cursor: TranscriptCursor;
  /** Bytes the batch consumed. */
  bytes: number;
  /** Lines the batch consumed. */
  lines: number;
}

/** Options for {@link readTranscriptBatches}. */
export interface ReadBatchOptions {
  /** Most bytes consumed per batch (default {@link BATCH_BYTES}). */
  batchBytes?: number;
  /**
   * Let the event loop turn after each chunk read (default true): files are read synchronously,
   * and a server answers its requests between two chunks. A backfill, which has nothing else to
   * answer, reads straight on.
   */
  turnEventLoop?: boolean;
}

/**
 * Reads whatever `path` gained since its `stored` cursor, a batch at a time. A file that shrank
 * (rewritten or rotated), or that another agent's parser read, is read again from the start
 * with a fresh parser; keys keep the rereading from double counting. A file that is gone
 * yields nothing.
 */
export async function* readTranscriptBatches(
  path: string,
  agent: AgentName,
  stored: TranscriptCursor | undefined,
  options: ReadBatchOptions = {},
): AsyncGenerator<FileBatch> {
  let size: number;
  let file: JsonlFile;
  try {
    size = Deno.statSync(path).size;
    file = JsonlFile.open(path);
  } catch {
    return; // Gone between the event and now: nothing to read.
  }
  using _file = file;
  let cursor = stored;
  if (cursor !== undefined && (size < cursor.byte_offset || cursor.agent !== agent)) {
    cursor = undefined;
  }
  if (cursor !== undefined && cursor.byte_offset === size) return;
  const state: TranscriptCursor = cursor === undefined
    ? {
      path,
      agent,
      byte_offset: 0,
      file_size: size,
      parser_state: "{}",
      lines: 0,
      malformed: 0,
      unknown_types: 0,
    }
    : { ...cursor };
  const parser = createTranscriptParser(agent, {
    path,
    state: cursor === undefined ? undefined : JSON.parse(state.parser_state) as JsonObject,
  });
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  // Lines are read a little at a time and parsed at once, so only the records of a batch stay
  // in memory until its commit, not all its lines: records that outlive a few allocations are
  // what the garbage collector spends its time copying.
  const chunkBytes = Math.min(batchBytes, READ_CHUNK_BYTES);
  for (let done = false; !done;) {
    const batch = new ParsedBatch();
    const start = state.byte_offset;
    let lines = 0;
    while (state.byte_offset - start < batchBytes) {
      // The file stays open and the bytes read past a chunk's last line start the next chunk.
      const read = file.readTexts(state.byte_offset, {
        maxBytes: chunkBytes,
        blockSize: chunkBytes,
      });
      batch.malformed += read.malformed;
      for (const text of read.texts) batch.add(parser.parseLine(text));
      lines += read.texts.length;
      state.byte_offset = read.nextOffset;
      if (read.done) {
        done = true;
        break;
      }
      if (options.turnEventLoop !== false) await nextTurn();
    }
    if (lines === 0 && batch.malformed === 0) break;
    state.file_size = Math.max(size, state.byte_offset);
    state.parser_state = JSON.stringify(parser.saveState());
    state.lines += lines;
    state.malformed += batch.malformed;
    state.unknown_types += batch.unknown;
    yield { records: batch, cursor: { ...state }, bytes: state.byte_offset - start, lines };
  }
}
