/**
 * The built-in operation index (what `vantage call` loads one operation by) and the whole
 * catalog (what listings build) must name the same operations, each the very same object.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import {
  catalogForOperation,
  indexedOperationIds,
  loadIndexedOperation,
} from "../../src/ops/builtin_index.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { ROOT } from "../helpers/module_graph.ts";

/** The cassette whose operations read the whole catalog: never loaded alone. */
const CATALOG_READERS = "dex";

Deno.test("the index knows exactly the built-in operations outside dex, by id and by former id", () => {
  const expected = builtinCatalog().operations()
    .filter((operation) => !operation.id.startsWith(CATALOG_READERS + "."))
    .flatMap((operation) => [operation.id, ...(operation.aliases ?? [])]);
  assert.deepEqual([...indexedOperationIds()].sort(), expected.sort());
  assert.equal(new Set(indexedOperationIds()).size, indexedOperationIds().length);
});

Deno.test("each indexed id loads the operation the whole catalog holds, alone in its cassette", async () => {
  const whole = builtinCatalog();
  for (const id of indexedOperationIds()) {
    const operation = whole.get(id)!;
    assert.equal(await loadIndexedOperation(id), operation, id);
    const alone = await catalogForOperation(id);
    assert.deepEqual(alone.operations(), [operation], id);
    assert.equal(alone.get(id), operation, id);
    assert.equal(alone.get(operation.id), operation, id);
    const cassette = alone.cassetteOf(id)!;
    const wholeCassette = whole.cassetteOf(id)!;
    assert.deepEqual(
      { name: cassette.name, source: cassette.source },
      { name: wholeCassette.name, source: wholeCassette.source },
      id,
    );
  }
});

Deno.test("an id the index does not hold is run on the whole catalog", async () => {
  const count = builtinCatalog().operations().length;
  for (const id of ["dex.describe", "dex.list_cassettes", "agent.usage_timeserie", "nothing"]) {
    assert.equal(await loadIndexedOperation(id), undefined, id);
    assert.equal((await catalogForOperation(id)).operations().length, count, id);
  }
  assert.equal(await loadIndexedOperation("constructor"), undefined);
  // A misspelt id is still answered with the closest operations.
  const response = await executeOperation(
    await catalogForOperation("agent.usage_timeserie"),
    "agent.usage_timeserie",
    {},
    { scopes: ["agent:read"] },
  );
  assert.ok("error" in response);
  assert.equal(response.error.kind, "unknown_operation");
  assert.match(response.error.message, /agent\.usage_timeseries/);
});

/** Source without its comments, lines kept. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ""))
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

Deno.test("no operation outside dex reads the catalog it runs in (alone, it would see itself only)", () => {
  const readers: string[] = [];
  for (const room of ["agent", "docs", "perception"]) {
    const folder = join(ROOT, "src", room);
    for (const entry of readdirSync(folder, { recursive: true })) {
      const path = join(folder, String(entry));
      if (!path.endsWith(".ts")) continue;
      const lines = code(readFileSync(path, "utf8")).split("\n");
      for (const [i, line] of lines.entries()) {
        if (/\bcatalog\b/.test(line)) readers.push(`src/${room}/${entry}:${i + 1}`);
      }
    }
  }
  assert.deepEqual(readers, []);
});
