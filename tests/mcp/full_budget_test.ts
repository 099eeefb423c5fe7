/**
 * The `full` surface's budget: what clients send to the model from its
 * `tools/list` (names, descriptions, input schemas) stays under 8,000 tokens,
 * counted as the benches count (4 characters a token), and its result
 * schemas are slim: top-level fields and their types, nothing deeper.
 *
 * An agent holds every scope but `admin` and `sync:write` at most: managing a
 * team server's people and pushing one's history to it are asked for by name
 * (`vantage team`, a person's token), so the `team` and `sync` tools are in
 * no agent's list and the budget counts the rest.
 */
import assert from "node:assert/strict";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { slimSchema, toJsonSchema } from "../../src/ops/json_schema.ts";
import { VANTAGE_NAMING } from "../../src/mcp/operation_names.ts";
import { buildSurface } from "../../src/mcp/surfaces.ts";
import { KNOWN_SCOPES } from "../../src/ops/scopes.ts";

const catalog = builtinCatalog({ naming: VANTAGE_NAMING });
const AGENT_SCOPES = KNOWN_SCOPES.filter((scope) => scope !== "admin" && scope !== "sync:write");
const tools = buildSurface("full", catalog, { scopes: AGENT_SCOPES }).tools();
const adminTools = buildSurface("full", catalog, { scopes: ["*"] }).tools()
  .filter((tool) => !tools.some((own) => own.name === tool.name));

/** The deepest nesting of `properties` in a schema (a flat object is 1). */
function propertiesDepth(node: unknown): number {
  if (node === null || typeof node !== "object") return 0;
  let deepest = 0;
  for (const [key, child] of Object.entries(node)) {
    const below = propertiesDepth(child);
    deepest = Math.max(deepest, key === "properties" ? below + 1 : below);
  }
  return deepest;
}

/** Whether any schema node (not a field that happens to be called so) has a description. */
function describes(node: unknown): boolean {
  if (node === null || typeof node !== "object") return false;
  if (Array.isArray(node)) return node.some(describes);
  return Object.entries(node).some(([key, child]) =>
    key === "properties"
      ? Object.values(child as object).some(describes)
      : key === "description" || describes(child)
  );
}

Deno.test("full surface: names, descriptions and input schemas under 8,000 tokens", () => {
  // Every tool but the team's and sync's, which only an admin or a person's token lists.
  assert.equal(tools.length + adminTools.length, catalog.operations().length);
  assert.deepEqual(
    adminTools.map((tool) => tool.name).sort(),
    [
      "sync_hello",
      "sync_push",
      "sync_push_documents",
      "team_add_user",
      "team_list_users",
      "team_revoke_user",
    ],
  );
  const modelView = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  const chars = JSON.stringify(modelView).length;
  assert.ok(chars / 4 < 8000, `${chars} characters ≈ ${Math.round(chars / 4)} tokens`);
});

Deno.test("full surface: result schemas keep top-level fields and types only", () => {
  let slim = 0;
  let whole = 0;
  for (const tool of [...tools, ...adminTools]) {
    const output = tool.outputSchema!;
    assert.equal(output.type, "object", tool.name);
    assert.ok(propertiesDepth(output) <= 1, `${tool.name} nests properties`);
    assert.ok(!describes(output), `${tool.name} keeps descriptions`);
    slim += JSON.stringify(output).length;
    const operation = catalog.operations().find((op) => catalog.namesOf(op.id).tool === tool.name)!;
    const full = toJsonSchema(operation.output, "output");
    whole += JSON.stringify(full).length;
    // The same top-level fields, the same required ones: nothing a result has goes missing.
    assert.deepEqual(
      Object.keys(output.properties as object),
      Object.keys(full.properties as object),
    );
    assert.deepEqual(output.required, full.required);
  }
  assert.ok(slim * 3 < whole, `slim ${slim} characters against whole ${whole}`);
});

Deno.test("slimSchema keeps unions, enums, nullability and one level of array items", () => {
  const slim = slimSchema({
    type: "object",
    properties: {
      tag: { anyOf: [{ type: "string", minLength: 1 }, { type: "null" }], description: "x" },
      mode: { type: "string", enum: ["term", "substring"] },
      rows: {
        type: "array",
        items: { type: "array", items: { type: "object", properties: { a: { type: "string" } } } },
      },
      meta: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
      any: {},
    },
    required: ["mode"],
    additionalProperties: false,
  });
  assert.deepEqual(slim, {
    type: "object",
    properties: {
      tag: { anyOf: [{ type: "string" }, { type: "null" }] },
      mode: { type: "string", enum: ["term", "substring"] },
      rows: { type: "array", items: { type: "array" } },
      meta: { type: "object" },
      any: {},
    },
    required: ["mode"],
    additionalProperties: false,
  });
});
