/**
 * Vantage's detectors for secrets given by context rather than by shape: a value assigned to a
 * secret name (`KEY=value`, `export KEY="value"`, `key: value`, `"key": "value"`,
 * `key = 'value'`, `key => 'value'`, `?token=…`, `--password value`), an `Authorization` or
 * `Cookie` header, a `Bearer` token, a password in a URL (`postgres://user:pass@host`) or in
 * `curl -u user:pass`.
 *
 * The assignment detector does not scan: the prefilter already stops at every `=` or `:` that
 * follows a secret word, and hands those places over.
 *
 * @module
 */

import {
  type Detector,
  patternDetector,
  RANK,
  type Span,
  URL_PASSWORD_ANCHOR,
  word,
} from "./redact_detector.ts";
import { isEnvStyle, SECRET_WORDS, secretNameKind } from "./redact_names.ts";
import { type Anchor, caselessSource } from "./redact_prefilter.ts";
import { isPlaceholder, looksGenerated, looksLikeSecretValue } from "./redact_values.ts";

const MAX_NAME = 80;
const MAX_VALUE = 1024;

function isNameChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) || code === 0x5f || code === 0x2d || code === 0x2e;
}

function isQuote(char: string | undefined): boolean {
  return char === '"' || char === "'" || char === "`";
}

// A bare value ends at white space, quotes, and the punctuation that closes it in URLs,
// connection strings, argument lists and JSON-escaped text.
const BARE_VALUE = /[^\s"'`,;&<>{}\])\\]{1,1024}/y;

interface Value {
  start: number;
  end: number;
  quoted: boolean;
}

/** Reads the value starting at `from`: quoted (also `\"…\"` in JSON-escaped text) or bare. */
function readValue(text: string, from: number, toLineEnd: boolean): Value | undefined {
  let at = from;
  if (text[at] === "\\" && isQuote(text[at + 1])) at++;
  if (isQuote(text[at])) {
    const quote = text[at];
    const start = at + 1;
    let end = start;
    const limit = Math.min(text.length, start + MAX_VALUE);
    while (end < limit && text[end] !== quote && text[end] !== "\n" && text[end] !== "\\") end++;
    return end > start ? { start, end, quoted: true } : undefined;
  }
  if (toLineEnd) {
    let end = at;
    const limit = Math.min(text.length, at + MAX_VALUE);
    while (end < limit && !/[\r\n"'\\]/.test(text[end])) end++;
    while (end > at && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
    return end > at ? { start: at, end, quoted: false } : undefined;
  }
  BARE_VALUE.lastIndex = at;
  const match = BARE_VALUE.exec(text);
  return match === null ? undefined : { start: at, end: at + match[0].length, quoted: false };
}

const AUTH_SCHEMES =
  /^(?:basic|bearer|token|bot|digest|negotiate|ntlm|apikey|api-key|key|sso-key|ssws|oauth|hmac|hawk|aws4-hmac-sha256|splunk|dsn)$/i;

/** Whether an `Authorization` value carries credentials (`Basic …`, `Bearer …`, a raw key). */
function isAuthorizationValue(value: string): boolean {
  if (isPlaceholder(value)) return false;
  const schemed = /^([A-Za-z][\w-]{1,30})\s+(\S.*)$/.exec(value);
  if (schemed !== null) {
    const credentials = schemed[2];
    if (!AUTH_SCHEMES.test(schemed[1])) return looksGenerated(credentials);
    // `Basic dXNlcjpwYXNz` and `Bearer s3cret` are credentials; `Bearer nope` and
    // `Bearer secret-token` are a test's stand-ins.
    return !isPlaceholder(credentials) && (credentials.length >= 8 || /\d/.test(credentials)) &&
      !(/^[a-z-]+$/i.test(credentials) && /secret|token|key|pass/i.test(credentials));
  }
  return !/\s/.test(value) && looksGenerated(value);
}

function isCookieValue(value: string): boolean {
  return value.length >= 8 && value.includes("=") && !isPlaceholder(value);
}

const SECRET_WORD_SOURCE = `(?:${SECRET_WORDS.map(caselessSource).join("|")})`;

// The prefilter stops at an `=` or `:` right after a secret word, its closing quote (also
// `\"` in JSON-escaped text) and a few spaces.
const ASSIGNMENT_ANCHOR: Anchor = {
  lead: "=:",
  behind: `${SECRET_WORD_SOURCE}\\\\?["'\`]?[ \\t]{0,4}`,
};

/** Finds the value assigned at each `=` / `:` the prefilter found after a secret name. */
function detectAssignments(text: string, at: readonly number[], spans: Span[]): void {
  // A separator inside the value just read is part of that value (`password=a=b`, or
  // `token=token=token…` on hostile input, where re-reading would cost 1 KB per sign).
  let readUpTo = -1;
  for (const separator of at) {
    if (separator < readUpTo) continue;
    const sign = text[separator];
    if (sign !== "=" && sign !== ":") continue;
    const next = text[separator + 1];
    const previous = text[separator - 1];
    if (sign === ":" && (next === ":" || previous === ":")) continue; // `Token::new`
    if (sign === "=" && (next === "=" || previous === "=" || previous === "!")) continue;
    let from = separator + 1;
    if ((sign === ":" && next === "=") || (sign === "=" && next === ">")) from++; // `:=`, `=>`
    // The name: back over spaces, a closing quote (maybe escaped), then name characters.
    let cursor = separator;
    while (cursor > 0 && (text[cursor - 1] === " " || text[cursor - 1] === "\t")) cursor--;
    if (isQuote(text[cursor - 1])) {
      cursor--;
      if (text[cursor - 1] === "\\") cursor--;
    }
    const nameEnd = cursor;
    while (cursor > 0 && nameEnd - cursor < MAX_NAME && isNameChar(text.charCodeAt(cursor - 1))) {
      cursor--;
    }
    if (cursor > 0 && isNameChar(text.charCodeAt(cursor - 1))) continue; // not a name: too long
    const name = text.slice(cursor, nameEnd);
    const kind = secretNameKind(name);
    if (kind === undefined) continue;
    let valueAt = from;
    while (
      valueAt < text.length && valueAt - from < 8 &&
      (text[valueAt] === " " || text[valueAt] === "\t")
    ) {
      valueAt++;
    }
    const wholeLine = kind === "authorization" || kind === "cookie";
    const value = readValue(text, valueAt, wholeLine);
    if (value === undefined) continue;
    readUpTo = value.end;
    const content = text.slice(value.start, value.end);
    let secret: boolean;
    if (kind === "authorization") secret = isAuthorizationValue(content);
    else if (kind === "cookie") secret = isCookieValue(content);
    else if (kind === "key") secret = looksGenerated(content);
    else {
      secret = looksLikeSecretValue(content, {
        name,
        quoted: value.quoted,
        envName: isEnvStyle(name.replace(/^[-_.$@]+/, "")),
      });
    }
    if (!secret) continue;
    spans.push({
      start: value.start,
      end: value.end,
      kind: kind === "authorization" || kind === "cookie" ? kind : "secret",
      rank: RANK.generic,
    });
  }
}

// `--password value`, `--api-key "value"`: a flag whose name ends in a secret word, then a
// space. The prefilter stops at the flag's first dash.
const FLAG_ANCHOR: Anchor = {
  lead: "-",
  behind: "(?<![\\w-])",
  ahead: `-?[A-Za-z0-9_-]{0,40}?${SECRET_WORD_SOURCE}[ \\t]`,
};

function detectFlags(text: string, at: readonly number[], spans: Span[]): void {
  for (const dash of at) {
    if (text[dash] !== "-" || (dash > 0 && /[\w-]/.test(text[dash - 1]))) continue;
    let end = dash;
    while (end < text.length && end - dash < MAX_NAME && isNameChar(text.charCodeAt(end))) end++;
    const name = text.slice(dash, end);
    if (secretNameKind(name) === undefined) continue;
    let valueAt = end;
    while (
      valueAt < text.length && valueAt - end < 8 &&
      (text[valueAt] === " " || text[valueAt] === "\t")
    ) {
      valueAt++;
    }
    if (valueAt === end || text[valueAt] === "-") continue;
    const value = readValue(text, valueAt, false);
    if (value === undefined) continue;
    const content = text.slice(value.start, value.end);
    const secret = value.quoted
      ? looksLikeSecretValue(content, { name, quoted: true, envName: false })
      : looksGenerated(content);
    if (secret) {
      spans.push({ start: value.start, end: value.end, kind: "secret", rank: RANK.generic });
    }
  }
}

/** Vantage's context detectors, in the order they run. */
export const CONTEXT_DETECTORS: readonly Detector[] = [
  {
    id: "vantage/assignment",
    origin: "vantage",
    anchors: [ASSIGNMENT_ANCHOR],
    detect: detectAssignments,
  },
  { id: "vantage/flag", origin: "vantage", anchors: [FLAG_ANCHOR], detect: detectFlags },
  patternDetector("bearer", {
    kind: "bearer",
    anchors: [word("bearer")],
    pattern: /\bbearer\s{1,8}(?<v>[A-Za-z0-9._~+/=-]{8,4096})/dgi,
    accept: (value) => looksGenerated(value),
    rank: RANK.generic,
  }),
  patternDetector("url_password", {
    // `postgres://user:pass@host`, `redis://:pass@host`, `https://user:pass@host`. The
    // password may hold `@` (the last one before the host ends it) but not `/`.
    kind: "password",
    anchors: [URL_PASSWORD_ANCHOR],
    pattern: /:\/\/(?<u>[^\s:/@'"`<>]{0,128}):(?<v>[^\s/'"`<>]{1,256})@/dg,
    accept: (value, match) => {
      const user = match.groups?.u ?? "";
      if (isPlaceholder(value) || value === user) return false;
      // `host:8080@…` is a host and port, not a user and password.
      return !(user.includes(".") && /^\d+$/.test(value));
    },
    rank: RANK.structural,
  }),
  patternDetector("curl_user", {
    // `curl -u user:pass`, `--user "user:pass"`.
    kind: "password",
    anchors: [{
      lead: "-",
      behind: "(?<![\\w-])",
      ahead: String.raw`(?:u|-user)[ \t]{1,8}\\?["']?[^\s:'"\\]{1,128}:`,
    }],
    pattern:
      /(?<![\w-])(?:-u|--user)[ \t]{1,8}\\?["']?(?<u>[^\s:'"\\]{1,128}):(?<v>[^\s'"`\\]{1,256})/dg,
    accept: (value, match) => !isPlaceholder(value) && value !== match.groups?.u,
    rank: RANK.structural,
  }),
];
