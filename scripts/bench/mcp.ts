/**
 * MCP benchmarks: `mcp-serve` time from spawn to `initialize` answered,
 * beside a minimal SDK server started the same way in the same run, and the
 * size of `tools/list` for each surface.
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { median, percentile, printTable } from "./stats.ts";

const root = new URL("../..", import.meta.url).pathname;
const MAIN = join(root, "main.ts");
const REFERENCE = join(root, "scripts/bench/reference_mcp_server.ts");

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  },
}) + "\n";

/** Spawns a server, sends `initialize` at once, and times the first answer. */
async function timeToInitialize(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INITIALIZE));
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server exited before answering initialize");
    text += new TextDecoder().decode(value);
  }
  const elapsed = performance.now() - started;
  if (!text.includes('"result"')) throw new Error(`unexpected answer: ${text}`);
  reader.releaseLock();
  await writer.close();
  await child.stdout.cancel();
  await child.status;
  return elapsed;
}

/** Sends initialize + tools/list to a surface and measures the list's size. */
async function toolsListSize(surface: string, env: Record<string, string>, flags: string[]) {
  const input = INITIALIZE +
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n" +
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\n";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "mcp-serve", "--surface", surface],
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes('"id":2')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  await writer.close();
  await child.stdout.cancel();
  await child.status;
  const line = text.split("\n").find((l) => l.includes('"id":2'))!;
  const tools = JSON.parse(line).result.tools as Array<Record<string, unknown>>;
  const chars = JSON.stringify(tools).length;
  // What a client sends the model of each tool: its name, description and input schema.
  const sent = JSON.stringify(tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }))).length;
  return {
    surface,
    tools: tools.length,
    chars,
    tokens: Math.round(chars / 4),
    modelTokens: Math.round(sent / 4),
  };
}

/** Runs the MCP benchmarks and prints their figures. */
export async function benchMcp(rounds = 15): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-bench-" });
  const env = { ...Deno.env.toObject(), VANTAGE_HOME: home };
  const flags = permissionFlags("mcp-serve", resolvePaths(home), []);
  const vantageArgs = ["run", ...flags, MAIN, "mcp-serve"];
  const referenceArgs = ["run", ...flags, REFERENCE];
  // Warm the module cache for both so neither pays a one-time compile.
  await timeToInitialize(vantageArgs, env);
  await timeToInitialize(referenceArgs, env);
  const vantage: number[] = [];
  const reference: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // Alternate so drift in machine load hits both equally.
    reference.push(await timeToInitialize(referenceArgs, env));
    vantage.push(await timeToInitialize(vantageArgs, env));
  }
  const ratio = median(vantage) / median(reference);
  console.log(`\nmcp-serve: spawn → initialize answered (${rounds} rounds each, alternating)`);
  printTable([
    ["server", "median ms", "p90 ms", "min ms"],
    [
      "minimal SDK server (reference)",
      median(reference).toFixed(1),
      percentile(reference, 90).toFixed(1),
      Math.min(...reference).toFixed(1),
    ],
    [
      "vantage mcp-serve",
      median(vantage).toFixed(1),
      percentile(vantage, 90).toFixed(1),
      Math.min(...vantage).toFixed(1),
    ],
  ]);
  console.log(`ratio vantage/reference (median): ${ratio.toFixed(2)}× (target ≤ 1.25×)`);

  console.log("\ntools/list size per surface (tokens estimated at 4 characters each)");
  const rows = [];
  for (const surface of ["dex", "composite", "full"]) {
    rows.push(await toolsListSize(surface, env, flags));
  }
  printTable([
    ["surface", "tools", "characters", "≈ tokens", "≈ tokens to the model"],
    ...rows.map((
      r,
    ) => [r.surface, String(r.tools), String(r.chars), String(r.tokens), String(r.modelTokens)]),
  ]);
  console.log("target for dex: under 700 tokens (YAMS's compact surface claims ~800)");
  console.log("target for full: under 8,000 tokens to the model (name, description, input schema)");
  await Deno.remove(home, { recursive: true });
}
