/**
 * Honest schemas: every operation's input and output JSON Schema is walked;
 * it fails on zod's safe-integer noise and on a bound, default or choice a
 * description states in words that the schema does not hold. Descriptions
 * stay short, and the counts TMA1 clamps are still clamped, not refused.
 */
import assert from "node:assert/strict";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { type JsonSchema, toJsonSchema } from "../../src/ops/json_schema.ts";
import { firstLine } from "../../src/ops/signature.ts";

/** One problem the walk found. */
interface Finding {
  where: string;
  problem: string;
}

const NUMBER = String.raw`-?\d[\d_,]*(?:\.\d+)?`;
/** `1-10`, `1–10`, `1..10`, `1 to 10`, `[1, 10]`. */
const RANGE = new RegExp(
  String
    .raw`(?:\[\s*(${NUMBER})\s*,\s*(${NUMBER})\s*\]|(${NUMBER})\s*(?:-|–|\.\.|\bto\b)\s*(${NUMBER}))`,
);
/** `at most 10`, `up to 10`, `max 10`, `≤ 10`, `no more than 10`. */
const UPPER = new RegExp(
  String.raw`(?:\bat most|\bup to|\bmax(?:imum)?|\bno more than|≤|<=)\s*(${NUMBER})`,
  "i",
);
/** `at least 6`, `min 6`, `≥ 6`, `6+`. */
const LOWER = new RegExp(
  String.raw`(?:(?:\bat least|\bmin(?:imum)?|≥|>=)\s*(${NUMBER})|\b(${NUMBER})\+)`,
  "i",
);
/** `default 5`, `default: true`, `defaults to 'x'`, `(default)`. */
const DEFAULT = new RegExp(
  String
    .raw`\bdefault(?:s to)?\s*[:=]?\s*(${NUMBER}|true|false|'[^']*'|"[^"]*"|\x60[^\x60]*\x60)|\(default\)`,
  "i",
);
/** `a|b|c` or `one of …`: a closed set of values. */
const CHOICE = /\b[a-z_]+\|[a-z_]+\b|\bone of\b/i;
/** The words that mean a value is clamped. */
const CLAMP = /\bclamp/i;

function numberOf(text: string): number {
  return Number(text.replace(/[_,]/g, ""));
}

function bounds(node: JsonSchema): number[] {
  return ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength"]
    .concat(["minItems", "maxItems"])
    .map((key) => node[key])
    .filter((value): value is number => typeof value === "number");
}

/** What a description claims that its schema node does not hold. */
function claimsNotHeld(description: string, node: JsonSchema): string[] {
  const problems: string[] = [];
  const held = bounds(node);
  const range = RANGE.exec(description);
  if (range !== null) {
    const [low, high] = range[1] !== undefined ? [range[1], range[2]] : [range[3], range[4]];
    for (const value of [low, high]) {
      if (!held.includes(numberOf(value))) {
        problems.push(`states the range '${range[0]}' but the schema has no bound ${value}`);
      }
    }
  }
  const upper = UPPER.exec(description);
  if (upper !== null && !held.includes(numberOf(upper[1]))) {
    problems.push(`states '${upper[0]}' but the schema has no such bound`);
  }
  const lower = LOWER.exec(description);
  if (lower !== null && !held.includes(numberOf(lower[1] ?? lower[2]))) {
    problems.push(`states '${lower[0]}' but the schema has no such bound`);
  }
  const stated = DEFAULT.exec(description);
  if (stated !== null) {
    if (!("default" in node)) {
      problems.push(`states '${stated[0]}' but the schema has no default`);
    } else if (stated[1] !== undefined && /^-?\d/.test(stated[1])) {
      if (node.default !== numberOf(stated[1])) {
        problems.push(`states '${stated[0]}' but the schema's default is ${node.default}`);
      }
    }
  }
  if (CHOICE.test(description) && !Array.isArray(node.enum)) {
    problems.push(`lists choices in words but the schema has no enum`);
  }
  if (CLAMP.test(description) && (node.minimum === undefined || node.maximum === undefined)) {
    problems.push("says it clamps but the schema has no minimum and maximum");
  }
  return problems;
}

/** Walks a schema: every node with a description is checked against itself. */
function walk(node: unknown, where: string, findings: Finding[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => walk(item, `${where}[${index}]`, findings));
    return;
  }
  if (node === null || typeof node !== "object") return;
  const schema = node as JsonSchema;
  for (const key of ["minimum", "maximum"]) {
    const value = schema[key];
    if (value === Number.MAX_SAFE_INTEGER || value === Number.MIN_SAFE_INTEGER) {
      findings.push({ where, problem: `${key} is the safe-integer bound ${value}, not a limit` });
    }
  }
  if (typeof schema.description === "string") {
    for (const problem of claimsNotHeld(schema.description, schema)) {
      findings.push({ where, problem });
    }
    if (schema.description.length > 90) {
      findings.push({ where, problem: `description is ${schema.description.length} characters` });
    }
  }
  for (const [key, child] of Object.entries(schema)) {
    if (key === "enum" || key === "default" || key === "const" || key === "examples") continue;
    walk(child, `${where}.${key}`, findings);
  }
}

/**
 * An operation's description says what it does; its arguments' bounds and
 * defaults belong to their schema, where a range or default in the
 * operation's words could never be checked.
 */
function operationDescriptionFindings(id: string, description: string): Finding[] {
  const findings: Finding[] = [];
  for (
    const [pattern, what] of [[RANGE, "range"], [DEFAULT, "default"], [CLAMP, "clamp"]] as const
  ) {
    const found = pattern.exec(description);
    if (found !== null) {
      findings.push({
        where: id,
        problem: `description states a ${what}: '${found[0]}'`,
      });
    }
  }
  if ([...firstLine(description)].length > 100) {
    findings.push({ where: id, problem: "its first sentence is over 100 characters" });
  }
  // exec_query names every table a scope opens, generated from the scope table itself.
  const limit = id === "agent.exec_query" ? 450 : 240;
  if (description.length > limit) {
    findings.push({ where: id, problem: `description is ${description.length} characters` });
  }
  return findings;
}

const catalog = builtinCatalog();

Deno.test("the walk finds what it is there to find", () => {
  const findings: Finding[] = [];
  walk(
    {
      type: "object",
      properties: {
        limit: { type: "integer", description: "Sessions, 1-10 (default 5)" },
        noisy: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
        kind: { type: "string", description: "summary|preview|full" },
        prefix: { type: "string", description: "Hash prefix, 8+ hex" },
        cap: { type: "integer", description: "At most 400" },
        clamped: { type: "integer", minimum: 1, description: "Clamped" },
        chars: { type: "integer", minimum: 1, maximum: 10, default: 4, description: "default 5" },
        fine: { type: "integer", minimum: 1, maximum: 10, default: 5, description: "Sessions" },
        flag: { type: "boolean", description: "Also resolved ones (default false)" },
      },
    },
    "sample",
    findings,
  );
  const where = new Set(findings.map((f) => f.where.split(".").pop()));
  assert.deepEqual(
    [...where].sort(),
    ["cap", "chars", "clamped", "flag", "kind", "limit", "noisy", "prefix"],
  );
  assert.ok(operationDescriptionFindings("x.y", "Walk the graph; depth 1–5.").length > 0);
  assert.ok(operationDescriptionFindings("x.y", "Search (hybrid by default).").length === 0);
});

Deno.test("every operation's schemas are honest: no noise, no bound or default only in words", () => {
  const findings: Finding[] = [];
  for (const operation of catalog.operations()) {
    for (const io of ["input", "output"] as const) {
      const schema = toJsonSchema(io === "input" ? operation.input : operation.output, io);
      assert.ok(!JSON.stringify(schema).includes("9007199254740991"), `${operation.id} ${io}`);
      walk(schema, `${operation.id} ${io}`, findings);
    }
    findings.push(...operationDescriptionFindings(operation.id, operation.description));
  }
  assert.deepEqual(findings, []);
});

Deno.test("counts TMA1 clamps are clamped by the schema, never refused", async () => {
  const cases: Array<[string, Record<string, unknown>, string, number]> = [
    ["agent.search_sessions", { query: "x", limit: 50 }, "limit", 10],
    ["agent.search_sessions", { query: "x", snippet_limit: 0 }, "snippet_limit", 1],
    ["agent.search_sessions", { query: "x" }, "since_min", 10_080],
    ["agent.get_peer_sessions", { limit: 9 }, "limit", 5],
    ["agent.get_peer_sessions", { since_min: 10_000_000 }, "since_min", 525_600],
    [
      "agent.get_session_transcript",
      { session_id: "abcdef", content_chars: 5 },
      "content_chars",
      100,
    ],
    [
      "agent.get_session_transcript",
      { session_id: "abcdef", message_limit: 999 },
      "message_limit",
      200,
    ],
    ["agent.get_session_state", { action_limit: 1000 }, "action_limit", 200],
    ["agent.get_external_changes", { since_min: -5 }, "since_min", 1],
    ["agent.exec_query", { sql: "SELECT 1", row_limit: 5000 }, "row_limit", 1000],
    ["agent.exec_query", { sql: "SELECT 1", cell_chars: 1 }, "cell_chars", 100],
    ["agent.list_sessions", { limit: 0 }, "limit", 1],
    ["agent.session_timeline", { session_id: "abcdef", limit: 1 }, "limit", 10],
  ];
  for (const [id, args, field, expected] of cases) {
    const parsed = catalog.get(id)!.input.safeParse(args);
    assert.ok(parsed.success, `${id} ${JSON.stringify(args)}`);
    assert.equal((parsed.data as Record<string, unknown>)[field], expected, `${id}.${field}`);
  }
  // Still refused: what is not a whole number, whatever its size.
  const fraction = catalog.get("agent.search_sessions")!.input.safeParse({
    query: "x",
    limit: 2.5,
  });
  assert.equal(fraction.success, false);
  // And the executor passes a clamped value on rather than answering invalid_arguments.
  const response = await executeOperation(catalog, "agent.search_sessions", {
    query: "x",
    limit: 50,
  }, { scopes: ["agent:read"] });
  assert.ok(!("error" in response && response.error.kind === "invalid_arguments"));
});
