/**
 * Reads OpenClaw's agent store, `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`, where
 * OpenClaw keeps its sessions since 2026.8 (schema 8 and later) instead of JSONL files.
 *
 * What Vantage reads of it:
 *
 * - `transcript_events (session_id, seq, event_json, event_zstd, event_utf8_bytes, …)`: one row
 *   per transcript entry, in `seq` order per session. The entry is the same JSON object a line
 *   of the older `<session>.jsonl` held (header `{"type":"session",…}` at seq 0, then
 *   `message`, `model_change`, `custom`, …). Since schema 23 (2026.9.6) an entry of 1 KiB or
 *   more may be stored zstd-compressed in `event_zstd` with its UTF-8 length in
 *   `event_utf8_bytes`, `event_json` then being NULL.
 * - `transcript_rewrite_watermarks (session_id, generation)`: changes when OpenClaw rewrites a
 *   session's rows (compaction, rewind), so a reader knows to start that session over.
 *
 * OpenClaw's gateway owns the file and may be writing it: it is opened read-only (SQLite never
 * writes through such a connection), one short read at a time, and closed after each pass so
 * it never holds back OpenClaw's WAL checkpoints. Decompression uses `node:zlib`'s zstd.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { zstdDecompressSync } from "node:zlib";
import { VantageError } from "../../core/errors.ts";

/** The store's file name. */
export const OPENCLAW_STORE_NAME = "openclaw-agent.sqlite";

/** One session in the store. */
export interface StoreSession {
  /** OpenClaw's session id. */
  session_id: string;
  /** Highest stored `seq`. */
  last_seq: number;
  /** Rewrite generation, when the store records one. */
  generation?: string;
}

/** One transcript entry, decoded. */
export interface StoreEvent {
  /** Position in its session. */
  seq: number;
  /** The entry's JSON text (a JSONL line of the older format). */
  text: string;
  /** Its UTF-8 size. */
  bytes: number;
}

/** A read-only view of one OpenClaw agent store. */
export class OpenClawStoreReader {
  readonly #db: DatabaseSync;
  readonly #compressed: boolean;
  readonly #watermarks: boolean;

  /**
   * Opens `path` read-only. Throws a VantageError (`not_found` when it is not an OpenClaw store,
   * `unavailable` when it cannot be opened).
   */
  constructor(path: string, busyTimeoutMs = 2_000) {
    try {
      this.#db = new DatabaseSync(path, { readOnly: true, timeout: busyTimeoutMs });
    } catch (error) {
      throw new VantageError(
        "unavailable",
        `cannot open the OpenClaw store ${path}: ${error instanceof Error ? error.message : error}`,
      );
    }
    try {
      const columns = new Set(
        (this.#db.prepare("SELECT name FROM pragma_table_info('transcript_events')").all() as Array<
          { name: string }
        >).map((c) => c.name),
      );
      if (!columns.has("session_id") || !columns.has("seq") || !columns.has("event_json")) {
        throw new VantageError(
          "not_found",
          `${path} holds no OpenClaw transcript_events table with session_id, seq and event_json`,
        );
      }
      this.#compressed = columns.has("event_zstd") && columns.has("event_utf8_bytes");
      this.#watermarks = this.#db.prepare(
        "SELECT 1 AS found FROM sqlite_schema WHERE type = 'table' AND name = 'transcript_rewrite_watermarks'",
      ).get() !== undefined;
    } catch (error) {
      this.#db.close();
      if (error instanceof VantageError) throw error;
      throw new VantageError(
        "unavailable",
        `cannot read the OpenClaw store ${path}: ${error instanceof Error ? error.message : error}`,
      );
    }
  }

  /** Every session with stored entries. */
  sessions(): StoreSession[] {
    const rows = this.#db.prepare(
      this.#watermarks
        ? `SELECT e.session_id AS session_id, max(e.seq) AS last_seq, w.generation AS generation
           FROM transcript_events e
           LEFT JOIN transcript_rewrite_watermarks w ON w.session_id = e.session_id
           GROUP BY e.session_id`
        : `SELECT session_id, max(seq) AS last_seq, NULL AS generation
           FROM transcript_events GROUP BY session_id`,
    ).all() as Array<{ session_id: string; last_seq: number; generation: string | null }>;
    return rows.map((row) => {
      const session: StoreSession = { session_id: row.session_id, last_seq: row.last_seq };
      if (row.generation !== null) session.generation = row.generation;
      return session;
    });
  }

  /** Up to `limit` entries of a session from `fromSeq` on, in order, decoded. */
  events(sessionId: string, fromSeq: number, limit: number): StoreEvent[] {
    const rows = this.#db.prepare(
      this.#compressed
        ? `SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events
           WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`
        : `SELECT seq, event_json, NULL AS event_zstd, NULL AS event_utf8_bytes
           FROM transcript_events WHERE session_id = ? AND seq >= ? ORDER BY seq LIMIT ?`,
    ).all(sessionId, fromSeq, limit) as Array<{
      seq: number;
      event_json: string | null;
      event_zstd: Uint8Array | null;
      event_utf8_bytes: number | null;
    }>;
    return rows.map((row) => {
      if (row.event_json !== null) {
        return { seq: row.seq, text: row.event_json, bytes: byteLength(row.event_json) };
      }
      return { seq: row.seq, ...this.#decode(row) };
    });
  }

  /** Closes the connection. */
  close(): void {
    this.#db.close();
  }

  #decode(
    row: { seq: number; event_zstd: Uint8Array | null; event_utf8_bytes: number | null },
  ): { text: string; bytes: number } {
    // A row in neither form, or whose bytes do not decompress to the size it records, is
    // damaged: it comes back empty and is counted as malformed, like a broken JSONL line,
    // rather than stopping every later entry of the store from being read.
    if (row.event_zstd === null || row.event_utf8_bytes === null) return { text: "", bytes: 0 };
    try {
      const decoded = zstdDecompressSync(row.event_zstd, {
        maxOutputLength: row.event_utf8_bytes,
      });
      if (decoded.length !== row.event_utf8_bytes) return { text: "", bytes: 0 };
      return { text: new TextDecoder().decode(decoded), bytes: decoded.length };
    } catch {
      return { text: "", bytes: 0 };
    }
  }
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Whether a path names an OpenClaw agent store (or its WAL).
 *
 * @example
 * ```ts
 * isOpenClawStorePath("/h/.openclaw/agents/main/agent/openclaw-agent.sqlite"); // true
 * isOpenClawStorePath("/h/.openclaw/agents/main/sessions/x.jsonl");           // false
 * ```
 */
export function isOpenClawStorePath(path: string): boolean {
  return /(^|[\\/])openclaw-agent\.sqlite(-wal)?$/.test(path);
}
