import assert from "node:assert/strict";
import { bestSnippet, lineWindow, queryTerms, splitLines } from "../../src/docs/snippet.ts";

const TEXT = [
  "# Auth notes", // 1
  "", // 2
  "The middleware checks the session.", // 3
  "Tokens expire after an hour.", // 4
  "", // 5
  "function refreshToken(session) {", // 6
  "  // refresh the token when it expires", // 7
  "  return auth.refresh(session.token);", // 8
  "}", // 9
].join("\n");

Deno.test("splitLines handles CRLF and a final newline", () => {
  assert.deepEqual(splitLines("a\r\nb\n"), ["a", "b"]);
  assert.deepEqual(splitLines("a\n\n"), ["a", ""]);
  assert.deepEqual(splitLines(""), [""]);
});

Deno.test("lineWindow clips at both ends", () => {
  assert.deepEqual(lineWindow("one\ntwo\nthree\nfour", 2, 1), {
    startLine: 2,
    endLine: 4,
    lines: ["two", "three", "four"],
    text: "two\nthree\nfour",
  });
  assert.equal(lineWindow("one\ntwo", 0, 5).startLine, 1);
  assert.equal(lineWindow("one\ntwo", 0, 5).endLine, 2);
  assert.deepEqual(lineWindow("one\ntwo", 99, 0).lines, ["two"]);
});

Deno.test("queryTerms keeps phrases and drops operators", () => {
  assert.deepEqual(queryTerms('"refresh token" AND auth-middleware OR x'), [
    "refresh token",
    "auth",
    "middleware",
  ]);
  assert.deepEqual(queryTerms("Token token TOKEN"), ["Token"]);
});

Deno.test("bestSnippet picks the window with the most distinct terms", () => {
  const snippet = bestSnippet(TEXT, ["refresh", "token", "session"], { windowLines: 3 });
  assert.equal(snippet.startLine, 6);
  assert.equal(snippet.endLine, 8);
  assert.deepEqual(snippet.matchLines, [6, 7, 8]);
  assert.equal(snippet.termsMatched, 3);
  assert.ok(snippet.score > 3000);
  assert.equal(snippet.text, TEXT.split("\n").slice(5, 8).join("\n"));
});

Deno.test("bestSnippet adds context and starts on a matching line", () => {
  const snippet = bestSnippet(TEXT, "middleware", { windowLines: 3, context: 1 });
  assert.equal(snippet.startLine, 2);
  assert.equal(snippet.endLine, 6);
  assert.deepEqual(snippet.matchLines, [3]);
});

Deno.test("bestSnippet is case-insensitive unless asked", () => {
  assert.deepEqual(bestSnippet(TEXT, ["TOKENS"], { windowLines: 1 }).matchLines, [4]);
  const exact = bestSnippet(TEXT, ["TOKENS"], { windowLines: 1, caseSensitive: true });
  assert.equal(exact.score, 0);
});

Deno.test("bestSnippet falls back to the start when nothing matches", () => {
  const snippet = bestSnippet(TEXT, "kubernetes", { windowLines: 2 });
  assert.equal(snippet.score, 0);
  assert.equal(snippet.startLine, 1);
  assert.deepEqual(snippet.lines, ["# Auth notes", ""]);
  assert.deepEqual(snippet.matchLines, []);
  assert.equal(bestSnippet("", "x").text, "");
});

Deno.test("bestSnippet shortens very long lines around the match", () => {
  const long = "a".repeat(1000) + " needle " + "b".repeat(1000);
  const snippet = bestSnippet(long, "needle", { maxLineLength: 100 });
  const [line] = snippet.lines;
  assert.ok(line.includes("needle"));
  assert.ok(line.startsWith("…") && line.endsWith("…"));
  assert.ok(line.length <= 102);
});
