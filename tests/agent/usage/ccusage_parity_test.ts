/**
 * Vantage counts what users' own tool counts: `vantage ingest` (a real process) and ccusage
 * 20.0.24 (`ccusage daily --offline --json`) read the same Claude Code and Codex transcripts
 * (`tests/fixtures/usage_parity/`, written by `scripts/make_usage_fixtures.ts`), and per UTC
 * day and model their input, output, cache-write and cache-read tokens are equal and their
 * costs within 2% where both price the model. The one deliberate difference in this corpus is
 * named and checked exactly: Vantage adds web searches ($10 per 1,000), ccusage does not.
 *
 * Skips, saying why, when ccusage is not installed (`.ci/run` installs it).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ccusageBinary, clientsPrefix } from "../../helpers/agent_clients.ts";
import { makeAgentHome } from "../../helpers/agent_home.ts";
import { runVantage } from "../../helpers/cli.ts";
import { copy } from "../../helpers/copy_tree.ts";

const CORPUS = new URL("../../fixtures/usage_parity/", import.meta.url).pathname;
const CCUSAGE = ccusageBinary();
if (CCUSAGE === undefined) {
  console.log(
    `skipping the ccusage parity test: ccusage is not installed: run 'npm install --prefix ${clientsPrefix()} ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24' (or set VANTAGE_CLIENTS_PREFIX / VANTAGE_CCUSAGE_BIN)`,
  );
}

interface Counts {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
  cost: number;
}

/** Per `day model` key. */
type Table = Map<string, Counts>;

interface CcusageDaily {
  daily: Array<{
    period: string;
    modelBreakdowns: Array<{
      modelName: string;
      inputTokens: number;
      outputTokens: number;
      cacheCreationTokens: number;
      cacheReadTokens: number;
      cost: number;
    }>;
  }>;
}

async function ccusageDaily(home: string): Promise<Table> {
  const output = await new Deno.Command(CCUSAGE!, {
    args: ["daily", "--offline", "--json", "--timezone", "UTC"],
    env: { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const report = JSON.parse(new TextDecoder().decode(output.stdout)) as CcusageDaily;
  const table: Table = new Map();
  for (const day of report.daily) {
    for (const m of day.modelBreakdowns) {
      table.set(`${day.period} ${m.modelName}`, {
        input: m.inputTokens,
        output: m.outputTokens,
        cacheWrite: m.cacheCreationTokens,
        cacheRead: m.cacheReadTokens,
        cost: m.cost,
      });
    }
  }
  return table;
}

function vantageDaily(database: string): { table: Table; unpriced: Map<string, number> } {
  const db = new DatabaseSync(database, { readOnly: true });
  try {
    const rows = db.prepare(`
      SELECT strftime('%Y-%m-%d', ts / 1000, 'unixepoch') AS day, model,
        sum(input_tokens) AS input, sum(output_tokens) AS output,
        sum(cache_write_tokens) AS cacheWrite, sum(cache_read_tokens) AS cacheRead,
        sum(cost_usd) AS cost, sum(web_search_requests) AS searches, sum(1 - priced) AS unpriced
      FROM usage GROUP BY day, model`).all() as unknown as Array<
      Counts & { day: string; model: string; searches: number; unpriced: number }
    >;
    const table: Table = new Map();
    const unpriced = new Map<string, number>();
    for (const row of rows) {
      const key = `${row.day} ${row.model}`;
      // The deliberate difference: web searches are billed, and ccusage leaves them out.
      table.set(key, {
        input: row.input,
        output: row.output,
        cacheWrite: row.cacheWrite,
        cacheRead: row.cacheRead,
        cost: row.cost - row.searches * 10 / 1000,
      });
      if (row.unpriced > 0) unpriced.set(key, row.unpriced);
    }
    return { table, unpriced };
  } finally {
    db.close();
  }
}

/** Per model: tokens both count, and both costs. */
function report(ours: Table, theirs: Table): string {
  const models = new Map<string, { tokens: number; ours: number; theirs: number }>();
  for (const [key, mine] of ours) {
    const model = key.split(" ")[1];
    const entry = models.get(model) ?? { tokens: 0, ours: 0, theirs: 0 };
    entry.tokens += mine.input + mine.output + mine.cacheWrite + mine.cacheRead;
    entry.ours += mine.cost;
    entry.theirs += theirs.get(key)?.cost ?? 0;
    models.set(model, entry);
  }
  return [...models].map(([model, e]) =>
    `${model}: ${e.tokens} tokens (equal); cost without web searches $${
      e.ours.toFixed(6)
    } vs ccusage $${e.theirs.toFixed(6)}`
  ).join("\n");
}

Deno.test({
  name: "ccusage parity: tokens per day and model are equal, costs within 2%",
  ignore: CCUSAGE === undefined,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    try {
      await copy(`${CORPUS}claude`, `${home.home}/.claude`, () => true);
      await copy(`${CORPUS}codex`, `${home.home}/.codex`, () => true);
      const run = await runVantage(["ingest", "--json"], { env: home.env });
      assert.equal(run.code, 0, run.stderr);

      const theirs = await ccusageDaily(home.home);
      const { table: ours, unpriced } = vantageDaily(`${home.dataHome}/vantage.db`);
      assert.deepEqual([...ours.keys()].sort(), [...theirs.keys()].sort());
      // The corpus spans five days, both agents, nine models.
      assert.equal(new Set([...ours.keys()].map((k) => k.split(" ")[0])).size, 5);
      assert.equal(new Set([...ours.keys()].map((k) => k.split(" ")[1])).size, 9);

      let compared = 0;
      for (const [key, mine] of ours) {
        const other = theirs.get(key)!;
        assert.deepEqual(
          [mine.input, mine.output, mine.cacheWrite, mine.cacheRead],
          [other.input, other.output, other.cacheWrite, other.cacheRead],
          `${key}: input, output, cache write, cache read`,
        );
        if (unpriced.has(key)) {
          // Neither prices it: Vantage counts the calls as unpriced, ccusage as $0.
          assert.equal(other.cost, 0, key);
          assert.equal(mine.cost, 0, key);
          continue;
        }
        assert.ok(
          Math.abs(mine.cost - other.cost) <= 0.02 * other.cost,
          `${key}: cost ${mine.cost} vs ccusage ${other.cost}`,
        );
        compared++;
      }
      assert.ok(compared >= 10, `costs compared for ${compared} day/model pairs`);
      console.log(report(ours, theirs));
      assert.deepEqual([...unpriced.keys()], ["2026-11-27 fixture-local-model"]);

      // The day a Sonnet 4.5 session crossed midnight is split where ccusage splits it.
      assert.ok(ours.has("2026-11-25 claude-sonnet-4-5-20250929"));
      assert.ok(ours.has("2026-11-26 claude-sonnet-4-5-20250929"));
    } finally {
      await home.cleanup();
    }
  },
});
