/**
 * The shape every secret detector has, whether it is one of Vantage's rules or a rule of the
 * secretlint preset: the anchors that gate it, and a function that reports the spans of text
 * to redact.
 *
 * @module
 */

import type { Anchor } from "./redact_prefilter.ts";

/** A stretch of text to replace by one `[REDACTED:<kind>]` marker. */
export interface Span {
  /** Index of the first character to remove. */
  start: number;
  /** Index after the last character to remove. */
  end: number;
  /** The marker's kind, e.g. `github_token`. */
  kind: string;
  /** When spans overlap, the kind of the highest rank names the merged span. */
  rank: number;
  /**
   * A span that covers more than the secret (a whole connection URI): dropped when a
   * narrower span of Vantage's own lies inside it, so the host and user stay readable.
   */
  wide?: boolean;
}

/** Ranks: a provider's own key format names a span over a structural or generic finding. */
export const RANK = { generic: 1, structural: 2, provider: 3 } as const;

/** A secret detector, run only on texts where one of its anchors occurs. */
export interface Detector {
  /** A stable name, e.g. `vantage/github_token` or `@secretlint/secretlint-rule-aws`. */
  readonly id: string;
  /** Whose rule it is. */
  readonly origin: "vantage" | "secretlint";
  /** What every match contains; the prefilter runs the detector only where one occurs. */
  readonly anchors: readonly Anchor[];
  /**
   * Adds the spans to redact in `text`. `at` holds the start index of each anchor occurrence
   * (detectors that check only around their anchors use it; others scan the whole text).
   */
  detect(text: string, at: readonly number[], spans: Span[]): void;
}

/** One regular-expression rule of Vantage's table. */
export interface PatternRule {
  /** The marker's kind. */
  kind: string;
  /** What every match contains (literals, case-sensitive unless marked caseless). */
  anchors: readonly Anchor[];
  /**
   * A global regular expression with the `d` flag. The secret is the named group `v` when
   * the pattern has one (the rest of the match stays), else the whole match. Quantifiers are
   * bounded or end the pattern, so matching is linear in the text.
   */
  pattern: RegExp;
  /** Filters out matches that are not secrets (placeholders, code). */
  accept?: (value: string, match: RegExpExecArray) => boolean;
  /** Rank of the span (provider formats by default). */
  rank?: number;
}

/** Builds a detector from a pattern rule; its id is `vantage/<name>`. */
export function patternDetector(name: string, rule: PatternRule): Detector {
  if (!rule.pattern.global || !rule.pattern.hasIndices) {
    throw new Error(`rule ${name}: the pattern needs the g and d flags`);
  }
  const rank = rule.rank ?? RANK.provider;
  return {
    id: `vantage/${name}`,
    origin: "vantage",
    anchors: rule.anchors,
    detect(text, _at, spans) {
      const pattern = rule.pattern;
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
        if (match[0] === "") {
          pattern.lastIndex++;
          continue;
        }
        const range = match.indices?.groups?.v ?? match.indices?.[0];
        if (range === undefined) continue;
        const value = text.slice(range[0], range[1]);
        if (rule.accept !== undefined && !rule.accept(value, match)) continue;
        spans.push({ start: range[0], end: range[1], kind: rule.kind, rank });
      }
    },
  };
}

/**
 * The anchor of a password inside a URL (`scheme://user:pass@`): an `@` after `://`, a name
 * and a colon.
 */
export const URL_PASSWORD_ANCHOR: Anchor = {
  lead: "@",
  // The first `@` after `user:` is enough to call the detectors (which allow `@` inside the
  // password); keeping `@` out here keeps a run of them from each looking far back.
  behind: String.raw`:\/\/[^\s/@]{0,128}:[^\s/@]{1,256}`,
};

/** A case-sensitive literal anchor. */
export function literal(text: string): Anchor {
  return { text };
}

/** A literal anchor matched in any letter case. */
export function word(text: string): Anchor {
  return { text, caseless: true };
}
