/**
 * Reads Copilot CLI's OpenTelemetry file export (`~/.copilot/otel/*.jsonl`,
 * written when `COPILOT_OTEL_FILE_EXPORTER_PATH` names a file there) like a
 * transcript: from where the last read stopped, each line turned into the
 * OTLP export it stands for (`otlp_file_lines.ts`) and stored through the
 * same mapping as an export sent to `/v1/…`, so its model calls (tokens,
 * latency), tool calls and metrics land where Copilot's HTTP export would.
 *
 * Exactly once: the records of a batch of lines and the byte offset after
 * them commit in one transaction, so a restart or a `kill -9` at any point
 * resumes after the last committed line, and a line still being written
 * (no newline yet) waits for the next read. Metric points, which OTLP does
 * not deduplicate, depend on this; spans are stored once anyway.
 *
 * Rotation: a file is known by its first line (a hash kept in the cursor),
 * not only by its name. A file renamed (`copilot.jsonl` → `copilot-1.jsonl`)
 * carries its offset along; a new file at an old name, or one truncated and
 * written again, is read from its start.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { DatabaseSync } from "../../store/database.ts";
import { writing } from "../../store/database.ts";
import {
  getTranscriptCursor,
  listTranscriptCursors,
  saveTranscriptCursor,
  type TranscriptCursor,
} from "../../store/agent/transcript_cursors.ts";
import { storeTelemetryBatch } from "../../store/telemetry/telemetry_batch.ts";
import { decodeExport, type ExportRequest, OtlpBadData } from "../otlp/otlp_decode.ts";
import { readOtelFileLine } from "../otlp/otlp_file_lines.ts";
import { mapExport } from "../otlp/otlp_map.ts";
import type { OtlpSignal } from "../otlp/otlp_schema.ts";
import type { LogsRequest, MetricsRequest, TracesRequest } from "../otlp/otlp_types.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { callPrice } from "../usage/usage_pricing.ts";
import { readJsonlLines } from "./jsonl_reader.ts";
import { emptyCounts, type IngestCounts } from "./transcript_commit.ts";
import { isCopilotOtelPath } from "./transcript_paths.ts";

/** The agent whose cursors these are. */
const AGENT = "copilot_cli";
/** Bytes of the first line that identify a file. */
const HEAD_BYTES = 64 * 1024;
/** Bytes of lines read at a time. */
const READ_CHUNK_BYTES = 256 * 1024;

/** Options of {@linkcode ingestCopilotOtelFile}. */
export interface OtelFileIngestOptions {
  /** Price overrides, USD per million tokens. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Most bytes consumed per transaction (default 4 MiB). */
  batchBytes?: number;
  /** The clock. */
  now?: () => number;
  /** Called after each committed batch with the bytes consumed so far. */
  onProgress?: (bytes: number) => void;
}

/** Stores what `path` gained since it was last read; answers what was read. */
export async function ingestCopilotOtelFile(
  db: DatabaseSync,
  path: string,
  options: OtelFileIngestOptions = {},
): Promise<IngestCounts> {
  const counts = emptyCounts();
  const now = options.now ?? Date.now;
  let size: number;
  let head: string | undefined;
  try {
    size = (await Deno.stat(path)).size;
    head = await headOf(path, size);
  } catch {
    return counts; // Gone between the event and now.
  }
  // Not one whole line yet: nothing to know the file by, nothing to read.
  if (head === undefined) return counts;
  const state = startingCursor(db, path, head, size);
  if (state.byte_offset >= size) return counts;
  const batchBytes = options.batchBytes ?? 4 * 1024 * 1024;
  const chunkBytes = Math.min(batchBytes, READ_CHUNK_BYTES);
  for (let done = false; !done;) {
    const start = state.byte_offset;
    const requests: Record<OtlpSignal, ExportRequest[]> = { traces: [], metrics: [], logs: [] };
    let lines = 0;
    let malformed = 0;
    let unknown = 0;
    while (state.byte_offset - start < batchBytes) {
      const read = await readJsonlLines(path, state.byte_offset, {
        maxBytes: chunkBytes,
        blockSize: chunkBytes + 64 * 1024,
      });
      malformed += read.malformed;
      for (const line of read.lines) {
        const taken = takeLine(line.text);
        if (taken === "malformed") malformed++;
        else if (taken === "unknown") unknown++;
        else requests[taken.signal].push(taken.request);
      }
      lines += read.lines.length;
      state.byte_offset = read.nextOffset;
      if (read.done) {
        done = true;
        break;
      }
    }
    if (state.byte_offset === start) break;
    state.file_size = Math.max(size, state.byte_offset);
    state.lines += lines;
    state.malformed += malformed;
    state.unknown_types += unknown;
    const stamp = now();
    writing(db, () => {
      for (const signal of ["traces", "metrics", "logs"] as const) {
        if (requests[signal].length === 0) continue;
        // One part: stored in this transaction, as the records came.
        const [batch] = mapExport(signal, merged(signal, requests[signal]), stamp, Infinity).parts;
        const stored = storeTelemetryBatch(
          db,
          batch,
          (record) => callPrice(record, options.prices),
          stamp,
        );
        for (const session of stored.sessions) counts.sessions.add(session);
        counts.tool_calls += stored.tool_calls;
      }
      saveTranscriptCursor(db, state, stamp);
    });
    counts.bytes += state.byte_offset - start;
    counts.lines += lines;
    counts.malformed += malformed;
    counts.unknown += unknown;
    options.onProgress?.(counts.bytes);
  }
  return counts;
}

/** One line decoded as its signal's export request, or why it was skipped. */
function takeLine(
  text: string,
): { signal: OtlpSignal; request: ExportRequest } | "malformed" | "unknown" {
  try {
    const line = readOtelFileLine(text);
    if (line.kind === "unknown") return "unknown";
    const body = new TextEncoder().encode(JSON.stringify(line.request));
    return { signal: line.signal, request: decodeExport(line.signal, body, "json") };
  } catch (error) {
    if (error instanceof OtlpBadData) return "malformed";
    throw error;
  }
}

/** The export requests of one signal as one request. */
function merged(signal: OtlpSignal, requests: ExportRequest[]): ExportRequest {
  if (requests.length === 1) return requests[0];
  if (signal === "traces") {
    return { resourceSpans: requests.flatMap((r) => (r as TracesRequest).resourceSpans ?? []) };
  }
  if (signal === "metrics") {
    return {
      resourceMetrics: requests.flatMap((r) => (r as MetricsRequest).resourceMetrics ?? []),
    };
  }
  return { resourceLogs: requests.flatMap((r) => (r as LogsRequest).resourceLogs ?? []) };
}

/**
 * Where to start reading `path`: its own cursor when it still holds the same
 * file; else the cursor of the file it was renamed from (same first line);
 * else its beginning.
 */
function startingCursor(
  db: DatabaseSync,
  path: string,
  head: string,
  size: number,
): TranscriptCursor {
  const fresh: TranscriptCursor = {
    path,
    agent: AGENT,
    byte_offset: 0,
    file_size: size,
    parser_state: JSON.stringify({ head }),
    lines: 0,
    malformed: 0,
    unknown_types: 0,
  };
  const own = getTranscriptCursor(db, path);
  const ownHead = own === undefined ? undefined : headIn(own);
  if (own !== undefined && ownHead === head && own.byte_offset <= size) return own;
  if (own !== undefined && ownHead !== undefined && ownHead !== head) {
    // Another file took this name (the one read so far was renamed away): its place is kept
    // under a name of its own, for the renamed file to find when it is read next.
    saveTranscriptCursor(db, { ...own, path: `${path}#${ownHead}` }, Date.now());
  }
  let renamed: TranscriptCursor | undefined;
  for (const cursor of listTranscriptCursors(db)) {
    if (cursor.agent !== AGENT || cursor.path === path) continue;
    if (!isCopilotOtelPath(cursor.path.replace(/#[0-9a-f]+$/, ""))) continue;
    if (headIn(cursor) !== head || cursor.byte_offset > size) continue;
    if (renamed === undefined || cursor.byte_offset > renamed.byte_offset) renamed = cursor;
  }
  if (renamed === undefined) return fresh;
  return { ...renamed, path, file_size: size };
}

function headIn(cursor: TranscriptCursor): string | undefined {
  try {
    const state: unknown = JSON.parse(cursor.parser_state);
    const head = (state as { head?: unknown } | null)?.head;
    return typeof head === "string" ? head : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A hash of the file's first line (its first 64 KiB when longer), or
 * undefined while that line is not complete.
 */
async function headOf(path: string, size: number): Promise<string | undefined> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(Math.min(HEAD_BYTES, size));
  let filled = 0;
  while (filled < buffer.length) {
    const read = await file.read(buffer.subarray(filled));
    if (read === null || read === 0) break;
    filled += read;
  }
  const newline = buffer.subarray(0, filled).indexOf(0x0a);
  if (newline === -1 && filled < HEAD_BYTES) return undefined;
  const line = newline === -1 ? buffer.subarray(0, filled) : buffer.subarray(0, newline + 1);
  return createHash("sha256").update(line).digest("hex");
}
