/**
 * Compact search hits: the one-line signature read from JSON Schema, the
 * first line of a description, and the shape and size of what the `dex`
 * search answers for the questions agents ask.
 */
import assert from "node:assert/strict";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { handleSearch } from "../../src/ops/dex_tools.ts";
import { toJsonSchema } from "../../src/ops/json_schema.ts";
import { firstLine, resultFields, signatureOf } from "../../src/ops/signature.ts";
import { VANTAGE_NAMING } from "../../src/mcp/operation_names.ts";

Deno.test("signatureOf shows types, bounds, defaults and enums on one line", () => {
  const signature = signatureOf({
    type: "object",
    properties: {
      query: { type: "string", minLength: 1 },
      project: { type: "string" },
      since_min: { type: "integer", minimum: 1, default: 10080 },
      limit: { type: "integer", minimum: 1, maximum: 10, default: 5 },
      ratio: { type: "number", minimum: 0, maximum: 1, default: 0.7 },
      top: { type: "integer", maximum: 9 },
      detail: { type: "string", enum: ["summary", "preview"], default: "preview" },
      tags: { anyOf: [{ type: "array", items: { type: "string" } }, { type: "string" }] },
      ids: { type: "array", items: { anyOf: [{ type: "integer" }, { type: "string" }] } },
      verbose: { type: "boolean", default: false },
      recursive: { type: "boolean", default: true },
      label: { type: "string", default: "" },
      anything: {},
    },
    required: ["query"],
  });
  assert.equal(
    signature,
    "(query: string, project?: string, since_min: int ≥ 1 = 10080, " +
      "limit: 1..10 = 5, ratio: number 0..1 = 0.7, top?: int ≤ 9, " +
      "detail: summary|preview = preview, tags?: string[]|string, ids?: (int|string)[], " +
      'verbose?: bool, recursive: bool = true, label: string = "", anything?: any)',
  );
  assert.equal(signatureOf({ type: "object" }), "()");
});

Deno.test("resultFields marks fields that may be absent", () => {
  assert.deepEqual(
    resultFields({
      type: "object",
      properties: { count: { type: "integer" }, note: { type: "string" } },
      required: ["count"],
    }),
    ["count", "note?"],
  );
  assert.deepEqual(resultFields({ type: "object" }), []);
});

Deno.test("firstLine keeps the first sentence, cut at a clause when long", () => {
  assert.equal(
    firstLine("Latest build result. Stale failures are flagged."),
    "Latest build result.",
  );
  assert.equal(firstLine("No full stop at all"), "No full stop at all");
  assert.equal(firstLine("Version 1.2 is fine. Next."), "Version 1.2 is fine.");
  const long = "Walk the graph: " + "imports, calls, definitions, links, ".repeat(5) + "and more.";
  const line = firstLine(long);
  assert.ok([...line].length <= 100, line);
  assert.ok(line.endsWith("…"));
  assert.ok(!line.includes("\n"));
});

const catalog = builtinCatalog({ naming: VANTAGE_NAMING });
const everything = { scopes: ["*"] };

/** What agents ask, the words they would search with. */
const QUESTIONS = [
  "failed builds",
  "what failed in the last build and where",
  "how did we fix this error before",
  "what changed outside my session",
  "what are other agents doing here",
  "store this note for later",
  "find the note I stored yesterday",
  "am I going in circles",
  "how do I build and test this project",
  "how much did today cost",
  "read a session transcript",
  "store a note",
  "find a stored document",
  "docs",
];

Deno.test("dex search hits are compact: id, one line, signature, result fields", () => {
  for (const query of QUESTIONS) {
    const response = handleSearch(catalog, { query }, everything);
    assert.ok("results" in response, query);
    assert.ok(response.results.length > 0, query);
    for (const hit of response.results) {
      assert.deepEqual(Object.keys(hit), ["operation_id", "description", "signature", "returns"]);
      const id = hit.operation_id as string;
      const operation = catalog.get(id)!;
      assert.ok(operation !== undefined, id);
      const description = hit.description as string;
      assert.ok(!description.includes("\n") && [...description].length <= 100, description);
      assert.ok(operation.description.startsWith(description.replace(/…$/, "")), id);
      const signature = hit.signature as string;
      assert.ok(signature.startsWith("(") && signature.endsWith(")"), signature);
      assert.ok(!signature.includes("\n") && !signature.includes("{"), signature);
      const fields = (hit.returns as string).split(", ");
      const output = toJsonSchema(operation.output, "output");
      assert.deepEqual(
        fields.map((f) => f.replace(/\?$/, "")),
        Object.keys(output.properties ?? {}),
      );
    }
  }
});

Deno.test("five dex search hits cost under 600 tokens (4 characters a token, as the benches count)", () => {
  for (const query of QUESTIONS) {
    const response = handleSearch(catalog, { query, limit: 5 }, everything);
    const chars = JSON.stringify(response).length;
    assert.ok(chars / 4 < 600, `'${query}': ${chars} characters ≈ ${Math.round(chars / 4)} tokens`);
  }
  // The whole schemas stay one argument away, and cost what they cost.
  const full = handleSearch(catalog, { query: "failed builds", detail: "full" }, everything);
  assert.ok("results" in full);
  assert.equal((full.results[0].input_schema as { type: string }).type, "object");
  assert.ok(
    JSON.stringify(full).length > 3 * JSON.stringify(handleSearch(catalog, {
          query: "failed builds",
        }, everything)).length,
  );
});

Deno.test("the signature states what the search_sessions schema holds", () => {
  const response = handleSearch(catalog, { query: "how did we fix this error before" }, everything);
  assert.ok("results" in response);
  const hit = response.results.find((r) => r.operation_id === "agent.search_sessions");
  assert.ok(hit !== undefined);
  assert.match(hit.signature as string, /^\(query: string, /);
  assert.match(hit.signature as string, /since_min: 1\.\.5256000 = 10080/);
  assert.match(hit.signature as string, /limit: 1\.\.10 = 5/);
  assert.match(hit.returns as string, /(^|, )sessions(, |$)/);
  assert.match(hit.returns as string, /(^|, )note\?(, |$)/);
});
