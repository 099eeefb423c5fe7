/**
 * Where each transcript file's reading stopped: the byte offset and the parser's state, saved in
 * the same transaction as the records read up to it.
 *
 * @module
 */
import { type DatabaseSync, writing } from "./database.ts";
import { statements } from "./statement_cache.ts";
/** Where a transcript file's reading stopped, with the parser's state at that point. */
export interface TranscriptCursor {
  /** The file. */
  path: string;
  /** Agent that writes it. */
  agent: string;
  /** Bytes consumed. */
  byte_offset: number;
  /** File size when last read. */
  file_size: number;
  /** Parser state (JSON). */
  parser_state: string;
  /** Lines consumed. */
  lines: number;
  /** Malformed lines skipped. */
  malformed: number;
  /** Lines of record types the parser did not know. */
  unknown_types: number;
}

/** The stored cursor of a transcript file, if it was read before. */
export function getTranscriptCursor(db: DatabaseSync, path: string): TranscriptCursor | undefined {
  return statements(db).prepare(
    `SELECT path, agent, byte_offset, file_size, parser_state, lines, malformed, unknown_types
     FROM transcript_files WHERE path = ?`,
  ).get(path) as TranscriptCursor | undefined;
}

/** Saves a transcript file's cursor (call in the same transaction as its records). */
export function saveTranscriptCursor(
  db: DatabaseSync,
  cursor: TranscriptCursor,
  now: number,
): void {
  return writing(db, () => {
    statements(db).prepare(`
      INSERT INTO transcript_files (path, agent, byte_offset, file_size, parser_state, lines, malformed,
        unknown_types, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (path) DO UPDATE SET byte_offset = excluded.byte_offset, file_size = excluded.file_size,
        parser_state = excluded.parser_state, lines = excluded.lines, malformed = excluded.malformed,
        unknown_types = excluded.unknown_types, updated_at = excluded.updated_at
    `).run(
      cursor.path,
      cursor.agent,
      cursor.byte_offset,
      cursor.file_size,
      cursor.parser_state,
      cursor.lines,
      cursor.malformed,
      cursor.unknown_types,
      now,
    );
  });
}

/** Every stored cursor (for the start-up scan). */
export function listTranscriptCursors(db: DatabaseSync): TranscriptCursor[] {
  return db.prepare(
    `SELECT path, agent, byte_offset, file_size, parser_state, lines, malformed, unknown_types
     FROM transcript_files`,
  ).all() as unknown as TranscriptCursor[];
}
