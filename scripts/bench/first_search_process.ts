/**
 * One new process of the first-search benchmark: prepares the data home given
 * as its first argument the way `mcp-serve` does (services, catalog; the
 * store opens on first use, as in `mcp-serve`), then times its first
 * `docs.search` (hybrid) and a second one, and, as the
 * reference, reading every stored vector of the model from the store (what
 * a first search did before the sealed vector files). Prints JSON on stdout.
 * With `warm`, it first runs the warm-up `mcp-serve` runs once it has answered
 * `tools/list` (timed apart), so the first search is the agent's first call
 * arriving after that.
 *
 * Usage: deno run -A first_search_process.ts <data home> <first query> <second query> [warm]
 */
import process from "node:process";
import { resolvePaths } from "../../src/core/config.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { VectorIndex } from "../../src/docs/vector_index.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { warmSearchFor } from "../../src/ops/search_warm_up.ts";
import { DATABASE, vantageServices } from "../../src/ops/runtime.ts";
import { vectorsAfter } from "../../src/store/docs/vectors.ts";

const [home, first, second, mode] = Deno.args;
const services = vantageServices(resolvePaths(home));
const catalog = builtinCatalog();
/** Wall and CPU milliseconds of one search (CPU time is what a busy machine does not inflate). */
const search = async (query: string) => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const response = await executeOperation(
    catalog,
    "docs.search",
    { query, type: "hybrid", limit: 10 },
    { scopes: ["docs:read"] },
    { services },
  );
  if (!("result" in response)) throw new Error(JSON.stringify(response));
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
};
let warmMs: number | undefined;
if (mode === "warm") {
  const started = performance.now();
  const warm = await warmSearchFor(catalog, services, { scopes: ["docs:read"] });
  if (warm === undefined) throw new Error("the warm-up found no store to warm");
  warmMs = performance.now() - started;
}
const firstMs = await search(first);
const secondMs = await search(second);
const db = services.get(DATABASE);
const model = new HashedEmbedder().id;
const index = VectorIndex.for(db, model);
const started = performance.now();
const cpu = process.cpuUsage();
let vectors = 0;
for (let after = 0;;) {
  const page = vectorsAfter(db, model, after, 4096);
  vectors += page.length;
  if (page.length < 4096) break;
  after = page[page.length - 1].id;
}
const readAllMs = performance.now() - started;
const readAllCpu = process.cpuUsage(cpu);
console.log(JSON.stringify({
  warm_ms: warmMs,
  first_ms: firstMs.wall,
  first_cpu_ms: firstMs.cpu,
  second_ms: secondMs.wall,
  second_cpu_ms: secondMs.cpu,
  read_all_ms: readAllMs,
  read_all_cpu_ms: (readAllCpu.user + readAllCpu.system) / 1000,
  vectors,
  segments: index.segmentCount,
  tail: index.tailSize,
}));
services.close();
