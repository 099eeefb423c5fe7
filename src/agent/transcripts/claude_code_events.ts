/**
 * The Claude Code records that mark something happening to a session rather than something
 * said in it: compaction boundaries (`system` / `compact_boundary`, and the `summary` lines
 * older versions wrote), and API errors — the `<synthetic>` assistant message Claude Code
 * writes when a call finally fails (`isApiErrorMessage`, `error`, `apiErrorStatus`) and the
 * `system` / `api_error` record it writes before each retry. Each becomes one message of its
 * own type (`compaction`, `api_error`), so the timeline can show it as an event.
 *
 * @module
 */

import { isRecord, num, str, type UnknownRecord } from "../values.ts";

/**
 * The text of a `compact_boundary` record: its content and what `compactMetadata` says
 * (trigger, tokens before).
 *
 * @example
 * ```ts
 * compactionText({ content: "Conversation compacted", compactMetadata: { trigger: "auto", preTokens: 167117 } });
 * // "Conversation compacted (auto, 167117 tokens before)"
 * ```
 */
export function compactionText(record: UnknownRecord): string {
  const content = str(record.content) ?? "Conversation compacted";
  const meta = isRecord(record.compactMetadata) ? record.compactMetadata : {};
  const parts: string[] = [];
  const trigger = str(meta.trigger);
  if (trigger !== undefined) parts.push(trigger);
  const before = num(meta.preTokens);
  if (before !== undefined) parts.push(`${Math.round(before)} tokens before`);
  return parts.length === 0 ? content : `${content} (${parts.join(", ")})`;
}

/** Tells whether an assistant record is the message Claude Code wrote for a failed API call. */
export function isApiErrorRecord(record: UnknownRecord): boolean {
  return record.isApiErrorMessage === true ||
    (record.error !== undefined && record.error !== null && record.error !== false);
}

/**
 * The text of a failed call's assistant record: what it says, then the error code and
 * HTTP status when the record names them.
 *
 * @example
 * ```ts
 * apiErrorText({ error: "rate_limit", apiErrorStatus: 429 }, "You've hit your limit");
 * // "You've hit your limit [rate_limit, 429]"
 * ```
 */
export function apiErrorText(record: UnknownRecord, said: string): string {
  const tags: string[] = [];
  const code = typeof record.error === "string" ? record.error : errorMessage(record.error);
  if (code !== undefined && !said.includes(code)) tags.push(code);
  const status = num(record.apiErrorStatus);
  if (status !== undefined && !said.includes(String(status))) tags.push(String(status));
  const text = said.trim() === "" ? "API error" : said;
  return tags.length === 0 ? text : `${text} [${tags.join(", ")}]`;
}

/**
 * The text of a `system` / `api_error` record (one per retry): attempt, status and message.
 *
 * @example
 * ```ts
 * apiRetryText({ retryAttempt: 1, maxRetries: 10, retryInMs: 500, error: { status: 529, message: "overloaded" } });
 * // "API error, retry 1/10 in 0.5 s: 529 overloaded"
 * ```
 */
export function apiRetryText(record: UnknownRecord): string {
  const attempt = num(record.retryAttempt);
  const max = num(record.maxRetries);
  const wait = num(record.retryInMs);
  let head = "API error";
  if (attempt !== undefined) {
    head += `, retry ${attempt}${max !== undefined ? `/${max}` : ""}`;
    if (wait !== undefined) head += ` in ${Math.round(wait / 100) / 10} s`;
  }
  const error = isRecord(record.error) ? record.error : undefined;
  const status = error !== undefined ? num(error.status) : undefined;
  const message = str(record.content) ?? errorMessage(record.error);
  const detail = [status !== undefined ? String(status) : "", message ?? ""]
    .filter((part) => part !== "")
    .join(" ");
  return detail === "" ? head : `${head}: ${detail}`;
}

/** The most specific message an API error object holds (they nest: `error.error.error`). */
function errorMessage(error: unknown, depth = 0): string | undefined {
  if (typeof error === "string") return str(error);
  if (!isRecord(error) || depth > 4) return undefined;
  return errorMessage(error.error, depth + 1) ?? str(error.message) ??
    (isRecord(error.cause) ? str(error.cause.code) ?? str(error.cause.message) : undefined) ??
    str(error.type);
}
