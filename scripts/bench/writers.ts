/**
 * Many writers on one data home, each figure beside a reference measured in
 * the same run:
 *
 * - hooks/s and docs/s stored by four writer processes at once, beside one
 *   writer process alone (the store's write lock is shared, so four cannot
 *   be four times one; what matters is that the total holds up and nobody
 *   waits long);
 * - hook round-trip latency (`POST /api/hooks` on a real `serve`, p50/p99)
 *   while another process adds a ~100 MB tree to the same store, beside the
 *   same hooks with nothing else running. Target: p99 < 100 ms.
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { denoDir, MAIN, startServe } from "./serve_process.ts";
import { median, percentile, printTable } from "./stats.ts";

const WRITER = new URL("./writer_process.ts", import.meta.url).pathname;
const SECONDS = 6;

/** Runs the concurrent-writer benchmarks. */
export async function benchWriters(): Promise<void> {
  const work = await Deno.makeTempDir({ prefix: "vantage-bench-writers-" });
  try {
    await benchThroughput(work);
    await benchHookLatencyDuringAdd(work);
  } finally {
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}

interface WriterResult {
  ops: number;
  failures: number;
  ms: number;
  latencies: number[];
}

/** Starts `count` writer processes of `kind` on a fresh home at once; returns their results. */
async function runWriters(work: string, kind: string, count: number): Promise<WriterResult[]> {
  const home = await Deno.makeTempDir({ dir: work, prefix: `${kind}-${count}-` });
  // Create the store and its schema first, as an installed Vantage would have.
  await runWriterProcesses(home, kind, 1, 0.05);
  return await runWriterProcesses(home, kind, count, SECONDS);
}

async function runWriterProcesses(
  home: string,
  kind: string,
  count: number,
  seconds: number,
): Promise<WriterResult[]> {
  const start = Date.now() + 1500;
  const children = Array.from({ length: count }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", WRITER, home, kind, String(seconds), String(start)],
      stdout: "piped",
      stderr: "inherit",
    }).output());
  const outputs = await Promise.all(children);
  return outputs.map((output) => JSON.parse(new TextDecoder().decode(output.stdout)));
}

function perSecond(results: WriterResult[]): number {
  const ops = results.reduce((sum, result) => sum + result.ops, 0);
  const seconds = Math.max(...results.map((result) => result.ms)) / 1000;
  return ops / seconds;
}

async function benchThroughput(work: string): Promise<void> {
  const rows: string[][] = [[
    "workload",
    "1 writer",
    "4 writers (total)",
    "ratio",
    "4 writers: p50 / p99 per write",
    "failures",
  ]];
  for (const kind of ["hooks", "docs"]) {
    const one = await runWriters(work, kind, 1);
    const four = await runWriters(work, kind, 4);
    const latencies = four.flatMap((result) => result.latencies);
    const single = perSecond(one);
    const total = perSecond(four);
    rows.push([
      kind === "hooks" ? "hook events stored/s" : "docs.add (1 KB inline)/s",
      single.toFixed(0),
      total.toFixed(0),
      `${(total / single).toFixed(2)}×`,
      `${median(latencies).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} ms`,
      String([...one, ...four].reduce((sum, result) => sum + result.failures, 0)),
    ]);
  }
  console.log(`\nWriter processes on one data home (${SECONDS} s each, same run)`);
  printTable(rows);
}

/** A tree of about `megabytes` MB: half prose text files, half random binaries, 20–200 KB each. */
async function writeTree(folder: string, megabytes: number): Promise<number> {
  let seed = 12345;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  const words = Array.from({ length: 4000 }, (_, i) => `w${(i * 2654435761 >>> 0).toString(36)}`);
  let total = 0;
  for (let i = 0; total < megabytes * 1e6; i++) {
    const dir = join(folder, `d${i % 50}`);
    await Deno.mkdir(dir, { recursive: true });
    const size = 20_000 + Math.floor(random() * 180_000);
    if (i % 2 === 0) {
      let text = "";
      while (text.length < size) {
        text += words[Math.floor(random() * random() * words.length)];
        text += random() < 0.1 ? ".\n" : " ";
      }
      await Deno.writeTextFile(join(dir, `f${i}.md`), text);
    } else {
      const bytes = new Uint8Array(size);
      for (let j = 0; j < size; j++) bytes[j] = Math.floor(random() * 256);
      await Deno.writeFile(join(dir, `f${i}.bin`), bytes);
    }
    total += size;
  }
  return total;
}

/** Posts hooks one after another until `until()` says stop; returns each round trip, ms. */
export async function postHooks(
  url: string,
  until: () => boolean,
  pauseMs: number,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; !until(); i++) {
    const body = JSON.stringify({
      session_id: "bench-latency",
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: `/work/bench/f${i}.ts` },
      tool_response: { content: "x" },
      cwd: "/work/bench",
    });
    const t0 = performance.now();
    const response = await fetch(`${url}/api/hooks?agent=claude_code`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    await response.arrayBuffer();
    latencies.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return latencies;
}

async function benchHookLatencyDuringAdd(work: string): Promise<void> {
  const home = await Deno.makeTempDir({ dir: work, prefix: "latency-" });
  const dataHome = join(home, ".vantage");
  const tree = join(work, "tree-100mb");
  const bytes = await writeTree(tree, 100);
  const { child: serve, port } = await startServe(home, dataHome);
  const url = `http://127.0.0.1:${port}`;
  try {
    // Warm up, then the reference: hooks with nothing else writing.
    await postHooks(
      url,
      (() => {
        let n = 0;
        return () => n++ >= 20;
      })(),
      5,
    );
    const idleUntil = performance.now() + 5000;
    const idle = await postHooks(url, () => performance.now() > idleUntil, 20);

    const paths = { ...resolvePaths(dataHome), userHome: home };
    const started = performance.now();
    const add = new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissionFlags("cli", paths, [tree]), MAIN, "add", tree, "--json"],
      env: {
        ...Deno.env.toObject(),
        HOME: home,
        VANTAGE_HOME: dataHome,
        VANTAGE_ROOTS: tree,
        DENO_DIR: denoDir(),
      },
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    let adding = true;
    const finished = add.status.then((status) => {
      adding = false;
      return status;
    });
    const during = await postHooks(url, () => !adding, 20);
    const status = await finished;
    const addSeconds = (performance.now() - started) / 1000;
    console.log(
      `\nHook round trip (POST /api/hooks on serve) while another process adds a ${
        (bytes / 1e6).toFixed(0)
      } MB tree (exit ${status.code}, ${addSeconds.toFixed(1)} s, ${
        (bytes / 1e6 / addSeconds).toFixed(1)
      } MB/s including process start)`,
    );
    printTable([
      ["", "hooks", "p50", "p99", "max", "target"],
      row("nothing else writing (reference)", idle, ""),
      row("during the add", during, "p99 < 100 ms"),
    ]);
  } finally {
    serve.kill("SIGTERM");
    await serve.status;
  }
}

function row(label: string, latencies: number[], target: string): string[] {
  return [
    label,
    String(latencies.length),
    `${median(latencies).toFixed(1)} ms`,
    `${percentile(latencies, 99).toFixed(1)} ms`,
    `${Math.max(...latencies).toFixed(1)} ms`,
    target,
  ];
}
