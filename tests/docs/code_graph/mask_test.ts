import assert from "node:assert/strict";
import { C_LEXICON, type Lexicon, maskSource } from "../../../src/docs/code_graph/mask.ts";

const GO: Lexicon = { starts: /["'`/]/g, comments: "c", backquotes: "raw" };
const TEMPLATE: Lexicon = { starts: /["'`/]/g, comments: "c", backquotes: "template" };
const PYTHON: Lexicon = { starts: /["'#]/g, comments: "hash", tripleQuotes: true };
const RUST: Lexicon = { starts: /["'/r]/g, comments: "c", rawStrings: true, charLiterals: true };

function assertAligned(text: string, masked: string): void {
  assert.equal(masked.length, text.length);
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\n") assert.equal(masked[i], "\n", `newline at ${i} kept`);
  }
}

Deno.test("C-family masking blanks comments and string contents, quotes and newlines kept", () => {
  const text = "a(\"x(1)\"); // b()\n/* c()\n d() */ e('(');\n";
  const masked = maskSource(text, C_LEXICON);
  assertAligned(text, masked);
  assert.equal(masked, "a(\"    \");       \n      \n        e(' ');\n");
  // Backquotes mean nothing in C.
  assert.equal(maskSource("`f()`", C_LEXICON), "`f()`");
});

Deno.test("backquoted strings: templates honour escapes and span lines, Go raw strings do not escape", () => {
  const template = "x = `a\\`b\nc()` + d()";
  assert.equal(maskSource(template, TEMPLATE), "x = `    \n   ` + d()");
  const raw = "s := `a\\` + f()";
  assert.equal(maskSource(raw, GO), "s := `  ` + f()");
});

Deno.test("Python masking: # comments, triple-quoted contents; // is not a comment", () => {
  const text = 'x = 1 // 2  # f()\ns = """g()\nh()""" + k()\n';
  const masked = maskSource(text, PYTHON);
  assertAligned(text, masked);
  assert.equal(masked, 'x = 1 // 2       \ns = """   \n   """ + k()\n');
});

Deno.test("Rust masking: raw strings and char literals blanked, lifetimes left", () => {
  const text = "fn f<'a>(x: &'a str) { let c = '{'; let r = r#\"}\"#; g() }";
  const masked = maskSource(text, RUST);
  assertAligned(text, masked);
  assert.equal(masked, "fn f<'a>(x: &'a str) { let c = ' '; let r = r#\"   ; g() }");
});

Deno.test("text with nothing to mask comes back as the same string", () => {
  const text = "plain(code);\n";
  assert.equal(maskSource(text, C_LEXICON), text);
});
