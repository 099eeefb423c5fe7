/**
 * The bounds Vantage puts on what it is handed and keeps: how long an
 * identifier, a name or a path may be, which timestamps are believable, and
 * how much of a bad input an error message repeats. One list, so the HTTP
 * surface, hook intake, the spool replay and the operations' schemas refuse
 * the same things with the same numbers.
 *
 * Over-long identifiers are refused, never cut: a cut id would silently name
 * a different session, delivery or tool call.
 *
 * @module
 */

/**
 * Longest identifier an agent or a client hands us (session, delivery,
 * tool-call and snapshot ids, tool names, model ids). Agents use UUIDs
 * (36 characters) or short keys; Claude sub-agent ids and Bedrock model ARNs
 * stay under 160, MCP tool names are 128 at most before an agent prefixes
 * them with `mcp__<server>__`.
 */
export const ID_MAX_CHARS = 256;

/**
 * Longest name (agent, hook event, sub-agent, collection, tag, session name,
 * operation id): words people and agents choose, none near this in practice.
 */
export const NAME_MAX_CHARS = 128;

/** Longest human label (snapshot and session labels). */
export const LABEL_MAX_CHARS = 256;

/** Longest file path: Linux's PATH_MAX (macOS allows 1024), far beyond any real project path. */
export const PATH_MAX_CHARS = 4096;

/** Longest search text handed to a listing (`GET /api/ops?q=`). */
export const QUERY_MAX_CHARS = 1024;

/** The oldest believable event time: 2000-01-01T00:00:00Z, in epoch ms. */
export const EARLIEST_EVENT_MS: number = Date.UTC(2000, 0, 1);

/** How far ahead of this machine's clock an event time may be (clock skew between machines). */
export const FUTURE_SKEW_MS: number = 24 * 60 * 60 * 1000;

/**
 * Whether `ms` is a believable event time in epoch milliseconds: an integer
 * from 2000-01-01 to one day after `now`. Anything else is a unit mistake
 * (seconds, microseconds) or garbage that would poison "last activity" and
 * every time range.
 *
 * @example
 * ```ts
 * import { plausibleEpochMs } from "./limits.ts";
 * plausibleEpochMs(1767323045000, Date.UTC(2026, 0, 2)); // true
 * plausibleEpochMs(1e300); // false
 * plausibleEpochMs(1767323045); // false (seconds)
 * ```
 */
export function plausibleEpochMs(ms: number, now: number = Date.now()): boolean {
  return Number.isSafeInteger(ms) && ms >= EARLIEST_EVENT_MS && ms <= now + FUTURE_SKEW_MS;
}

/** The accepted range of {@linkcode plausibleEpochMs}, as a sentence fragment for messages. */
export const EPOCH_MS_RANGE =
  `integer epoch milliseconds from ${EARLIEST_EVENT_MS} (2000-01-01) to one day from now`;

/**
 * A bad input as an error message should repeat it: quoted, and cut to
 * `max` characters with its full length, so a megabyte of garbage does not
 * come back in the answer or the log.
 *
 * @example
 * ```ts
 * import { excerpt } from "./limits.ts";
 * excerpt("vim"); // "'vim'"
 * excerpt("x".repeat(1000), 4); // "'xxxx…' (1000 characters)"
 * ```
 */
export function excerpt(text: string, max = 64): string {
  if (text.length <= max) return `'${text}'`;
  return `'${text.slice(0, max)}…' (${text.length} characters)`;
}

/**
 * Whether `text` holds an ASCII control character (C0 or DEL). Names, ids
 * and paths a client sends never do; one that does is garbage or an attempt
 * to forge a log line. (C1 is left alone: header values arrive as bytes, and
 * the UTF-8 bytes of an ordinary non-ASCII path include 0x80–0x9F.)
 *
 * @example
 * ```ts
 * import { hasControlCharacter } from "./limits.ts";
 * hasControlCharacter("a\u0000b"); // true
 * hasControlCharacter("/work/app"); // false
 * ```
 */
export function hasControlCharacter(text: string): boolean {
  // deno-lint-ignore no-control-regex
  return /[\u0000-\u001f\u007f]/.test(text);
}
