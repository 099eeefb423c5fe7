/**
 * `deno task bench [suite…]`: prints Vantage's performance figures, each
 * beside a reference measured in the same run. Suites: mcp, agent (which
 * includes redact and backfill), redact, backfill, perception, http, docs
 * (which includes grep, docs-search and docs-quality), grep, docs-search,
 * docs-quality, writers, otlp, ax, sync, team (SQLite beside PostgreSQL, sync included). The
 * default runs all but grep, redact, docs-search, docs-quality, backfill and sync, which agent,
 * docs and team run.
 */
import { benchAgent, benchBackfillOnly } from "./bench/agent.ts";
import { benchAx } from "./bench/ax.ts";
import { benchDocs, benchDocsQuality, benchDocsSearch, benchGrep } from "./bench/docs.ts";
import { benchHttp } from "./bench/http.ts";
import { benchMcp } from "./bench/mcp.ts";
import { benchOtlp } from "./bench/otlp.ts";
import { benchPerception } from "./bench/perception.ts";
import { benchRedaction } from "./bench/redaction.ts";
import { benchSync } from "./bench/sync.ts";
import { BENCH_SETTINGS, benchTeam } from "./bench/team.ts";
import { benchWriters } from "./bench/writers.ts";

const suites: Record<string, () => Promise<void>> = {
  // docs.grep's throughput alone (the docs suite runs it too, so it is not in the default run).
  grep: async () => {
    const work = await Deno.makeTempDir({ prefix: "vantage-bench-grep-" });
    try {
      await benchGrep(work);
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
    }
  },
  mcp: () => benchMcp(),
  agent: () => benchAgent(),
  // The backfill and the daily report after it alone (the agent suite runs them too).
  backfill: () => benchBackfillOnly(),
  redact: () => benchRedaction(),
  perception: () => benchPerception(),
  http: () => benchHttp(),
  docs: () => benchDocs(),
  // The 100,000-document search figures alone (the docs suite runs them too).
  "docs-search": () => benchDocsSearch(),
  // The Cranfield retrieval quality, SQLite beside PostgreSQL and plain BM25 (docs runs it too).
  "docs-quality": () => benchDocsQuality(),
  writers: () => benchWriters(),
  otlp: () => benchOtlp(),
  ax: () => benchAx(),
  // Bulk sync to a team server on SQLite and on PostgreSQL (team runs it too).
  sync: () => benchSync(60, { settings: BENCH_SETTINGS }),
  // Team mode (also in the default run): 50 hook writers, search at 1M messages and storage,
  // and bulk sync, on SQLite and PostgreSQL.
  team: () => benchTeam(),
};

// grep, docs-search and docs-quality run inside docs, agent runs redact and backfill itself, team
// runs sync: the default list leaves them out.
const wanted = Deno.args.length === 0
  ? Object.keys(suites).filter((name) =>
    !["grep", "redact", "docs-search", "docs-quality", "backfill", "sync"].includes(name)
  )
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
