import assert from "node:assert/strict";
import type { McpSurface } from "../../src/mcp/surface.ts";
import { warmingSurface } from "../../src/mcp/warming_surface.ts";

function fakeSurface(): McpSurface {
  return {
    name: "dex",
    tools: () => [],
    call: () => Promise.resolve({ content: [] }),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

Deno.test("the warm-up runs once, after the first tools/list", async () => {
  let warmed = 0;
  const surface = warmingSurface(fakeSurface(), () => warmed++, () => false);
  assert.deepEqual(surface.tools(), []);
  assert.equal(warmed, 0, "the list is answered before the warm-up starts");
  surface.tools();
  await settle();
  assert.equal(warmed, 1);
  surface.tools();
  await settle();
  assert.equal(warmed, 1);
});

Deno.test("no warm-up when a call came first or the server is closing", async () => {
  let warmed = 0;
  const calledFirst = warmingSurface(fakeSurface(), () => warmed++, () => false);
  await calledFirst.call("search", {});
  calledFirst.tools();
  const closing = warmingSurface(fakeSurface(), () => warmed++, () => true);
  closing.tools();
  await settle();
  assert.equal(warmed, 0);
});
