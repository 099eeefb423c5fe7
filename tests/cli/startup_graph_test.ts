/**
 * What `main.ts` loads before it knows which command runs. The hook runs on
 * every agent tool call and `mcp-serve` must answer `initialize` fast, so
 * the entry's static module graph must not reach the catalog, zod or the
 * MCP SDK: commands are imported on demand.
 */
import assert from "node:assert/strict";

Deno.test("the CLI entry's static graph stays small: no catalog, no zod, no MCP SDK", async () => {
  const root = new URL("../..", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: Array<{ specifier: string }>;
  };
  const specifiers = info.modules.map((m) => m.specifier);
  const heavy = specifiers.filter((s) => /\/src\/(ops|mcp|store|memory|perception|http)\//.test(s));
  assert.deepEqual(heavy, [], "modules the entry should only load on demand");
  assert.deepEqual(
    specifiers.filter((s) => s.startsWith("npm:")),
    [],
    "npm packages loaded up front",
  );
  assert.ok(specifiers.length < 15, `entry graph has ${specifiers.length} modules`);
});
