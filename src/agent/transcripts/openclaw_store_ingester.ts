/**
 * Ingests OpenClaw's SQLite agent store (`openclaw-agent.sqlite`, see `openclaw_store.ts`)
 * session by session, each from where it last stopped.
 *
 * Each session has its own cursor, kept like a file's under the name
 * `<store path>#<session id>`: the next `seq` to read (in `byte_offset`), the parser's state and
 * the session's rewrite generation. When the generation changes (OpenClaw rewrote the session's
 * rows) the session is read again from the start with a fresh parser. Entries are the JSONL
 * entries of older OpenClaw versions, parsed by the same parser into the same message and
 * usage keys (`<session>:<entry id>`), so a session found both in a JSONL file and in the store
 * (OpenClaw's upgrade imports JSONL files verbatim) is stored once.
 *
 * @module
 */
import { statSync } from "node:fs";
import type { DatabaseSync } from "../../store/database.ts";
import {
  getTranscriptCursor,
  type TranscriptCursor,
} from "../../store/agent/transcript_cursors.ts";
import { isOpenClawStorePath, OPENCLAW_STORE_NAME, OpenClawStoreReader } from "./openclaw_store.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import { commitBatch, emptyCounts, type IngestCounts, ParsedBatch } from "./transcript_commit.ts";
import { createOpenClawParser } from "./transcript_openclaw.ts";
import type { JsonObject } from "../../model/agent_records.ts";
import { isRecord, str } from "../values.ts";

/** Entries read and committed per transaction. */
const BATCH_EVENTS = 500;

/** Options of {@link ingestOpenClawStore}. */
export interface StoreIngestOptions {
  /** Price overrides, USD per million tokens. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** The clock. */
  now?: () => number;
  /** Called after each committed batch, and at the end, with the file's bytes read so far. */
  onProgress?: (bytes: number) => void;
}

/**
 * Whether a path is an OpenClaw agent store itself (its `-wal` is not: a change to it is read
 * through the store).
 */
export function isOpenClawStore(path: string): boolean {
  return isOpenClawStorePath(path) && path.endsWith(OPENCLAW_STORE_NAME);
}

/**
 * The name a session's cursor is kept under.
 *
 * @example
 * ```ts
 * storeSessionKey("/h/.openclaw/agents/main/agent/openclaw-agent.sqlite", "8c1d");
 * // "/h/.openclaw/agents/main/agent/openclaw-agent.sqlite#8c1d"
 * ```
 */
export function storeSessionKey(store: string, sessionId: string): string {
  return `${store}#${sessionId}`;
}

interface SessionCursorState {
  generation?: string;
  parser?: JsonObject;
}

function cursorState(cursor: TranscriptCursor | undefined): SessionCursorState {
  if (cursor === undefined) return {};
  try {
    const value: unknown = JSON.parse(cursor.parser_state);
    if (!isRecord(value)) return {};
    const state: SessionCursorState = {};
    const generation = str(value.generation);
    if (generation !== undefined) state.generation = generation;
    if (isRecord(value.parser)) state.parser = value.parser as JsonObject;
    return state;
  } catch {
    return {};
  }
}

/** Reads what every session of the store gained since its cursor, and stores it. */
export async function ingestOpenClawStore(
  db: DatabaseSync,
  path: string,
  options: StoreIngestOptions = {},
): Promise<IngestCounts> {
  const counts = emptyCounts();
  const now = options.now ?? Date.now;
  let fileSize: number;
  try {
    fileSize = statSync(path).size;
  } catch {
    return counts; // Gone between the event and now.
  }
  const reader = new OpenClawStoreReader(path);
  try {
    for (const session of reader.sessions()) {
      const key = storeSessionKey(path, session.session_id);
      let cursor = getTranscriptCursor(db, key);
      let saved = cursorState(cursor);
      if (
        cursor !== undefined &&
        (cursor.agent !== "openclaw" || saved.generation !== session.generation)
      ) {
        // Rewritten since: read it again from the start; keys keep that from counting twice.
        cursor = undefined;
        saved = {};
      }
      if (cursor !== undefined && cursor.byte_offset > session.last_seq) continue;
      const state: TranscriptCursor = cursor ?? {
        path: key,
        agent: "openclaw",
        byte_offset: 0,
        file_size: 0,
        parser_state: "{}",
        lines: 0,
        malformed: 0,
        unknown_types: 0,
      };
      const parser = createOpenClawParser({ path: key, state: saved.parser });
      for (;;) {
        const events = reader.events(session.session_id, state.byte_offset, BATCH_EVENTS);
        if (events.length === 0) break;
        const batch = new ParsedBatch();
        for (const event of events) {
          batch.add(parser.parseLine(event.text));
          counts.bytes += event.bytes;
        }
        state.byte_offset = events[events.length - 1].seq + 1;
        state.file_size = Math.max(state.byte_offset, session.last_seq + 1);
        const next: JsonObject = { parser: parser.saveState() };
        if (session.generation !== undefined) next.generation = session.generation;
        state.parser_state = JSON.stringify(next);
        state.lines += events.length;
        state.malformed += batch.malformed;
        state.unknown_types += batch.unknown;
        commitBatch(db, batch, state, counts, {
          transcriptPath: path,
          prices: options.prices,
          now: now(),
        });
        counts.lines += events.length;
        // Progress is told in the file's bytes (what a backfill counts); entries decode to
        // about as many.
        options.onProgress?.(Math.min(counts.bytes, fileSize));
        if (events.length < BATCH_EVENTS) break;
        // A large store is read in slices: hooks and queries get their turn in between.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
  } finally {
    reader.close();
  }
  options.onProgress?.(fileSize);
  return counts;
}
