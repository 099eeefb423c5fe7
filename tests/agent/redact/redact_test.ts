import assert from "node:assert/strict";
import { redactString, redactUnknown, redactValue } from "../../../src/agent/redact/redact.ts";
import { AnchorIndex } from "../../../src/agent/redact/redact_prefilter.ts";
import type { JsonObject } from "../../../src/model/agent_records.ts";

const A40 = "a".repeat(40);

Deno.test("redactString replaces each kind of secret with its marker", () => {
  const cases: [string, string][] = [
    [`key sk-ant-api03-${A40}`, "key [REDACTED:anthropic_key]"],
    [`OPENAI=sk-proj-${A40}`, "OPENAI=[REDACTED:openai_key]"],
    [`token ghp_${"A1b2".repeat(9)}`, "token [REDACTED:github_token]"],
    [`gho_${"x".repeat(36)} used`, "[REDACTED:github_token] used"],
    [`pat github_pat_11ABCDEFG0_${"z".repeat(60)}`, "pat [REDACTED:github_token]"],
    ["aws AKIAIOSFODNN7EXAMPLE ok", "aws [REDACTED:aws_key] ok"],
    ["slack xoxb-123456789012-abcdefABCDEF", "slack [REDACTED:slack_token]"],
    [`g AIza${"B".repeat(35)}`, "g [REDACTED:google_key]"],
    [
      "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "jwt [REDACTED:jwt]",
    ],
    [
      'curl -H "Authorization: Basic dXNlcjpwYXNz" x',
      'curl -H "Authorization: [REDACTED:authorization]" x',
    ],
    ["Bearer abcdef0123456789xyz", "Bearer [REDACTED:bearer]"],
    ["DB_PASSWORD=hunter2hunter2 npm start", "DB_PASSWORD=[REDACTED:secret] npm start"],
    ["url?access_token=abcd1234&x=1", "url?access_token=[REDACTED:secret]&x=1"],
    ['config {"api_key": "abcd-1234-efgh"}', 'config {"api_key": "[REDACTED:secret]"}'],
    ["--password='s3cr3t!!'", "--password='[REDACTED:secret]'"],
  ];
  for (const [input, expected] of cases) assert.equal(redactString(input), expected, input);
});

Deno.test("redactString removes whole PEM private key blocks, even cut-off ones", () => {
  const pem = [
    "before",
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEA1234567890abcdef",
    "-----END RSA PRIVATE KEY-----",
    "after",
  ].join("\n");
  assert.equal(redactString(pem), "before\n[REDACTED:private_key]\nafter");
  const cut = "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA";
  assert.equal(redactString(cut), "x [REDACTED:private_key]");
});

Deno.test("redactString leaves ordinary text alone", () => {
  const harmless = [
    "npm test -- --watch",
    "max_tokens=4096 input_tokens=12",
    "token_count: 120",
    "the password field is required",
    "PASSWORD=$DB_PASSWORD ./run",
    "skip-this and sk-short",
    "export TOKEN=[REDACTED:secret]",
    "",
  ];
  for (const text of harmless) assert.equal(redactString(text), text, text);
  const plain = "nothing to see here at all";
  assert.equal(redactString(plain), plain);
});

Deno.test("redactValue works deeply and on secret-named keys", () => {
  const input: JsonObject = {
    tool_input: { command: `export GITHUB_TOKEN=ghp_${"q".repeat(36)}` },
    headers: { Authorization: "Basic dXNlcjpwYXNz", "X-Api-Key": "abc", cookie: "sid=1" },
    nested: [{ password: "pw" }, { clientSecret: "cs" }, { token: "$TOKEN" }],
    usage: { input_tokens: 12, output_tokens: 3 },
    list: ["plain", `sk-ant-${A40}`],
  };
  const out = redactValue(input);
  assert.deepEqual(out, {
    tool_input: { command: "export GITHUB_TOKEN=[REDACTED:github_token]" },
    headers: {
      Authorization: "[REDACTED:authorization]",
      "X-Api-Key": "[REDACTED:api_key]",
      cookie: "[REDACTED:cookie]",
    },
    nested: [{ password: "[REDACTED:password]" }, { clientSecret: "[REDACTED:secret]" }, {
      token: "$TOKEN",
    }],
    usage: { input_tokens: 12, output_tokens: 3 },
    list: ["plain", "[REDACTED:anthropic_key]"],
  });
  // The input is not modified.
  assert.equal((input.headers as JsonObject).Authorization, "Basic dXNlcjpwYXNz");
  assert.deepEqual(redactUnknown(`sk-ant-${A40}`), "[REDACTED:anthropic_key]");
  assert.equal(redactUnknown(7), 7);
});

Deno.test("redactString is fast on large clean and dirty text", () => {
  const clean = "const x = compute(a, b); // nothing secret here\n".repeat(40_000); // ~2 MB
  const dirty = `line with sk-ant-${A40}\n`.repeat(2_000) + clean;
  const start = performance.now();
  assert.equal(redactString(clean), clean);
  const out = redactString(dirty);
  const elapsed = performance.now() - start;
  assert.equal(out.match(/\[REDACTED:anthropic_key\]/g)?.length, 2_000);
  // Generous bound: a regression to super-linear matching takes seconds, not this.
  assert.ok(elapsed < 2_000, `took ${elapsed} ms`);
});

Deno.test("redactString catches keys glued to a name and colon/YAML assignments", () => {
  const key = `sk-ant-api03-${"Zq7".repeat(31)}AA`;
  const cases: [string, string][] = [
    [`x_${key}`, "x_[REDACTED:anthropic_key]"],
    ["AWS_KEY_AKIAQ3EGT5N6RDZ7WXYV", "AWS_KEY_[REDACTED:aws_key]"],
    ["password: hunter2222", "password: [REDACTED:secret]"],
    ["api_key: abcd1234efgh5678", "api_key: [REDACTED:secret]"],
    ["client_secret: 9fQ2xV7Lk3Pz8Rt1Wm4N", "client_secret: [REDACTED:secret]"],
    [
      "SecretAccessKey: wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ1x2w3e4r",
      "SecretAccessKey: [REDACTED:aws_secret_key]",
    ],
    ["psql --password Hunter2222 -h db", "psql --password [REDACTED:secret] -h db"],
    [
      "postgres://app:Hunter2222@db:5432/app",
      "postgres://app:[REDACTED:password]@db:5432/app",
    ],
  ];
  for (const [input, expected] of cases) assert.equal(redactString(input), expected, input);
});

Deno.test("the anchor prefilter finds literals, caseless words and patterns, and nothing else", () => {
  const index = new AnchorIndex<string>([
    ["github", [{ text: "ghp_" }]],
    ["bearer", [{ text: "bearer", caseless: true }]],
    ["assign", [{ lead: "=", behind: "[Tt]oken" }]],
  ]);
  assert.equal(index.scan("plain text, nothing here"), null);
  assert.deepEqual(
    index.scan("x ghp_abc and BEARER y"),
    new Map([["github", [2]], ["bearer", [14]]]),
  );
  assert.deepEqual(index.scan("a=1 token=2 Token=3"), new Map([["assign", [9, 17]]]));
  assert.equal(index.scan("GHP_ is not ghp"), null, "literals keep their case");
  assert.equal(new AnchorIndex<string>([]).scan("anything at all"), null);
});
