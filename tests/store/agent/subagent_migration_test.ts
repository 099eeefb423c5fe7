/**
 * Migration 15 on a store written before sub-agents had sessions of their own: the Claude
 * Code fixtures are stored the old way (a sub-agent's messages and usage under its parent,
 * its own row empty, no link, every file read to its end), then migrated; once the files the
 * migration asks to read again are read, it must match a store the current code wrote.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { ingestTranscriptFile } from "../../../src/agent/transcripts/transcript_ingester.ts";
import { findTranscriptFiles } from "../../../src/agent/transcripts/transcript_tailer.ts";
import { transcriptSources } from "../../../src/agent/transcripts/transcript_paths.ts";
import { migrate, openDatabase } from "../../../src/store/database.ts";
import { MIGRATIONS } from "../../../src/store/migrations.ts";
import { makeAgentHome } from "../../helpers/agent_home.ts";

const COUNTERS = `message_count, tool_calls, input_tokens, output_tokens, cache_read_tokens,
  cache_write_tokens, reasoning_tokens, cost_usd`;
const FACTS =
  `session_id, agent, cwd, project, started_at, last_activity_at, model, git_branch, title,
  parent_session_id, transcript_path, has_hooks, event_count, tool_failures, context_tokens,
  context_window`;

/** What the old code stored for the same files, derived from what the new code stored. */
function writeOldShape(from: DatabaseSync, to: DatabaseSync): void {
  const subagents = new Map(
    (from.prepare("SELECT session_id, parent_session_id FROM sessions WHERE is_subagent = 1")
      .all() as Array<{ session_id: string; parent_session_id: string }>).map((
        row,
      ) => [row.session_id, row.parent_session_id]),
  );
  for (const row of from.prepare(`SELECT ${FACTS}, ${COUNTERS} FROM sessions`).all()) {
    const old = { ...row } as Record<string, string | number | null>;
    if (subagents.has(String(row.session_id))) {
      // Only the facts of its own file: no counts, no title or type from the parent.
      for (const key of COUNTERS.split(",").map((k) => k.trim())) old[key] = 0;
      old.last_activity_at = old.started_at;
      old.title = null;
    }
    const keys = Object.keys(old);
    to.prepare(
      `INSERT INTO sessions (${keys.join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`,
    ).run(...keys.map((k) => old[k]));
  }
  const parentOf = (id: string) => subagents.get(id) ?? id;
  for (const row of from.prepare("SELECT * FROM messages ORDER BY id").all()) {
    const old = { ...row, session_id: parentOf(String(row.session_id)) } as Record<
      string,
      string | number | null
    >;
    const keys = Object.keys(old);
    to.prepare(
      `INSERT INTO messages (${keys.join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`,
    ).run(...keys.map((k) => old[k]));
  }
  for (const row of from.prepare("SELECT * FROM transcript_files").all()) {
    const keys = Object.keys(row);
    to.prepare(
      `INSERT INTO transcript_files (${keys.join(", ")}) VALUES (${
        keys.map(() => "?").join(", ")
      })`,
    ).run(...keys.map((k) => (row as Record<string, string | number | null>)[k]));
  }
  // The old table has only the columns its version had (later migrations add more).
  const usageColumns = new Set(
    to.prepare("SELECT name FROM pragma_table_info('usage')").all().map((r) => String(r.name)),
  );
  for (const row of from.prepare("SELECT * FROM usage").all()) {
    const old = { ...row, session_id: parentOf(String(row.session_id)) } as Record<
      string,
      string | number | null
    >;
    const keys = Object.keys(old).filter((key) => usageColumns.has(key));
    to.prepare(
      `INSERT INTO usage (${keys.join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`,
    ).run(...keys.map((k) => old[k]));
  }
}

function snapshot(db: DatabaseSync) {
  return {
    sessions: db.prepare(
      `SELECT session_id, parent_session_id, is_subagent, subagent_type, title, started_at,
         last_activity_at, message_count, tool_calls, input_tokens, output_tokens, cache_read_tokens,
         cache_write_tokens, round(cost_usd, 9) AS cost_usd
       FROM sessions ORDER BY session_id`,
    ).all(),
    messages: db.prepare("SELECT id, session_id, message_key FROM messages ORDER BY id").all(),
    usage: db.prepare("SELECT usage_key, session_id FROM usage ORDER BY usage_key").all(),
  };
}

Deno.test("migration 15 gives stored sub-agents their own records and counts", async () => {
  const home = await makeAgentHome();
  const fresh = openDatabase(join(home.dataHome, "fresh.db"));
  const old = new DatabaseSync(join(home.dataHome, "old.db"));
  try {
    const sources = transcriptSources(home.home).filter((s) => s.agent === "claude_code");
    const files = findTranscriptFiles(sources).map((f) => f.path).sort();
    assert.equal(files.length, 6);
    for (const path of files) await ingestTranscriptFile(fresh, path, "claude_code");

    migrate(old, MIGRATIONS.filter((step) => step.version <= 14));
    writeOldShape(fresh, old);
    const before = old.prepare(
      "SELECT count(*) AS n FROM sessions WHERE message_count = 0 AND session_id LIKE '%/agent-%'",
    ).get() as { n: number };
    assert.equal(before.n, 4, "four empty sub-agent rows before");

    // Migration 15 forgets where reading stopped in the parents only (they name their
    // sub-agents' types and tasks); a later migration (17) reads every Claude file again.
    const cursors = () =>
      old.prepare("SELECT path FROM transcript_files ORDER BY path").all().map((r) =>
        String(r.path).slice(String(r.path).lastIndexOf("/") + 1)
      );
    const allCursors = cursors();
    migrate(old, MIGRATIONS.filter((step) => step.version <= 15));
    const forgotten = allCursors.filter((name) => !cursors().includes(name));
    assert.deepEqual(forgotten.sort(), [
      "5f3c9e2a-7b41-4d8e-9a10-3c2b8e6d4f71.jsonl",
      "843adfa2-d81e-4a0f-a04c-dee7a420fb51.jsonl",
    ]);
    migrate(old, MIGRATIONS);
    const reread = [];
    for (const path of files) {
      const counts = await ingestTranscriptFile(old, path, "claude_code");
      if (counts.lines > 0) reread.push(path.slice(path.lastIndexOf("/") + 1));
    }
    assert.equal(reread.length, files.length);
    // Reading them again counted nothing twice: the records equal a fresh ingest.
    assert.deepEqual(snapshot(old), snapshot(fresh));
    // The compaction agent is known by its id alone.
    assert.deepEqual(
      old.prepare("SELECT session_id FROM sessions WHERE subagent_type = 'compact'").all().map((
        r,
      ) => r.session_id),
      ["5f3c9e2a-7b41-4d8e-9a10-3c2b8e6d4f71/agent-acompact-5e91b2"],
    );
  } finally {
    fresh.close();
    old.close();
    await home.cleanup();
  }
});
