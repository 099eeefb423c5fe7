/**
 * Secret redaction applied to every ingested payload before it is stored.
 *
 * Agents echo whatever passes through a terminal: `export OPENAI_API_KEY=sk-…`, a `curl -H
 * "Authorization: Bearer …"`, a `.env` file read into context. Vantage keeps hook payloads and
 * transcripts for weeks, so secrets are replaced by `[REDACTED:<kind>]` on the way in.
 *
 * Speed matters (a backfill pushes hundreds of MB through here), so every pattern is compiled
 * once, and a single case-insensitive prefilter scan rejects the vast majority of strings
 * that cannot contain any secret before any specific pattern runs.
 *
 * @module
 */

import type { JsonValue } from "./types.ts";
import { isRecord } from "./values.ts";

/** The marker that replaces a secret, e.g. `[REDACTED:github_token]`. */
export function redactionMarker(kind: string): string {
  return `[REDACTED:${kind}]`;
}

// Every specific pattern below starts with (or requires) one of these substrings, so a string
// without any of them is returned untouched after one linear scan.
const PREFILTER =
  /sk-|gh[pousr]_|github_pat_|AKIA|ASIA|xox[abposr]-|AIza|eyJ|bearer|authorization|PRIVATE KEY|passw|secret|token|api[_-]?key|apikey|access[_-]?key|credential/i;

interface Rule {
  kind: string;
  pattern: RegExp;
  /** Text kept in front of the marker (group 1 of the pattern), e.g. `Bearer `. */
  keepPrefix?: boolean;
}

// Names whose value is a secret when assigned: `DB_PASSWORD=…`, `api_key: "…"`, `?token=…`.
// The keyword must end the name, so `max_tokens` or `token_count` are not secrets.
const SECRET_NAME = String
  .raw`[A-Za-z0-9_.-]*?(?:passwd|password|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?)`;

// Order matters: specific token formats first (so the kind is precise), generic shapes last;
// each later rule skips values that are already markers.
const RULES: readonly Rule[] = [
  {
    kind: "private_key",
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  { kind: "anthropic_key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: "openai_key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "github_token", pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g },
  { kind: "github_token", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g },
  { kind: "aws_key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "slack_token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "google_key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
  {
    // `Authorization: Basic xyz`, `authorization=Token xyz`: the whole value up to a quote or
    // the end of the line, whatever the scheme.
    kind: "authorization",
    pattern: /(\bauthorization["']?\s*[:=]\s*["']?)(?!\[REDACTED)[^\r\n"']+/gi,
    keepPrefix: true,
  },
  {
    kind: "bearer",
    pattern: /(\bbearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/=-]{8,}/gi,
    keepPrefix: true,
  },
  {
    // `"password": "hunter22"` inside JSON text.
    kind: "secret",
    pattern: new RegExp(
      String.raw`("${SECRET_NAME}"\s*:\s*")(?!\[REDACTED|\$)[^"\\]{4,}(?=")`,
      "gi",
    ),
    keepPrefix: true,
  },
  {
    // `PASSWORD=hunter22`, `--api-key=abc`, `?access_token=abc&`, `token = 'abc'`.
    kind: "secret",
    pattern: new RegExp(
      String.raw`(\b${SECRET_NAME}\s*=\s*["']?)(?!\[REDACTED|\$)[^\s"'&;,]{4,}`,
      "gi",
    ),
    keepPrefix: true,
  },
];

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
  if (text.length < 8 || !PREFILTER.test(text)) return text;
  let out = text;
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    if (!rule.pattern.test(out)) continue;
    rule.pattern.lastIndex = 0;
    const marker = redactionMarker(rule.kind);
    out = rule.keepPrefix
      ? out.replace(rule.pattern, (_match, prefix: string) => `${prefix}${marker}`)
      : out.replace(rule.pattern, marker);
  }
  return out;
}

// Object keys whose string value is a secret regardless of its shape.
// The keyword must end the key (`db_password`, `apiKey`, `X-Auth-Token`), so `token_count`
// and `tokenizer` are left alone.
const SECRET_KEY =
  /(?:passwd|password|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|authorization|cookie)$/i;

function kindForKey(key: string): string {
  const lower = key.toLowerCase();
  if (lower.includes("authorization")) return "authorization";
  if (lower.includes("cookie")) return "cookie";
  if (lower.includes("passw")) return "password";
  if (/api[_-]?key|apikey/.test(lower)) return "api_key";
  if (lower.includes("token")) return "token";
  return "secret";
}

function isSecretKey(key: string): boolean {
  if (!SECRET_KEY.test(key)) return false;
  // Token *counts* are everywhere in usage records; they are numbers, but guard names too.
  return !/tokens$/i.test(key);
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
    if (typeof item === "string" && item !== "" && isSecretKey(key) && !item.startsWith("$")) {
      out[key] = item.startsWith("[REDACTED") ? item : redactionMarker(kindForKey(key));
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
