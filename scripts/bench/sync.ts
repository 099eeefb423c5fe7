/**
 * Bulk sync throughput: a laptop store filled by `vantage ingest` from a
 * generated Claude Code corpus, pushed whole by `vantage sync` to a team
 * `serve` on SQLite and to one on PostgreSQL (a throwaway cluster, when
 * PostgreSQL is installed), beside two references measured in the same run on the
 * same store: the `vantage ingest` that filled it (the same records stored
 * from their transcripts), and `vantage sync` to a stand-in server that
 * only reads each batch and acknowledges it (what reading, encoding and
 * sending cost without the team server's validation and writes).
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { prng, writeClaudeTranscript, ZipfVocabulary } from "../lib/claude_corpus.ts";
import {
  POSTGRES_MISSING,
  type PostgresCluster,
  startPostgresClusterWith,
} from "../../tests/helpers/postgres_cluster.ts";
import { childEnv, denoDir, MAIN, startServe } from "./serve_process.ts";
import { printTable } from "./stats.ts";

interface Timed {
  seconds: number;
  // deno-lint-ignore no-explicit-any
  output: any;
}

async function timedCli(
  args: string[],
  env: Record<string, string>,
  paths: ReturnType<typeof resolvePaths> & { userHome: string },
): Promise<Timed> {
  const started = performance.now();
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissionFlags("cli", paths, []), MAIN, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  if (!output.success) {
    throw new Error(`vantage ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  return { seconds, output: JSON.parse(new TextDecoder().decode(output.stdout)) };
}

/** A server that answers `sync.hello` and acknowledges every push after reading it whole. */
function standIn(): { url: string; bytes: () => number; close(): Promise<void> } {
  let bytes = 0;
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    async (request) => {
      const body = new Uint8Array(await request.arrayBuffer());
      bytes += body.length;
      const id = new URL(request.url).pathname.replace("/api/ops/", "");
      if (id === "sync.hello") {
        return Response.json({
          result: { server_id: "stand-in", person: "bench", host: null, max_argument_chars: 0 },
        });
      }
      if (id === "sync.push_documents") {
        return Response.json({
          result: { added: 0, updated: 0, unchanged: 0, bytes: 0, refused: [], invalid: [] },
        });
      }
      return Response.json({
        result: {
          sessions_created: 0,
          events: 0,
          messages: 0,
          usage: 0,
          outcomes: 0,
          refused: 0,
          refused_sessions: [],
          invalid: [],
        },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    bytes: () => bytes,
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}

/** Issues the person token `name` with the real `vantage team add-user`, on `store` when given. */
async function addBenchUser(home: string, dataHome: string, store?: string): Promise<string> {
  const added = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "team", "add-user", "bench"],
    env: childEnv(home, dataHome, store),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!added.success) {
    throw new Error(`team add-user failed: ${new TextDecoder().decode(added.stderr)}`);
  }
  return new TextDecoder().decode(added.stdout).trim();
}

/**
 * Prints sync throughput beside its references. A team server on PostgreSQL is measured in the
 * same run on `cluster` when one is given, else on a throwaway cluster started here with
 * `settings` (none when PostgreSQL is not installed: SQLite's figures are printed alone).
 */
export async function benchSync(
  totalMb = 60,
  options: { cluster?: PostgresCluster; settings?: string[] } = {},
): Promise<void> {
  const work = await Deno.makeTempDir({ prefix: "vantage-bench-sync-" });
  const laptop = join(work, "laptop");
  const dataHome = join(laptop, ".vantage");
  const teamHome = join(work, "team");
  const teamData = join(teamHome, ".vantage");
  const dir = join(laptop, ".claude", "projects", "-work-bench");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.mkdir(teamHome, { recursive: true });
  const files = 6;
  let corpus = 0;
  const vocabulary = new ZipfVocabulary(50_000, prng(3));
  for (let i = 0; i < files; i++) {
    const stats = await writeClaudeTranscript(join(dir, `session-${i}.jsonl`), {
      sessionId: `session-${i}`,
      cwd: "/work/bench",
      targetBytes: (0.75 * totalMb * 1024 * 1024) / files,
      seed: i + 11,
      startMs: Date.now() - 10 * 86_400_000 + i * 86_400_000,
      vocabulary,
      subagentEvery: 15,
    });
    corpus += stats.bytes;
  }
  const base = { ...Deno.env.toObject(), DENO_DIR: denoDir() };
  const env = { ...base, HOME: laptop, VANTAGE_HOME: dataHome, VANTAGE_HOSTNAME: "bench-laptop" };
  const paths = { ...resolvePaths(dataHome), userHome: laptop };
  const stand = standIn();
  let team: Deno.ChildProcess | undefined;
  let pgTeam: Deno.ChildProcess | undefined;
  let ownCluster: PostgresCluster | undefined;
  try {
    const ingest = await timedCli(["ingest", "--json"], env, paths);
    const token = await addBenchUser(teamHome, teamData);
    const started = await startServe(teamHome, teamData);
    team = started.child;
    const teamUrl = `http://127.0.0.1:${started.port}`;
    const toStand = await timedCli(["sync", "--to", stand.url, "--json"], {
      ...env,
      VANTAGE_TEAM_TOKEN: token,
    }, paths);
    const toTeam = await timedCli(["sync", "--to", teamUrl, "--json"], {
      ...env,
      VANTAGE_TEAM_TOKEN: token,
    }, paths);
    let toPostgres: Timed | undefined;
    let cluster = options.cluster;
    if (cluster === undefined && POSTGRES_MISSING === undefined) {
      cluster = ownCluster = await startPostgresClusterWith({
        foreground: true,
        settings: options.settings ?? [],
      });
    }
    if (cluster !== undefined) {
      const store = await cluster.createDatabase("bench_sync");
      const pgHome = join(work, "team-postgres");
      const pgData = join(pgHome, ".vantage");
      await Deno.mkdir(pgHome, { recursive: true });
      const pgToken = await addBenchUser(pgHome, pgData, store);
      const pgStarted = await startServe(pgHome, pgData, store);
      pgTeam = pgStarted.child;
      toPostgres = await timedCli(
        ["sync", "--to", `http://127.0.0.1:${pgStarted.port}`, "--json"],
        {
          ...env,
          VANTAGE_TEAM_TOKEN: pgToken,
        },
        paths,
      );
    } else {
      console.log(`PostgreSQL skipped (SQLite measured alone): ${POSTGRES_MISSING}`);
    }
    const payload = toTeam.output.bytes as number;
    console.log(
      `\nbulk sync: ${
        (corpus / 1e6).toFixed(0)
      } MB of Claude Code transcripts in ${files} sessions ` +
        `and their sub-agents, ${ingest.output.messages} messages and ${ingest.output.usage_records} ` +
        `model calls, pushed as ${
          (payload / 1e6).toFixed(1)
        } MB in ${toTeam.output.batches} batches`,
    );
    const row = (name: string, run: Timed, bytes: number | undefined) => [
      name,
      run.seconds.toFixed(2),
      bytes === undefined ? "" : (bytes / 1e6 / run.seconds).toFixed(1),
      (corpus / 1e6 / run.seconds).toFixed(1),
    ];
    printTable([
      ["run (process, end to end)", "seconds", "pushed MB/s", "transcript MB/s"],
      row("vantage ingest of the transcripts (reference)", ingest, undefined),
      row("vantage sync → a server that only reads (reference)", toStand, stand.bytes()),
      row("vantage sync → team serve (SQLite)", toTeam, payload),
      ...(toPostgres === undefined
        ? []
        : [row("vantage sync → team serve (PostgreSQL)", toPostgres, toPostgres.output.bytes)]),
    ]);
    console.log(
      `stored on the team server: ${toTeam.output.stored.messages} messages, ` +
        `${toTeam.output.stored.usage} model calls; sync/ingest time ${
          (toTeam.seconds / ingest.seconds).toFixed(2)
        }×, team/stand-in ${(toTeam.seconds / toStand.seconds).toFixed(2)}×`,
    );
    if (toPostgres !== undefined) {
      console.log(
        `stored on the PostgreSQL team server: ${toPostgres.output.stored.messages} messages, ` +
          `${toPostgres.output.stored.usage} model calls; PostgreSQL/SQLite time ${
            (toPostgres.seconds / toTeam.seconds).toFixed(2)
          }×`,
      );
    }
  } finally {
    for (const child of [team, pgTeam]) {
      child?.kill("SIGTERM");
      await child?.status;
    }
    ownCluster?.stop();
    await stand.close();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
}
