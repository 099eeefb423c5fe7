/**
 * `deno task bench [suite…]`: prints Vantage's performance figures, each
 * beside a reference measured in the same run. Suites: mcp, agent, perception, http, docs, writers (default: all).
 */
import { benchAgent } from "./bench/agent.ts";
import { benchDocs } from "./bench/docs.ts";
import { benchHttp } from "./bench/http.ts";
import { benchMcp } from "./bench/mcp.ts";
import { benchPerception } from "./bench/perception.ts";
import { benchWriters } from "./bench/writers.ts";

const suites: Record<string, () => Promise<void>> = {
  mcp: () => benchMcp(),
  agent: () => benchAgent(),
  perception: () => benchPerception(),
  http: () => benchHttp(),
  docs: () => benchDocs(),
  writers: () => benchWriters(),
};

const wanted = Deno.args.length === 0 ? Object.keys(suites) : Deno.args;
for (const name of wanted) {
  const suite = suites[name];
  if (suite === undefined) {
    console.error(`unknown bench suite '${name}'; suites: ${Object.keys(suites).join(", ")}`);
    Deno.exit(2);
  }
  console.log(`\n=== ${name} ===`);
  await suite();
}
