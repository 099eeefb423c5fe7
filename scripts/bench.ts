/**
 * `deno task bench [suite…]`: prints Vantage's performance figures, each
 * beside a reference measured in the same run. Suites: mcp, agent, http, docs, grep (part of
 * docs, alone) (default: all but grep).
 */
import { benchAgent } from "./bench/agent.ts";
import { benchDocs, benchGrep } from "./bench/docs.ts";
import { benchHttp } from "./bench/http.ts";
import { benchMcp } from "./bench/mcp.ts";
import { benchPerception } from "./bench/perception.ts";

const suites: Record<string, () => Promise<void>> = {
  mcp: () => benchMcp(),
  agent: () => benchAgent(),
  perception: () => benchPerception(),
  http: () => benchHttp(),
  docs: () => benchDocs(),
  grep: async () => {
    const work = await Deno.makeTempDir({ prefix: "vantage-bench-grep-" });
    try {
      await benchGrep(work);
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
};

const wanted = Deno.args.length === 0
  ? Object.keys(suites).filter((name) => name !== "grep")
  : Deno.args;
for (const name of wanted) {
  const suite = suites[name];
  if (suite === undefined) {
    console.error(`unknown bench suite '${name}'; suites: ${Object.keys(suites).join(", ")}`);
    Deno.exit(2);
  }
  console.log(`\n=== ${name} ===`);
  await suite();
}
