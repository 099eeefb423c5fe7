/**
 * Perception benchmarks: the context answer per hook (rules, suppression,
 * snapshot, render) on a store holding one million events, beside a plain
 * read of the session's latest events; and the file watcher's cost on a
 * tree of 100,000 files — descriptors, inotify watches and CPU while idle —
 * beside Deno's own recursive watcher on the same tree.
 */
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { normalizeHookPayload } from "../../src/agent/hooks/hook_normalizer.ts";
import type { HookEvent } from "../../src/model/agent_records.ts";
import { PerceptionEngine } from "../../src/perception/engine.ts";
import { watchProject } from "../../src/perception/file_watcher.ts";
import { insertHookEvent } from "../../src/store/agent/events.ts";
import { openDatabase, transaction } from "../../src/store/database.ts";
import { median, percentile, printTable } from "./stats.ts";
import { sqliteStore } from "../../src/store/store.ts";

function event(sessionId: string, project: string, i: number, ts: number): HookEvent {
  const kinds = ["PreToolUse", "PostToolUse", "UserPromptSubmit"];
  const kind = kinds[i % 3];
  const tool = i % 5 === 0 ? "Bash" : i % 5 === 1 ? "Edit" : "Read";
  const payload: Record<string, unknown> = {
    session_id: sessionId,
    cwd: project,
    hook_event_name: kind,
    ...(kind === "UserPromptSubmit" ? { prompt: `prompt ${i}` } : {
      tool_name: tool,
      tool_input: tool === "Bash"
        ? { command: `npm test -- case${i % 17}` }
        : tool === "Edit"
        ? { file_path: `${project}/src/f${i % 40}.ts`, old_string: `a${i}`, new_string: `b${i}` }
        : { file_path: `${project}/src/f${i % 40}.ts` },
      ...(kind === "PostToolUse" ? { tool_response: { success: true } } : {}),
    }),
  };
  const normalized = normalizeHookPayload("claude_code", payload, ts);
  if (!normalized.ok) throw new Error(normalized.reason);
  return normalized.event;
}

async function benchContext(total: number): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "vantage-bench-perception-" });
  const db = openDatabase(join(dir, "vantage.db"));
  const now = Date.now();
  const sessions = 1000;
  const fillStarted = performance.now();
  const batch = 20_000;
  let delivery = 0;
  for (let offset = 0; offset < total; offset += batch) {
    transaction(db, () => {
      for (let i = offset; i < Math.min(total, offset + batch); i++) {
        const session = i % sessions;
        // Spread over three days; the newest events are the last ones inserted.
        const ts = now - 3 * 86_400_000 + Math.floor((i / total) * 3 * 86_400_000);
        insertHookEvent(
          db,
          event(`s-${session}`, `/work/p${session % 50}`, i, ts),
          `d-${delivery++}`,
          ts,
        );
      }
    });
  }
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  const engine = new PerceptionEngine({
    store: sqliteStore(db),
    log: createLogger("bench", { minimum: "error" }),
    sensors: false,
  });
  const target = "s-7";
  const times: number[] = [];
  const reference: number[] = [];
  for (let i = 0; i < 300; i++) {
    const ts = Date.now();
    const e = event(target, "/work/p7", total + i, ts);
    insertHookEvent(db, e, `bench-${i}`, ts);
    const t0 = performance.now();
    engine.onHookEvent(e);
    times.push(performance.now() - t0);
    const t1 = performance.now();
    db.prepare("SELECT raw FROM events WHERE session_id = ? ORDER BY ts DESC LIMIT 50").all(target);
    reference.push(performance.now() - t1);
  }
  const warm = times.slice(20);
  console.log(
    `\ncontext answer per hook (${
      total.toLocaleString("en")
    } events in ${sessions} sessions; filled in ${fillSeconds.toFixed(1)} s)`,
  );
  printTable([
    ["work", "median ms", "p99 ms", "max ms"],
    [
      "read the session's latest 50 events (reference)",
      median(reference).toFixed(2),
      percentile(reference, 99).toFixed(2),
      Math.max(...reference).toFixed(2),
    ],
    [
      "rules + suppression + snapshot + render (first call cold)",
      median(warm).toFixed(2),
      percentile(warm, 99).toFixed(2),
      Math.max(...times).toFixed(2),
    ],
  ]);
  console.log("target: median under 10 ms, p99 under 100 ms");
  engine.close();
  db.close();
  await Deno.remove(dir, { recursive: true });
}

async function makeTree(root: string, files: number): Promise<number> {
  let dirs = 0;
  const perDir = 20;
  for (let i = 0; i < files / perDir; i++) {
    const dir = join(root, i % 2 === 0 ? "node_modules" : "src", `pkg${i % 97}`, `d${i}`);
    await Deno.mkdir(dir, { recursive: true });
    dirs++;
    for (let j = 0; j < perDir; j++) await Deno.writeTextFile(join(dir, `f${j}.ts`), "x");
  }
  return dirs;
}

function processStats(): { fds: number; watches: number; cpuTicks: number } {
  let fds = 0;
  let watches = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    fds++;
    try {
      const info = Deno.readTextFileSync(`/proc/self/fdinfo/${entry.name}`);
      watches += info.split("\n").filter((line) => line.startsWith("inotify wd:")).length;
    } catch {
      // Closed meanwhile.
    }
  }
  const stat = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
  return { fds, watches, cpuTicks: Number(stat[11]) + Number(stat[12]) };
}

async function idleTicks(seconds: number): Promise<number> {
  const before = processStats().cpuTicks;
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return processStats().cpuTicks - before;
}

async function benchWatcher(files: number): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "vantage-bench-tree-" });
  const dirs = await makeTree(root, files);
  const base = processStats();

  const started = performance.now();
  const watcher = await watchProject(root);
  const startMs = performance.now() - started;
  const ours = processStats();
  const oursIdle = await idleTicks(5);
  const stats = watcher.stats();
  watcher.close();
  await new Promise((resolve) => setTimeout(resolve, 200));

  const t0 = performance.now();
  const plain = Deno.watchFs(root, { recursive: true });
  const plainStart = performance.now() - t0;
  const theirs = processStats();
  const plainIdle = await idleTicks(5);
  plain.close();

  console.log(
    `\nfile watcher on ${
      files.toLocaleString("en")
    } files in ${dirs} folders (half under node_modules)`,
  );
  printTable([
    ["watcher", "added fds", "inotify watches", "start ms", "CPU ticks idle 5 s"],
    [
      "Deno.watchFs recursive (reference)",
      String(theirs.fds - base.fds),
      String(theirs.watches),
      plainStart.toFixed(0),
      String(plainIdle),
    ],
    [
      "vantage watchProject",
      String(ours.fds - base.fds),
      String(ours.watches),
      startMs.toFixed(0),
      String(oursIdle),
    ],
  ]);
  console.log(
    `watched ${stats.watched_dirs} folders (truncated: ${stats.truncated}); target: under 2,000 descriptors, idle CPU near zero`,
  );
  await Deno.remove(root, { recursive: true });
}

/** Runs the perception benchmarks. */
export async function benchPerception(): Promise<void> {
  await benchContext(Number(Deno.env.get("VANTAGE_BENCH_EVENTS") ?? 1_000_000));
  await benchWatcher(Number(Deno.env.get("VANTAGE_BENCH_TREE_FILES") ?? 100_000));
}
