/**
 * Small, total helpers for reading loosely typed JSON: every function accepts `unknown` and
 * answers `undefined` instead of throwing, because ingested payloads are untrusted.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { JsonObject, JsonValue } from "../model/agent_records.ts";

/** A plain object as produced by `JSON.parse`. */
export type UnknownRecord = Record<string, unknown>;

/**
 * Tells whether a value is a non-array object.
 *
 * @example
 * ```ts
 * isRecord({ a: 1 }); // true
 * isRecord([1]);      // false
 * ```
 */
export function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Returns the value when it is a non-empty string.
 *
 * @example
 * ```ts
 * str("x"); // "x"
 * str("");  // undefined
 * ```
 */
export function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * Returns the value when it is a finite number, or a string holding one.
 *
 * @example
 * ```ts
 * num("12"); // 12
 * num("x");  // undefined
 * ```
 */
export function num(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "") {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/**
 * Returns a non-negative integer token count (missing or invalid counts are 0).
 *
 * @example
 * ```ts
 * count(12.0); // 12
 * count(-3);   // 0
 * ```
 */
export function count(value: unknown): number {
  const n = num(value);
  return n === undefined || n < 0 ? 0 : Math.floor(n);
}

/**
 * Returns the first key of `record` that holds a non-empty string.
 *
 * @example
 * ```ts
 * pickStr({ sessionId: "a" }, "session_id", "sessionId"); // "a"
 * ```
 */
export function pickStr(record: UnknownRecord, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = str(record[key]);
    if (value !== undefined) return value;
  }
  return undefined;
}

// Anything below this is taken as seconds: 1e11 ms is March 1973, 1e11 s is year 5138.
const SECONDS_LIMIT = 1e11;

/**
 * Parses a timestamp given as ISO text, epoch milliseconds or epoch seconds into epoch ms.
 *
 * @example
 * ```ts
 * parseTimestamp("2026-01-02T03:04:05.000Z"); // 1767323045000
 * parseTimestamp(1767323045);                 // 1767323045000
 * ```
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0) return undefined;
    return Math.round(value < SECONDS_LIMIT ? value * 1000 : value);
  }
  if (typeof value !== "string" || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return parseTimestamp(Number(value));
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A short stable hash (hex) of a string, used for keys of records that carry no id.
 *
 * @example
 * ```ts
 * stableHash("abc").length; // 20
 * ```
 */
export function stableHash(text: string): string {
  return createHash("sha1").update(text).digest("hex").slice(0, 20);
}

/**
 * Cuts text to at most `max` characters, marking the cut so a reader knows text is missing.
 *
 * @example
 * ```ts
 * truncate("abcdef", 3); // "abc…[truncated 3 chars]"
 * ```
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…[truncated ${text.length - max} chars]`;
}

/**
 * Cuts text to at most `max` characters (plus a marker) by dropping its
 * middle, keeping the first characters and the last `tail`: for output whose
 * end matters as much as its beginning.
 *
 * @example
 * ```ts
 * cutMiddle("abcdefghij", 4, 2); // "ab…[cut 6 chars]…ij"
 * ```
 */
export function cutMiddle(text: string, max: number, tail: number): string {
  if (text.length <= max) return text;
  const kept = Math.min(tail, max);
  const head = max - kept;
  return `${text.slice(0, head)}…[cut ${text.length - max} chars]…${
    kept === 0 ? "" : text.slice(text.length - kept)
  }`;
}

/**
 * Applies {@linkcode cutMiddle} to every string (and key) inside a JSON
 * value, so no single string of a stored payload exceeds `max` characters.
 * Values that fit are returned unchanged (the same objects when nothing was
 * cut).
 *
 * @example
 * ```ts
 * capStrings({ out: "abcdefghij" }, 4, 2); // { out: "ab…[cut 6 chars]…ij" }
 * ```
 */
export function capStrings(value: JsonValue, max: number, tail: number): JsonValue {
  // Most values have nothing to cut: found so without building a copy to throw away.
  if (fitsWithin(value, max, 0)) return value;
  if (typeof value === "string") return cutMiddle(value, max, tail);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const capped = capStrings(item, max, tail);
      if (capped !== item) changed = true;
      return capped;
    });
    return changed ? items : value;
  }
  let changed = false;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const cappedKey = cutMiddle(key, max, tail);
    const capped = capStrings(item, max, tail);
    if (cappedKey !== key || capped !== item) changed = true;
    out[cappedKey] = capped;
  }
  return changed ? out : value;
}

/**
 * Whether no string or key inside `value` is longer than `max` (so {@linkcode capStrings}
 * would return it as it is). Very deep values are left to `capStrings` itself.
 */
function fitsWithin(value: JsonValue, max: number, depth: number): boolean {
  if (typeof value === "string") return value.length <= max;
  if (value === null || typeof value !== "object") return true;
  if (depth > 32) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!fitsWithin(item, max, depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.length > max || !fitsWithin(value[key], max, depth + 1)) return false;
  }
  return true;
}

/**
 * The first `lines` non-empty lines of a text, capped at `maxChars`: an error summary.
 *
 * @example
 * ```ts
 * firstLines("Exit code 1\n\nboom\nmore\nmore", 2); // "Exit code 1\nboom"
 * ```
 */
export function firstLines(text: string, lines = 3, maxChars = 400): string {
  const kept: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    kept.push(trimmed);
    if (kept.length >= lines) break;
  }
  const joined = kept.join("\n");
  return joined.length > maxChars ? `${joined.slice(0, maxChars - 1)}…` : joined;
}

const MAX_DEPTH = 64;

/**
 * Converts any value into a JSON value: drops functions/undefined, turns non-finite numbers
 * into null, and cuts nesting deeper than 64 levels (cyclic input cannot loop).
 *
 * @example
 * ```ts
 * toJsonValue({ a: undefined, b: NaN }); // { b: null }
 * ```
 */
export function toJsonValue(value: unknown, depth = 0): JsonValue {
  if (value === null) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value.toString();
    case "object": {
      if (depth >= MAX_DEPTH) return null;
      if (Array.isArray(value)) return value.map((item) => toJsonValue(item, depth + 1));
      const out: JsonObject = {};
      for (const [key, item] of Object.entries(value as UnknownRecord)) {
        if (item === undefined || typeof item === "function" || typeof item === "symbol") {
          continue;
        }
        out[key] = toJsonValue(item, depth + 1);
      }
      return out;
    }
    default:
      return null;
  }
}

/**
 * Parses a JSON string into an object, answering `undefined` for anything else.
 *
 * @example
 * ```ts
 * parseJsonObject('{"a":1}'); // { a: 1 }
 * parseJsonObject("[1]");     // undefined
 * ```
 */
export function parseJsonObject(text: string): UnknownRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Renders any value as text: strings as is, everything else as compact JSON.
 *
 * @example
 * ```ts
 * textOf({ a: 1 }); // '{"a":1}'
 * ```
 */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}
