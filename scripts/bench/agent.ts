/**
 * Ingestion benchmarks: hook round trip as the agent sees it (beside curl
 * posting the same payload), backfill throughput and the server's peak
 * memory on a generated 200 MB corpus (beside a plain read-and-parse of the
 * same bytes), the daily tokens-and-cost report on that store (beside
 * `ccusage daily --offline --json` on the same transcripts, when ccusage is
 * installed), and `search_sessions` latency over one million messages for
 * rare and very common words (beside FTS5's own BM25 ranking).
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import {
  countMatches,
  MessageIndexer,
  openMessageIndex,
} from "../../src/store/agent/message_index.ts";
import { insertMessages, maxMessageId } from "../../src/store/agent/messages.ts";
import { openDatabase, transaction } from "../../src/store/database.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { vantageServices } from "../../src/ops/runtime.ts";
import { prng, writeClaudeTranscript, ZipfVocabulary } from "../lib/claude_corpus.ts";
import { ccusageBinary } from "../../tests/helpers/agent_clients.ts";
import { denoDir, MAIN, startServe } from "./serve_process.ts";
import { benchRedaction } from "./redaction.ts";
import { median, percentile, printTable } from "./stats.ts";

async function timed(
  command: string,
  args: string[],
  stdin: string,
  env: Record<string, string>,
): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(command, {
    args,
    env,
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  await child.status;
  return performance.now() - started;
}

async function benchHookRoundTrip(rounds: number): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-bench-hook-" });
  const dataHome = join(home, ".vantage");
  const server = await startServe(home, dataHome);
  const url = `http://127.0.0.1:${server.port}`;
  const env = {
    ...Deno.env.toObject(),
    HOME: home,
    VANTAGE_HOME: dataHome,
    VANTAGE_URL: url,
    DENO_DIR: denoDir(),
  };
  const hookArgs = [
    "run",
    ...permissionFlags("hook", { ...resolvePaths(dataHome), userHome: home }, []),
    MAIN,
    "hook",
    "--agent",
    "claude-code",
  ];
  const payload = JSON.stringify({
    session_id: "bench",
    cwd: "/work/bench",
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: "npm test" },
    tool_response: { stdout: "ok", exit_code: 0 },
  });
  const curlArgs = [
    "-s",
    "-o",
    "/dev/null",
    "-X",
    "POST",
    "-H",
    "content-type: application/json",
    "-H",
    "x-vantage-agent: claude_code",
    "--data-binary",
    "@-",
    `${url}/api/hooks`,
  ];
  await timed(Deno.execPath(), hookArgs, payload, env);
  await timed("curl", curlArgs, payload, env);
  const hook: number[] = [];
  const curl: number[] = [];
  for (let i = 0; i < rounds; i++) {
    curl.push(await timed("curl", curlArgs, payload, env));
    hook.push(await timed(Deno.execPath(), hookArgs, payload, env));
  }
  server.child.kill("SIGTERM");
  await server.child.status;
  console.log(
    `\nhook round trip: spawn → exit, server running (${rounds} rounds each, alternating)`,
  );
  printTable([
    ["client", "median ms", "p90 ms", "min ms"],
    [
      "curl (reference)",
      median(curl).toFixed(1),
      percentile(curl, 90).toFixed(1),
      Math.min(...curl).toFixed(1),
    ],
    [
      "vantage hook (deno run)",
      median(hook).toFixed(1),
      percentile(hook, 90).toFixed(1),
      Math.min(...hook).toFixed(1),
    ],
  ]);
  console.log(
    `ratio hook/curl (median): ${
      (median(hook) / median(curl)).toFixed(2)
    }× — target: hook median under 40 ms`,
  );
  await Deno.remove(home, { recursive: true });
}

async function benchBackfill(totalMb: number): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-bench-backfill-" });
  const dataHome = join(home, ".vantage");
  const dir = join(home, ".claude", "projects", "-work-bench");
  await Deno.mkdir(dir, { recursive: true });
  const files = 8;
  let bytes = 0;
  let messages = 0;
  let answers = 0;
  let subagents = 0;
  const vocabulary = new ZipfVocabulary(50_000, prng(1));
  // Sessions spread over the last two weeks, so the daily report has days to fill.
  const firstDay = Date.now() - 14 * 86_400_000;
  for (let i = 0; i < files; i++) {
    const stats = await writeClaudeTranscript(join(dir, `session-${i}.jsonl`), {
      sessionId: `session-${i}`,
      cwd: "/work/bench",
      // The main files take about three quarters of the bytes, their sub-agents' files the rest.
      targetBytes: (0.75 * totalMb * 1024 * 1024) / files,
      seed: i + 1,
      startMs: firstDay + i * 1.5 * 86_400_000,
      model: ["claude-sonnet-4-5", "claude-opus-4-6", "claude-haiku-4-5"][i % 3],
      vocabulary,
      subagentEvery: 15,
    });
    bytes += stats.bytes;
    messages += stats.messages;
    answers += stats.usage;
    subagents += stats.subagents;
  }
  const transcripts = [...walkFiles(join(home, ".claude", "projects"))];
  // Reference: read every file and JSON.parse every line, storing nothing.
  const refStart = performance.now();
  let parsed = 0;
  for (const path of transcripts) {
    const text = await Deno.readTextFile(path);
    for (const line of text.split("\n")) {
      if (line !== "") {
        JSON.parse(line);
        parsed++;
      }
    }
  }
  const refSeconds = (performance.now() - refStart) / 1000;

  const env = { ...Deno.env.toObject(), HOME: home, VANTAGE_HOME: dataHome, DENO_DIR: denoDir() };
  const paths = { ...resolvePaths(dataHome), userHome: home };
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags("cli", paths, []), MAIN, "ingest", "--json"],
    env,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const report = JSON.parse(new TextDecoder().decode(output.stdout));

  // Peak memory of serve doing the same backfill on a fresh data home.
  const serveHome = join(home, ".vantage-serve");
  const server = await startServe(home, serveHome);
  let peakKb = 0;
  for (let i = 0; i < 6000; i++) {
    const status = await Deno.readTextFile(`/proc/${server.child.pid}/status`).catch(() => "");
    peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? peakKb);
    const done = await new Deno.Command("sqlite3", {
      args: [
        join(serveHome, "vantage.db"),
        "SELECT coalesce(sum(byte_offset), 0) FROM transcript_files",
      ],
      stdout: "piped",
      stderr: "null",
    }).output().then((o) => Number(new TextDecoder().decode(o.stdout).trim() || 0)).catch(() => 0);
    if (done >= bytes) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const status = await Deno.readTextFile(`/proc/${server.child.pid}/status`).catch(() => "");
  peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? peakKb);
  server.child.kill("SIGTERM");
  await server.child.status;

  console.log(
    `\nbackfill: ${
      (bytes / 1e6).toFixed(0)
    } MB, ${messages} messages (${answers} answers, most written as 3 lines each) in ${files} Claude Code transcripts and their ${subagents} sub-agents' files`,
  );
  printTable([
    ["run", "seconds", "MB/s", "messages/s"],
    [
      "read + JSON.parse only (reference)",
      refSeconds.toFixed(2),
      (bytes / 1e6 / refSeconds).toFixed(1),
      (parsed / refSeconds).toFixed(0),
    ],
    [
      "vantage ingest (process, end to end)",
      seconds.toFixed(2),
      (bytes / 1e6 / seconds).toFixed(1),
      (report.messages / seconds).toFixed(0),
    ],
  ]);
  console.log(
    `stored ${report.messages} messages, ${report.usage_records} usage records — target above 50 MB/s`,
  );
  console.log(
    `serve peak resident memory (VmHWM) while tailing the same corpus: ${
      (peakKb / 1024).toFixed(0)
    } MB — target under 300 MB`,
  );
  await benchDailyReport(home, dataHome, env, paths);
  await Deno.remove(home, { recursive: true });
}

/**
 * "Tokens and cost per day per model" after the backfill: `agent.usage_timeseries` grouped by
 * model in day buckets (what the dashboard's cost chart asks), in process and through
 * `vantage call`, beside `ccusage daily --offline --json` re-reading the same transcripts.
 */
async function benchDailyReport(
  home: string,
  dataHome: string,
  env: Record<string, string>,
  paths: ReturnType<typeof resolvePaths> & { userHome: string },
): Promise<void> {
  const args = { since_min: 30 * 1440, bucket_min: 1440, group_by: "model" };
  const services = vantageServices(resolvePaths(dataHome));
  const catalog = builtinCatalog();
  const caller = { scopes: ["agent:read"], cwd: "/work/bench" };
  const inProcess: number[] = [];
  let days = 0;
  let series = 0;
  for (let i = 0; i < 13; i++) {
    const t0 = performance.now();
    const response = await executeOperation(catalog, "agent.usage_timeseries", args, caller, {
      services,
    });
    const elapsed = performance.now() - t0;
    if (!("result" in response)) throw new Error(JSON.stringify(response));
    const result = response.result as { buckets: number[]; series: Array<{ calls: number[] }> };
    days = result.buckets.filter((_, j) => result.series.some((s) => s.calls[j] > 0)).length;
    series = result.series.length;
    if (i >= 3) inProcess.push(elapsed);
  }
  services.close();
  const run = async (command: string, argv: string[], runEnv: Record<string, string>) => {
    const t0 = performance.now();
    const output = await new Deno.Command(command, {
      args: argv,
      env: runEnv,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
    return performance.now() - t0;
  };
  const callArgs = [
    "run",
    ...permissionFlags("cli", paths, []),
    MAIN,
    "call",
    "agent.usage_timeseries",
    JSON.stringify(args),
  ];
  const viaCli: number[] = [];
  for (let i = 0; i < 6; i++) {
    const elapsed = await run(Deno.execPath(), callArgs, env);
    if (i >= 1) viaCli.push(elapsed);
  }
  const rows = [
    ["report", "median ms", "min ms"],
    [
      "agent.usage_timeseries, day × model (in the server)",
      median(inProcess).toFixed(1),
      Math.min(...inProcess).toFixed(1),
    ],
    [
      "vantage call agent.usage_timeseries (process)",
      median(viaCli).toFixed(0),
      Math.min(...viaCli).toFixed(0),
    ],
  ];
  const ccusage = ccusageBinary();
  let ccusageMedian: number | undefined;
  if (ccusage !== undefined) {
    const ccEnv = { HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const elapsed = await run(ccusage, ["daily", "--offline", "--json"], ccEnv);
      if (i >= 1) times.push(elapsed);
    }
    ccusageMedian = median(times);
    rows.push([
      "ccusage daily --offline --json (reference, process)",
      ccusageMedian.toFixed(0),
      Math.min(...times).toFixed(0),
    ]);
  }
  console.log(
    `\ndaily tokens and cost per model after the backfill (${days} days, ${series} models)`,
  );
  printTable(rows);
  if (ccusageMedian !== undefined) {
    console.log(
      `ratio vantage call / ccusage (median): ${
        (median(viaCli) / ccusageMedian).toFixed(2)
      }× — target: under 0.5×`,
    );
  } else {
    console.log("ccusage is not installed (see .ci/run): no reference for the daily report");
  }
}

async function benchSearch(messageCount: number): Promise<void> {
  const dataHome = await Deno.makeTempDir({ prefix: "vantage-bench-search-" });
  const paths = resolvePaths(dataHome);
  const db = openDatabase(paths.database);
  const random = prng(42);
  const vocabulary = new ZipfVocabulary(50_000, random);
  const sessions = 2000;
  const start = Date.now() - 6 * 86_400_000;
  const fillStarted = performance.now();
  const batch = 20_000;
  for (let offset = 0; offset < messageCount; offset += batch) {
    const rows: Parameters<typeof insertMessages>[1][number][] = [];
    for (let i = offset; i < Math.min(messageCount, offset + batch); i++) {
      const session = i % sessions;
      rows.push({
        agent: session % 3 === 0 ? "codex" : "claude_code",
        session_id: `session-${session}`,
        cwd: `/work/project-${session % 20}`,
        ts: start + Math.floor((i / messageCount) * 6 * 86_400_000),
        role: i % 2 === 0 ? "user" : "assistant",
        message_type: i % 2 === 0 ? "user" : "assistant",
        text: vocabulary.sentence(12 + Math.floor(random() * 24)),
        message_key: `m-${i}`,
      });
    }
    transaction(db, () => insertMessages(db, rows));
  }
  const indexer = await MessageIndexer.start(paths.database, () => maxMessageId(db));
  await indexer.caughtUp();
  indexer.close();
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  const index = openMessageIndex(paths.database);
  const common = vocabulary.words[0];
  const rare = vocabulary.words[40_000];
  const countOf = (word: string) => countMatches(index, `"${word}"`);
  const commonMatches = countOf(common);
  const rareMatches = countOf(rare);

  const services = vantageServices(paths);
  const catalog = builtinCatalog();
  const caller = { scopes: ["agent:read"], cwd: "/work/project-3" };
  const runs = 30;
  const measure = async (query: string, project: string) => {
    const times: number[] = [];
    for (let i = 0; i < runs + 3; i++) {
      const t0 = performance.now();
      const response = await executeOperation(
        catalog,
        "agent.search_sessions",
        { query, project, since_min: 10_080 * 2 },
        caller,
        { services },
      );
      const elapsed = performance.now() - t0;
      if (!("result" in response)) throw new Error(JSON.stringify(response));
      if (i >= 3) times.push(elapsed);
    }
    return times;
  };
  const ranked = (word: string) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      index.prepare(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 10",
      ).all(`"${word}"`);
      times.push(performance.now() - t0);
    }
    return times;
  };
  const rows: string[][] = [[
    "query",
    "matches",
    "search_sessions median ms",
    "p90 ms",
    "FTS5 BM25-ranked LIMIT 10 (reference) ms",
  ]];
  for (const [label, word] of [["rare word", rare], ["very common word", common]] as const) {
    const allProjects = await measure(word, "*");
    rows.push([
      `${label} '${word}', all projects`,
      String(label === "rare word" ? rareMatches : commonMatches),
      median(allProjects).toFixed(2),
      percentile(allProjects, 90).toFixed(2),
      median(ranked(word)).toFixed(1),
    ]);
    const scoped = await measure(word, "/work/project-3");
    rows.push([
      `${label} '${word}', one project`,
      "",
      median(scoped).toFixed(2),
      percentile(scoped, 90).toFixed(2),
      "",
    ]);
  }
  // What the dashboard's pages ask for, on the same store (each page load is a few of these).
  const pages: Array<[string, string, Record<string, unknown>]> = [
    ["overview", "agent.overview", { since_min: 10_080 }],
    ["sessions list", "agent.list_sessions", { since_min: 10_080 }],
    ["tokens over time", "agent.usage_timeseries", { since_min: 10_080 }],
    ["session transcript page", "agent.get_session_transcript", { session_id: "session-3" }],
  ];
  const dashboardRows: string[][] = [["dashboard read", "median ms", "p90 ms"]];
  for (const [label, id, args] of pages) {
    const times: number[] = [];
    for (let i = 0; i < 13; i++) {
      const t0 = performance.now();
      const response = await executeOperation(catalog, id, args, caller, { services });
      if (!("result" in response)) throw new Error(`${id}: ${JSON.stringify(response)}`);
      if (i >= 3) times.push(performance.now() - t0);
    }
    dashboardRows.push([label, median(times).toFixed(2), percentile(times, 90).toFixed(2)]);
  }
  console.log(
    `\nsearch_sessions over ${
      messageCount.toLocaleString("en")
    } messages in ${sessions} sessions (Zipf vocabulary of 50,000 words; store filled in ${
      fillSeconds.toFixed(1)
    } s)`,
  );
  printTable(rows);
  console.log("target: under 20 ms median for rare and common words");
  console.log(
    `\ndashboard reads over the same ${
      messageCount.toLocaleString("en")
    } messages (target: pages load in under a second)`,
  );
  printTable(dashboardRows);
  services.close();
  index.close();
  db.close();
  await Deno.remove(dataHome, { recursive: true });
}

/** Every file under `dir`, depth first. */
function* walkFiles(dir: string): Generator<string> {
  for (const entry of [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walkFiles(path);
    else if (entry.isFile) yield path;
  }
}

/** Runs the backfill benchmark alone (with the daily report after it). */
export async function benchBackfillOnly(): Promise<void> {
  await benchBackfill(Number(Deno.env.get("VANTAGE_BENCH_BACKFILL_MB") ?? 200));
}

/** Runs the ingestion benchmarks. */
export async function benchAgent(): Promise<void> {
  await benchRedaction();
  await benchHookRoundTrip(30);
  await benchBackfill(Number(Deno.env.get("VANTAGE_BENCH_BACKFILL_MB") ?? 200));
  await benchSearch(Number(Deno.env.get("VANTAGE_BENCH_MESSAGES") ?? 1_000_000));
}
