/**
 * What the CLI loads before it does anything. The hook runs on every agent
 * tool call and `mcp-serve` must answer `initialize` fast, so neither may
 * load the catalog, zod or the store up front: commands, the catalog and the
 * server's autostart are literal `import()`s, which deno.json's
 * lazy-dynamic-imports makes Deno load only when they run.
 */
import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { moduleGraph, ROOT } from "../helpers/module_graph.ts";

const HEAVY = /^src\/(ops|mcp|store|docs|perception|http|server)\//;

Deno.test("the CLI entry loads no catalog, no zod, no MCP SDK when it starts", async () => {
  const { all, loadedAtStart } = await moduleGraph("main.ts");
  assert.deepEqual(loadedAtStart.filter((s) => HEAVY.test(s)), [], "loaded before a command runs");
  assert.deepEqual(loadedAtStart.filter((s) => s.startsWith("npm:")), [], "npm packages");
  assert.ok(loadedAtStart.length < 15, `entry loads ${loadedAtStart.length} modules`);
  // The commands are in the graph (deno check and deno compile follow them), loaded on demand.
  assert.ok(all.includes("src/cli/serve.ts") && all.includes("src/ops/builtin.ts"));
});

Deno.test("the hook command loads only what handing a payload over needs", async () => {
  const { all, loadedAtStart } = await moduleGraph("src/cli/hook.ts");
  assert.deepEqual(loadedAtStart.filter((s) => HEAVY.test(s)), []);
  assert.deepEqual(loadedAtStart.filter((s) => s.startsWith("npm:")), []);
  // Starting a server when none answers is imported only then.
  assert.ok(!loadedAtStart.includes("src/agent/hooks/server_autostart.ts"));
  assert.ok(all.includes("src/agent/hooks/server_autostart.ts"));
});

Deno.test("mcp-serve loads the catalog and the store only after answering initialize", async () => {
  const { all, loadedAtStart } = await moduleGraph("src/cli/mcp_serve.ts");
  const catalog = ["src/ops/builtin.ts", "src/ops/runtime.ts", "src/mcp/surfaces.ts"];
  assert.deepEqual(loadedAtStart.filter((s) => catalog.includes(s) || /^src\/store\//.test(s)), []);
  for (const module of catalog) assert.ok(all.includes(module), module);
});

Deno.test("a literal import() loads its module only when it runs", async () => {
  assert.ok(config.unstable.includes("lazy-dynamic-imports"));
  // Deno reads the modules of the start-up graph without asking; a module imported later needs
  // read access. So a refusal to read the command's module proves it was not loaded at start.
  const run = async (flags: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", ...flags, `${ROOT}main.ts`, "version"],
      cwd: "/",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      out: decoder.decode(output.stdout) + decoder.decode(output.stderr),
    };
  };
  const refused = await run([]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.out, new RegExp(`read access to "${ROOT}src/cli/version\\.ts"`));
  // With the program folder readable, as every shipped permission set has it, the command runs.
  const allowed = await run([`--allow-read=${ROOT}src`]);
  assert.equal(allowed.code, 0, allowed.out);
  assert.match(allowed.out, /^vantage \d/);
});

Deno.test("vantage call loads the operation it runs, not the catalog and every feature", async () => {
  const { all, loadedAtStart } = await moduleGraph("src/cli/call.ts");
  const features = /^src\/(agent|docs|perception)\//;
  assert.deepEqual(
    loadedAtStart.filter((s) => features.test(s) || s === "src/ops/builtin.ts"),
    [],
    "loaded before the operation is known",
  );
  // The whole catalog stays in the graph, for ids the index does not hold (dex, misspellings).
  assert.ok(all.includes("src/ops/builtin.ts") && all.includes("src/agent/ops/overview.ts"));
  // The daily report's operation brings the store's agent area, no other feature.
  const report = await moduleGraph("src/agent/ops/usage_timeseries.ts");
  assert.deepEqual(report.loadedAtStart.filter((s) => /^src\/(docs|perception)\//.test(s)), []);
});
