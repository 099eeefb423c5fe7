/**
 * Secret redaction applied to every ingested payload before it is stored.
 *
 * Agents echo whatever passes through a terminal: `export OPENAI_API_KEY=sk-…`, a `curl -H
 * "Authorization: Bearer …"`, a `.env` file read into context. Vantage keeps hook payloads and
 * transcripts for weeks, so secrets are replaced by `[REDACTED:<kind>]` on the way in.
 *
 * Three sets of detectors find what to redact: Vantage's table of key formats
 * (`redact_rules.ts`), the rules of the secretlint preset (`redact_preset.ts`), and Vantage's
 * context rules for assignments, headers and URLs (`redact_assignments.ts`). Their spans are
 * merged and each merged stretch becomes one marker, named by the most specific rule.
 *
 * Speed matters (every hook payload and every transcript line of a backfill pass through
 * here), so one prefilter scan (`redact_prefilter.ts`) finds the detectors' anchors first: a
 * string without any costs that scan, and a detector runs only on strings holding one of its
 * anchors. Every pattern is linear in the text (bounded quantifiers, no nested repetition).
 *
 * @module
 */

import { CONTEXT_DETECTORS } from "./redact_assignments.ts";
import type { Detector, Span } from "./redact_detector.ts";
import { secretNameKind } from "./redact_names.ts";
import { AnchorIndex } from "./redact_prefilter.ts";
import { PRESET_DETECTORS } from "./redact_preset.ts";
import { FORMAT_DETECTORS } from "./redact_rules.ts";
import { looksGenerated } from "./redact_values.ts";
import type { JsonValue } from "../../model/agent_records.ts";
import { isRecord } from "../values.ts";

/** The marker that replaces a secret, e.g. `[REDACTED:github_token]`. */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

const DETECTORS: readonly Detector[] = [
  ...FORMAT_DETECTORS,
  ...PRESET_DETECTORS,
  ...CONTEXT_DETECTORS,
];

const PREFILTER = new AnchorIndex(
  DETECTORS.map((detector) => [detector, detector.anchors] as const),
);

/**
 * Every detector redaction runs: Vantage's format rules, the secretlint preset's rules and
 * Vantage's context rules, each with its id, origin and anchors.
 */
export function redactionDetectors(): readonly Detector[] {
  return DETECTORS;
}

/**
 * The spans to redact in `text` (unmerged), from every detector the prefilter calls for; with
 * `everyDetector`, from every detector whatever the prefilter says (for tests of the
 * prefilter).
 */
export function findSecretSpans(text: string, everyDetector = false): Span[] {
  const spans: Span[] = [];
  if (text.length < 8) return spans;
  if (everyDetector) {
    const everywhere = Array.from({ length: text.length }, (_, index) => index);
    for (const detector of DETECTORS) detector.detect(text, everywhere, spans);
    return spans;
  }
  const found = PREFILTER.scan(text);
  if (found === null) return spans;
  for (const [detector, at] of found) detector.detect(text, at, spans);
  return spans;
}

/**
 * Merges overlapping spans into the stretches to replace. A wide span (a whole connection URI
 * from the preset) gives way to a narrower span inside it, so the host stays readable.
 */
function mergeSpans(text: string, spans: Span[]): Span[] {
  // By start; at one start the longest first, and a wide span before an equal narrow one.
  spans.sort((a, b) =>
    a.start - b.start || b.end - a.end || (a.wide === b.wide ? 0 : a.wide ? -1 : 1)
  );
  const merged: Span[] = [];
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i];
    if (span.wide) {
      // Wide spans are URIs (bounded), so these looks stay short. One around an earlier
      // marker (`postgres://app:[REDACTED:password]@db`) has nothing left to hide.
      if (text.slice(span.start, span.end).includes("[REDACTED:")) continue;
      let narrower = false;
      for (let j = i + 1; j < spans.length && spans[j].start < span.end; j++) {
        if (!spans[j].wide && spans[j].end <= span.end) {
          narrower = true;
          break;
        }
      }
      if (narrower) continue;
    }
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start < last.end) {
      if (span.rank > last.rank) {
        last.kind = span.kind;
        last.rank = span.rank;
      }
      last.end = Math.max(last.end, span.end);
    } else {
      merged.push({ ...span });
    }
  }
  return merged;
}

/**
 * Replaces secrets in a string with `[REDACTED:<kind>]` markers. Strings that cannot hold a
 * secret are returned as the same string (no copy).
 *
 * @example
 * ```ts
 * redactString("export GITHUB_TOKEN=ghp_" + "a".repeat(36));
 * // "export GITHUB_TOKEN=[REDACTED:github_token]"
 * ```
 */
export function redactString(text: string): string {
  return replaceSpans(text, findSecretSpans(text));
}

/** Replaces the merged spans of `text` by their markers (the text itself when there are none). */
export function replaceSpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  let out = "";
  let from = 0;
  for (const span of mergeSpans(text, spans)) {
    out += text.slice(from, span.start) + redactionMarker(span.kind);
    from = span.end;
  }
  return out + text.slice(from);
}

const MAX_DEPTH = 64;

/**
 * Redacts secrets in a JSON value, deeply: every string is passed through
 * {@link redactString}, and string values under secret-looking keys (`password`, `api_key`,
 * `Authorization`, `client_secret`, …) are replaced whole. Returns a new value; the input is
 * not modified. Values nested deeper than 64 levels are replaced by null.
 *
 * @example
 * ```ts
 * redactValue({ headers: { Authorization: "Basic dXNlcjpwYXNz" } });
 * // { headers: { Authorization: "[REDACTED:authorization]" } }
 * ```
 */
export function redactValue(value: JsonValue, depth = 0): JsonValue {
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    const kind = typeof item === "string" && item !== "" && !item.startsWith("$")
      ? secretNameKind(key)
      : undefined;
    // A weak name (`CACHE_KEY`) counts only with a generated-looking value.
    if (kind !== undefined && (kind !== "key" || looksGenerated(item as string))) {
      const marker = redactionMarker(kind === "key" ? "secret" : kind);
      out[key] = (item as string).startsWith("[REDACTED") ? item : marker;
    } else {
      out[key] = redactValue(item, depth + 1);
    }
  }
  return out;
}

/**
 * Like {@link redactValue} for any `unknown` input: non-JSON leaves (functions, undefined)
 * pass through unchanged.
 *
 * @example
 * ```ts
 * redactUnknown(["sk-ant-" + "x".repeat(30)]); // ["[REDACTED:anthropic_key]"]
 * ```
 */
export function redactUnknown(value: unknown): unknown {
  if (typeof value === "string") return redactString(value);
  if (Array.isArray(value) || isRecord(value)) return redactValue(value as JsonValue);
  return value;
}
