/**
 * The figures of recently seen model calls, so a parser reports a call again only when a later
 * line of the transcript brings larger numbers.
 *
 * Claude Code writes an assistant message as one line per content block while the answer
 * streams, every line with the same `message.id` + `requestId` and a usage snapshot taken at
 * that moment: the first lines carry a partial `output_tokens` (10), the last the final one
 * (299). The figures of a call are the largest each field reached; {@link CallFigures.grow}
 * answers them whenever one grew, and `undefined` for a line that adds nothing. The window is
 * bounded and serialisable, so a restart between two lines of one message still compares
 * against what was reported; the store merges records of one key by the same rule, so a call
 * whose window entry was lost is not counted twice either.
 *
 * @module
 */

import type { JsonValue } from "../../model/agent_records.ts";

/** The usage fields of one call that only ever grow while it streams. */
export interface Figures {
  /** Uncached input tokens. */
  input_tokens: number;
  /** Output tokens. */
  output_tokens: number;
  /** Cache reads. */
  cache_read_tokens: number;
  /** Cache writes, every lifetime. */
  cache_write_tokens: number;
  /** 1-hour cache writes. */
  cache_write_1h_tokens: number;
  /** Server-side web searches. */
  web_search_requests: number;
}

const FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cache_write_1h_tokens",
  "web_search_requests",
] as const satisfies ReadonlyArray<keyof Figures>;

/** A bounded window of call keys and their largest figures so far, oldest evicted first. */
export class CallFigures {
  readonly #limit: number;
  #calls = new Map<string, Figures | undefined>();

  /**
   * @param saved what {@link CallFigures.toJSON} returned (or the older list of bare keys,
   *   whose figures are unknown); @param limit window size.
   */
  constructor(saved?: JsonValue, limit = 128) {
    this.#limit = limit;
    if (Array.isArray(saved)) {
      for (const entry of saved) {
        if (typeof entry === "string") this.#calls.set(entry, undefined);
        else if (Array.isArray(entry) && typeof entry[0] === "string") {
          const values = entry.slice(1);
          const figures = Object.fromEntries(
            FIELDS.map((field, i) => [field, typeof values[i] === "number" ? values[i] : 0]),
          ) as unknown as Figures;
          this.#calls.set(entry[0], figures);
        }
      }
    }
  }

  /**
   * Records a line's figures for `key`: the call's largest figures when this is the first
   * line of the call or any field grew, else `undefined`.
   */
  grow(key: string, line: Figures): Figures | undefined {
    const known = this.#calls.has(key);
    const previous = this.#calls.get(key);
    let merged: Figures = line;
    if (previous !== undefined) {
      merged = { ...previous };
      let grew = false;
      for (const field of FIELDS) {
        if (line[field] > previous[field]) {
          merged[field] = line[field];
          grew = true;
        }
      }
      if (!grew) return undefined;
    } else if (known) {
      // A key saved by an older version without figures: report it, the store keeps the larger.
      merged = { ...line };
    }
    this.#calls.delete(key);
    this.#calls.set(key, merged);
    if (this.#calls.size > this.#limit) {
      const oldest = this.#calls.keys().next().value;
      if (oldest !== undefined) this.#calls.delete(oldest);
    }
    return merged;
  }

  /** The window, oldest first: `[key, ...figures]` per call. */
  toJSON(): JsonValue[] {
    const out: JsonValue[] = [];
    for (const [key, figures] of this.#calls) {
      out.push(figures === undefined ? key : [key, ...FIELDS.map((field) => figures[field])]);
    }
    return out;
  }
}
