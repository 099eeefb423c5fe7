/**
 * The query runner on its own, with real query processes over a real
 * SQLite file: a warm process is reused, a runaway one is killed and
 * replaced, overlapping queries get their own processes, and SQLite's
 * refusals come back as `invalid_arguments` in its own words.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { VantageError } from "../../../src/core/errors.ts";
import { QueryRunner } from "../../../src/store/query/readonly_query.ts";
import { readStat } from "../../helpers/process_tree.ts";

const RUNAWAY =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";
const CAPS = { tables: ["notes"], rowLimit: 100, cellChars: 200 };

async function store(): Promise<{ path: string; remove(): Promise<void> }> {
  const folder = await Deno.makeTempDir({ prefix: "vantage-query-" });
  const path = join(folder, "vantage.db");
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, data BLOB)");
  const insert = db.prepare("INSERT INTO notes (body, data) VALUES (?, ?)");
  for (let i = 1; i <= 5; i++) insert.run(`note ${i} ${"é".repeat(i * 100)}`, new Uint8Array(i));
  db.close();
  return { path, remove: () => Deno.remove(folder, { recursive: true }) };
}

function count(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM notes").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** True once `pid` has exited (a zombie not yet reaped counts: it runs nothing). */
function gone(pid: number): boolean {
  const stat = readStat(pid);
  return stat === undefined || stat.state === "Z";
}

async function rejected(promise: Promise<unknown>): Promise<VantageError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof VantageError, String(error));
    return error;
  }
  assert.fail("the query was expected to fail");
}

Deno.test("query runner: caps, one warm process reused, refusals in SQLite's words", async () => {
  const { path, remove } = await store();
  const runner = new QueryRunner({ databasePath: path, timeoutMs: 10_000 });
  try {
    assert.deepEqual(runner.pids, [], "no process before the first query");
    const grid = await runner.run("SELECT id, body, data FROM notes ORDER BY id", {
      tables: ["notes"],
      rowLimit: 3,
      cellChars: 120,
    });
    assert.deepEqual(grid.columns, ["id", "body", "data"]);
    assert.equal(grid.row_count, 3);
    assert.equal(grid.truncated, true);
    assert.equal(grid.cells_truncated, true);
    assert.equal(grid.rows[0][0], 1);
    assert.equal(grid.rows[0][1], `note 1 ${"é".repeat(100)}`);
    assert.equal(grid.rows[1][1], `note 2 ${"é".repeat(113)}…`);
    assert.equal(grid.rows[2][2], "<blob 3 bytes>");
    const [warm] = runner.pids;
    assert.equal(runner.pids.length, 1);

    const again = await runner.run("SELECT count(*) AS n FROM notes -- all of them", CAPS);
    assert.deepEqual(again.rows, [[5]]);
    assert.equal(again.truncated, false);
    assert.deepEqual(runner.pids, [warm], "the warm process answered again");

    const refusals: Array<[string, RegExp]> = [
      ["DELETE FROM notes", /only one SELECT statement is accepted; this one starts with 'DELETE'/],
      ["SELECT 1; DELETE FROM notes", /only one statement is accepted/],
      ["WITH x AS (SELECT 1) DELETE FROM notes RETURNING id", /DELETE is not allowed in a query/],
      ["SELECT * FROM notes WHERE", /incomplete input|syntax error/],
      ["SELECT colour FROM notes", /no such column: colour/],
      ["SELECT * FROM missing", /no such table: missing/],
    ];
    for (const [sql, message] of refusals) {
      const error = await rejected(runner.run(sql, CAPS));
      assert.equal(error.kind, "invalid_arguments", sql);
      assert.match(error.message, /^query refused: /, sql);
      assert.match(error.message, message, sql);
    }
    assert.equal(count(path), 5, "nothing was written");
    assert.deepEqual(runner.pids, [warm], "a refusal does not cost the process");
  } finally {
    await runner.close();
    await remove();
  }
});

Deno.test("query runner: a runaway query is killed at its deadline, a neighbour answered, the process replaced", async () => {
  const { path, remove } = await store();
  const runner = new QueryRunner({ databasePath: path, timeoutMs: 1000, maxProcesses: 2 });
  try {
    await runner.run("SELECT 1", CAPS);
    const [warm] = runner.pids;
    const started = performance.now();
    const runaway = rejected(runner.run(RUNAWAY, CAPS));
    // The warm process took the runaway query: this one gets a second process. Starting one can
    // take over a second on a loaded machine, so its own deadline is longer than the runaway's.
    const beside = await runner.run("SELECT count(*) FROM notes", { ...CAPS, timeoutMs: 20_000 });
    assert.deepEqual(beside.rows, [[5]]);
    assert.equal(runner.pids.length, 2);
    const error = await runaway;
    const ms = performance.now() - started;
    assert.equal(error.kind, "timeout");
    assert.deepEqual(error.details, { timeout_ms: 1000 });
    assert.match(error.message, /did not finish within 1000 ms and was stopped/);
    assert.ok(ms >= 950 && ms < 6000, `answered after ${ms} ms`);
    assert.ok(!runner.pids.includes(warm), "the killed process left the pool");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(gone(warm), `process ${warm} still runs`);

    const next = await runner.run("SELECT 2", CAPS);
    assert.deepEqual(next.rows, [[2]]);
    assert.equal(runner.pids.length, 1, "the surviving process answered");
  } finally {
    await runner.close();
    await remove();
  }
});

Deno.test("query runner: a full pool makes a query wait; the killed process is replaced for it", async () => {
  const { path, remove } = await store();
  const runner = new QueryRunner({ databasePath: path, timeoutMs: 800, maxProcesses: 1 });
  try {
    const runaway = rejected(runner.run(RUNAWAY, CAPS));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [first] = runner.pids;
    // Its own deadline is longer than the runaway's, so it outlives the wait.
    const waiting = runner.run("SELECT max(id) FROM notes", { ...CAPS, timeoutMs: 20_000 });
    assert.equal((await runaway).kind, "timeout");
    assert.deepEqual((await waiting).rows, [[5]]);
    assert.equal(runner.pids.length, 1);
    assert.notEqual(runner.pids[0], first, "a new process answered");
  } finally {
    await runner.close();
    await remove();
  }
});

Deno.test("query runner: an aborted call kills its query; extra idle processes are stopped", async () => {
  const { path, remove } = await store();
  // Long enough that, on a loaded machine, no process has been idle that long by the time the
  // slowest of the three has started and answered.
  const idleMs = 3000;
  const runner = new QueryRunner({ databasePath: path, timeoutMs: 20_000, idleMs });
  try {
    await Promise.all([
      runner.run("SELECT 1", CAPS),
      runner.run("SELECT 2", CAPS),
      runner.run("SELECT 3", CAPS),
    ]);
    assert.equal(runner.pids.length, 3, "overlapping queries got a process each");
    await new Promise((resolve) => setTimeout(resolve, idleMs + 600));
    assert.equal(runner.pids.length, 1, "one process stays warm, the others were stopped");

    const [warm] = runner.pids;
    const controller = new AbortController();
    const cancelled = runner.run(RUNAWAY, CAPS, controller.signal);
    setTimeout(() => controller.abort(new VantageError("timeout", "the caller gave up")), 300);
    await assert.rejects(cancelled, /the caller gave up/);
    assert.deepEqual(runner.pids, []);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(gone(warm), `process ${warm} still runs`);
  } finally {
    await runner.close();
    await remove();
  }
});

Deno.test("query runner: a process that cannot start or dies says so; a closed runner refuses", async () => {
  const { path, remove } = await store();
  const missing = new QueryRunner({
    databasePath: path,
    command: { program: join(path, "no-such-program"), args: [] },
  });
  const dying = new QueryRunner({
    databasePath: path,
    command: {
      program: Deno.execPath(),
      args: ["eval", "console.error('cannot open the store'); Deno.exit(3)"],
    },
  });
  try {
    const notStarted = await rejected(missing.run("SELECT 1", CAPS));
    assert.equal(notStarted.kind, "unavailable");
    assert.match(notStarted.message, /the query process could not be started/);

    const died = await rejected(dying.run("SELECT 1", CAPS));
    assert.equal(died.kind, "internal_error");
    assert.match(died.message, /stopped before answering \(exit code 3: cannot open the store\)/);
    assert.deepEqual(dying.pids, []);

    await missing.close();
    const closed = await rejected(missing.run("SELECT 1", CAPS));
    assert.equal(closed.kind, "unavailable");
    assert.match(closed.message, /closed/);
  } finally {
    await missing.close();
    await dying.close();
    await remove();
  }
});

Deno.test("the query process loads nothing but its own module, its watchdog's and node:sqlite", async () => {
  const graph = async (module: string) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", module],
      cwd: new URL("../../..", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
      modules: Array<{ specifier: string }>;
    };
    return info.modules.map((m) => m.specifier.replace(/^file:.*\/src\//, "src/")).sort();
  };
  // The watchdog's module is a type-only import here, loaded by the watchdog's worker; it imports
  // nothing itself, so the process reads no other file of Vantage's.
  assert.deepEqual(await graph("src/store/query/readonly_query_process.ts"), [
    "node:sqlite",
    "src/store/query/query_watchdog_worker.ts",
    "src/store/query/readonly_query_process.ts",
  ]);
  assert.deepEqual(await graph("src/store/query/query_watchdog_worker.ts"), [
    "src/store/query/query_watchdog_worker.ts",
  ]);
  // The compiled executable's entry to it; command.ts is a type-only import, gone at run time.
  assert.deepEqual(await graph("src/cli/query_worker.ts"), [
    "node:sqlite",
    "node:util",
    "src/cli/command.ts",
    "src/cli/output.ts",
    "src/cli/query_worker.ts",
    "src/core/errors.ts",
    "src/store/query/query_watchdog_worker.ts",
    "src/store/query/readonly_query_process.ts",
  ]);
});

Deno.test("without --allow-run for Deno, a query says which permission to grant", async () => {
  const { path, remove } = await store();
  const repo = new URL("../../..", import.meta.url).pathname;
  const script = join(path, "..", "no_run.ts");
  await Deno.writeTextFile(
    script,
    `import { QueryRunner } from ${JSON.stringify(`${repo}src/store/query/readonly_query.ts`)};
const runner = new QueryRunner({ databasePath: ${JSON.stringify(path)} });
try {
  await runner.run("SELECT 1", { tables: [], rowLimit: 1, cellChars: 100 });
  console.log("{}");
} catch (error) {
  console.log(JSON.stringify({ kind: error.kind, message: error.message }));
}
`,
  );
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", `--allow-read=${repo},${path}`, script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const error = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(error.kind, "unavailable");
    assert.equal(
      error.message,
      `queries run in a separate process (so one past its time limit can be stopped), and starting ${Deno.execPath()} was refused: allow it with --allow-run=${Deno.execPath()}`,
    );
  } finally {
    await remove();
  }
});

Deno.test("a query process whose parent was killed mid-query stops itself", async () => {
  const { path, remove } = await store();
  const repo = new URL("../../..", import.meta.url).pathname;
  const script = join(path, "..", "parent.ts");
  await Deno.writeTextFile(
    script,
    `import { QueryRunner } from ${JSON.stringify(`${repo}src/store/query/readonly_query.ts`)};
const runner = new QueryRunner({ databasePath: ${JSON.stringify(path)}, timeoutMs: 60000 });
runner.run(${JSON.stringify(RUNAWAY)}, { tables: [], rowLimit: 1, cellChars: 100 }).catch(() => {});
await new Promise((resolve) => setTimeout(resolve, 1000));
console.log(JSON.stringify(runner.pids));
// Nobody is left to kill the query's process at its deadline.
Deno.kill(Deno.pid, "SIGKILL");
`,
  );
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-config", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.signal, "SIGKILL", new TextDecoder().decode(output.stderr));
    const [orphan] = JSON.parse(new TextDecoder().decode(output.stdout)) as number[];
    assert.ok(orphan > 0);
    const deadline = Date.now() + 5000;
    while (!gone(orphan) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(gone(orphan), `the orphaned query process ${orphan} still runs`);
  } finally {
    await remove();
  }
});
