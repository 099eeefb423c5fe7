/**
 * Puts what the sensors would have recorded into a store a running server
 * uses — anomalies and build runs, timed now — so the dashboard has every
 * kind of item to show. Written straight to SQLite like any second process
 * (WAL lets it beside the server's own connection).
 */
import { DatabaseSync } from "node:sqlite";

/** Inserts two anomalies on `sessionId` and a failing and a passing build in `project`. */
export function seedPerception(databasePath: string, sessionId: string, project: string): void {
  const db = new DatabaseSync(databasePath, { timeout: 5000 });
  try {
    const now = Date.now();
    const anomaly = db.prepare(
      `INSERT INTO anomalies (session_id, project, kind, severity, channel, fingerprint, evidence,
         suggestion, related_files, first_emitted_at, last_emitted_at, emit_count)
       VALUES (?, ?, ?, ?, 'next_prompt', ?, ?, ?, ?, ?, ?, ?)`,
    );
    anomaly.run(
      sessionId,
      project,
      "repeated_command_failure",
      "warning",
      "ls-missing-dir",
      "`ls missing-dir` failed 3 times in a row with the same error (exit 2: No such file or directory).",
      "Check that the folder exists (ls -la) before listing it again, or create it.",
      JSON.stringify([`${project}/missing-dir`]),
      now - 120_000,
      now - 60_000,
      3,
    );
    anomaly.run(
      sessionId,
      project,
      "stale_file_view",
      "info",
      "hello-stale",
      "hello.txt changed on disk after the agent last read it.",
      "Read hello.txt again before editing it.",
      JSON.stringify([`${project}/hello.txt`]),
      now - 90_000,
      now - 30_000,
      1,
    );
    const build = db.prepare(
      `INSERT INTO build_runs (tag, command, cwd, project, started_at, duration_ms, exit_code, errors, output_tail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, '')`,
    );
    build.run("test", "deno test", project, project, now - 300_000, 8_400, 0, "[]");
    build.run(
      "check",
      "deno check main.ts",
      project,
      project,
      now - 45_000,
      2_100,
      1,
      JSON.stringify([{
        message: "TS2322: Type 'string' is not assignable to type 'number'.",
        file: "src/app.ts",
        line: 12,
      }]),
    );
  } finally {
    db.close();
  }
}
