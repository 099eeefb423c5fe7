/**
 * Team mode at scale, SQLite and PostgreSQL side by side in the same run
 * (`deno task bench team`):
 *
 * - 50 concurrent hook writers against a real `vantage serve` on each
 *   backend: each writer posts one person's hooks (`POST /api/hooks` with
 *   that person's token, its own session and host) one after another;
 *   hooks/s stored and the round trip's p50/p99, then every stored event
 *   counted in the store (each once);
 * - `search_sessions` at 1,000,000 messages and storage per million
 *   messages, and messages stored/s by `COPY` beside the row path
 *   (./team_search.ts).
 *
 * PostgreSQL is a throwaway cluster this process starts as its own child
 * (its own folder and loopback port, PostgreSQL's default durability:
 * fsync and synchronous commit on) and stops at the end; where PostgreSQL
 * is not installed, the bench says so in one line and measures SQLite only.
 * Every loop is bounded in hooks and seconds, and only reaches 127.0.0.1.
 */
import { join } from "node:path";
import postgres from "postgres";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { DatabaseSync } from "node:sqlite";
import {
  POSTGRES_MISSING,
  type PostgresCluster,
  startPostgresClusterWith,
} from "../../tests/helpers/postgres_cluster.ts";
import { childEnv, MAIN, startServe } from "./serve_process.ts";
import { percentile, printTable } from "./stats.ts";
import { benchSync } from "./sync.ts";
import { benchTeamSearch } from "./team_search.ts";

/** Concurrent hook writers, as the issue asks. */
const WRITERS = 50;
/** Each backend's writers stop after this long, or after HOOKS_PER_WRITER hooks each. */
const SECONDS = 10;
const HOOKS_PER_WRITER = 400;

/**
 * The bench cluster's settings, after the test cluster's: PostgreSQL's default durability (the
 * test cluster turns it off), and memory for a 1M-message load on this 24 GB machine.
 */
export const BENCH_SETTINGS: string[] = [
  "fsync=on",
  "synchronous_commit=on",
  "full_page_writes=on",
  "shared_buffers=1GB",
  "maintenance_work_mem=512MB",
  "work_mem=32MB",
  "max_wal_size=8GB",
];

/** A backend the bench runs on: its name and the store URL serve gets (none: SQLite). */
interface Backend {
  name: string;
  store?: string;
}

/** Runs the team-mode benchmarks. */
export async function benchTeam(): Promise<void> {
  let cluster: PostgresCluster | undefined;
  if (POSTGRES_MISSING !== undefined) {
    console.log(`PostgreSQL skipped (SQLite measured alone): ${POSTGRES_MISSING}`);
  } else {
    cluster = await startPostgresClusterWith({ foreground: true, settings: BENCH_SETTINGS });
    const version = await serverVersion(cluster.url("postgres"));
    console.log(`PostgreSQL ${version}, a throwaway cluster on 127.0.0.1:${cluster.port}`);
  }
  try {
    const backends: Backend[] = [{ name: "SQLite" }];
    if (cluster !== undefined) {
      backends.push({ name: "PostgreSQL", store: await cluster.createDatabase("bench_hooks") });
    }
    await benchHookWriters(backends);
    await benchTeamSearch(cluster);
    // Bulk sync to a team server on each backend, on the same cluster.
    await benchSync(60, { cluster, settings: BENCH_SETTINGS });
  } finally {
    cluster?.stop();
  }
}

async function serverVersion(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return String((await sql`SELECT current_setting('server_version') AS v`)[0].v);
  } finally {
    await sql.end();
  }
}

/** Issues a person token with the real `vantage team add-user`, on `store` (or the data home). */
async function addUser(home: string, dataHome: string, name: string, store?: string) {
  const paths = { ...resolvePaths(dataHome), userHome: home };
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags("cli", paths, [], store), MAIN, "team", "add-user", name],
    env: childEnv(home, dataHome, store),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`team add-user failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return new TextDecoder().decode(output.stdout).trim();
}

interface WritersResult {
  stored: number;
  failures: number;
  /** What the first failed hook got back. */
  firstFailure?: string;
  seconds: number;
  latencies: number[];
}

/** A Claude Code hook payload of writer `w`'s session, its `i`-th. */
function payload(w: number, i: number): string {
  const pre = i % 2 === 0;
  return JSON.stringify({
    session_id: `team-bench-${w}`,
    transcript_path: `/home/dev${w}/.claude/projects/-work-app/team-bench-${w}.jsonl`,
    cwd: `/work/app-${w % 10}`,
    hook_event_name: pre ? "PreToolUse" : "PostToolUse",
    tool_name: "Bash",
    tool_input: { command: `npm test -- --grep case-${i}`, description: "Run the tests" },
    ...(pre ? {} : { tool_response: { stdout: `ok ${i}\n`, stderr: "", exitCode: 0 } }),
  });
}

/** WRITERS loops, each posting its person's hooks one after another until the bounds. */
async function runWriters(url: string, tokens: string[]): Promise<WritersResult> {
  const latencies: number[] = [];
  let stored = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  const fail = (why: string) => {
    failures++;
    firstFailure ??= why;
  };
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const writer = async (w: number) => {
    for (let i = 0; i < HOOKS_PER_WRITER && performance.now() < deadline; i++) {
      const t0 = performance.now();
      try {
        const response = await fetch(`${url}/api/hooks`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${tokens[w % tokens.length]}`,
            "x-vantage-agent": "claude_code",
            "x-vantage-host": `dev${w}-laptop`,
          },
          body: payload(w, i),
        });
        const text = await response.text();
        if (response.ok && JSON.parse(text).stored === true) stored++;
        else fail(`HTTP ${response.status} ${text.slice(0, 300)}`);
      } catch (error) {
        fail(error instanceof Error ? error.message : String(error));
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  return {
    stored,
    failures,
    firstFailure,
    seconds: (performance.now() - started) / 1000,
    latencies,
  };
}

/** Hook events of the writers' sessions in the store behind serve (read after it stopped). */
async function storedEvents(dataHome: string, store?: string): Promise<number> {
  const sql = "SELECT count(*) AS n FROM events WHERE session_id LIKE 'team-bench-%'";
  if (store === undefined) {
    const db = new DatabaseSync(resolvePaths(dataHome).database, { readOnly: true });
    try {
      return Number(db.prepare(sql).get()!.n);
    } finally {
      db.close();
    }
  }
  const client = postgres(store, { max: 1, onnotice: () => {} });
  try {
    return Number((await client.unsafe(sql))[0].n);
  } finally {
    await client.end();
  }
}

async function benchHookWriters(backends: Backend[]): Promise<void> {
  const rows: string[][] = [[
    "serve on",
    "hooks stored",
    "failed",
    "hooks/s",
    "p50 ms",
    "p99 ms",
    "max ms",
    "events in store",
  ]];
  const failures: string[] = [];
  for (const backend of backends) {
    const home = await Deno.makeTempDir({ prefix: "vantage-bench-team-" });
    const dataHome = join(home, ".vantage");
    try {
      // Five people, ten writers (sessions, hosts) each: tokens as a team would hold them.
      const tokens: string[] = [];
      for (let p = 0; p < 5; p++) {
        tokens.push(await addUser(home, dataHome, `dev${p}`, backend.store));
      }
      const server = await startServe(home, dataHome, backend.store);
      const url = `http://127.0.0.1:${server.port}`;
      let result: WritersResult;
      try {
        // Warm up every path (the token cache, the pool's connections, the rules) first.
        const warm = await fetch(`${url}/api/hooks`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: `Bearer ${tokens[0]}`,
            "x-vantage-agent": "claude_code",
          },
          body: JSON.stringify({ session_id: "warm-up", hook_event_name: "SessionStart" }),
        });
        await warm.arrayBuffer();
        result = await runWriters(url, tokens);
      } finally {
        server.child.kill("SIGTERM");
        await server.child.status;
      }
      const events = await storedEvents(dataHome, backend.store);
      if (result.firstFailure !== undefined) {
        failures.push(`${backend.name}, first failed hook: ${result.firstFailure}`);
      }
      rows.push([
        backend.name,
        String(result.stored),
        String(result.failures),
        (result.stored / result.seconds).toFixed(0),
        percentile(result.latencies, 50).toFixed(1),
        percentile(result.latencies, 99).toFixed(1),
        Math.max(...result.latencies).toFixed(1),
        events === result.stored ? `${events} (each once)` : `${events} (MISMATCH)`,
      ]);
    } finally {
      await Deno.remove(home, { recursive: true }).catch(() => {});
    }
  }
  console.log(
    `\n${WRITERS} concurrent hook writers (5 people's tokens, one session and host each) on ` +
      `a real serve, at most ${SECONDS} s or ${HOOKS_PER_WRITER} hooks per writer`,
  );
  printTable(rows);
  for (const line of failures) console.log(line);
}

if (import.meta.main) await benchTeam();
