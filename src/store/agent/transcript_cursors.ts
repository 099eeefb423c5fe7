/**
 * How far each transcript file was read: the byte offset, the parser's
 * state at that point and the line counts, saved in the same transaction as
 * the records read up to there, so a restart resumes exactly where it
 * stopped.
 *
 * @module
 */
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";

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

/**
 * Reads {@linkcode TranscriptCursor} rows, and gives a cursor's values in its columns' order
 * (on either backend).
 */
export const CURSOR = new RowReader<TranscriptCursor>("transcript cursor", {
  path: "text",
  agent: "text",
  byte_offset: "number",
  file_size: "number",
  parser_state: "text",
  lines: "number",
  malformed: "number",
  unknown_types: "number",
});

/** The stored cursor of a transcript file, if it was read before. */
export function getTranscriptCursor(db: DatabaseSync, path: string): TranscriptCursor | undefined {
  return CURSOR.optional(
    prepared(db, `SELECT ${CURSOR.columns} FROM transcript_files WHERE path = ?`).get(path),
  );
}

/** Every stored transcript cursor (a tailer looks for files that were read before and are gone). */
export function listTranscriptCursors(db: DatabaseSync): TranscriptCursor[] {
  return CURSOR.all(prepared(db, `SELECT ${CURSOR.columns} FROM transcript_files`).all());
}

/** Saves a transcript file's cursor (call in the same transaction as its records). */
export function saveTranscriptCursor(
  db: DatabaseSync,
  cursor: TranscriptCursor,
  now: number,
): void {
  return writing(db, () => {
    prepared(
      db,
      `
      INSERT INTO transcript_files (path, agent, byte_offset, file_size, parser_state, lines, malformed,
        unknown_types, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (path) DO UPDATE SET byte_offset = excluded.byte_offset, file_size = excluded.file_size,
        parser_state = excluded.parser_state, lines = excluded.lines, malformed = excluded.malformed,
        unknown_types = excluded.unknown_types, updated_at = excluded.updated_at
    `,
    ).run(...CURSOR.valuesOf(cursor), now);
  });
}
