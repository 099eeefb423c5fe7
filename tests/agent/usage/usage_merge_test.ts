/**
 * A model call's usage in the store ends at its final figures however its transcript lines
 * arrive: one read, split across tail reads, across a restart with saved parser state, or read
 * again from the start without it. Real node:sqlite, real files, the real ingester.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingestTranscriptFile } from "../../../src/agent/transcripts/transcript_ingester.ts";
import { TranscriptTailer } from "../../../src/agent/transcripts/transcript_tailer.ts";
import { syncStoredPrices } from "../../../src/agent/usage/usage_pricing.ts";
import { type DatabaseSync, openDatabase } from "../../../src/store/database.ts";
import { MIGRATIONS } from "../../../src/store/migrations.ts";

const SESSION = "5e55a0n0-0000-4000-8000-000000000001";

interface Call {
  id: string;
  model: string;
  /** Output tokens of each line the answer is written as; the last is the final count. */
  outputs: number[];
  input?: number;
  write1h?: number;
  at: string;
}

function callLines(call: Call): string[] {
  return call.outputs.map((output, i) =>
    JSON.stringify({
      type: "assistant",
      uuid: `${call.id}-${i}`,
      parentUuid: null,
      sessionId: SESSION,
      requestId: `req_${call.id}`,
      cwd: "/p",
      timestamp: call.at,
      message: {
        id: `msg_${call.id}`,
        type: "message",
        role: "assistant",
        model: call.model,
        content: [{ type: "text", text: `block ${i}` }],
        usage: {
          input_tokens: call.input ?? 10,
          output_tokens: output,
          cache_creation_input_tokens: call.write1h ?? 0,
          cache_read_input_tokens: 1000,
          cache_creation: {
            ephemeral_5m_input_tokens: 0,
            ephemeral_1h_input_tokens: call.write1h ?? 0,
          },
          service_tier: "standard",
        },
      },
    })
  );
}

const SNAPSHOT = JSON.stringify({
  type: "file-history-snapshot",
  messageId: "m0",
  snapshot: { messageId: "m0", trackedFileBackups: {}, timestamp: "2026-11-20T09:59:00.000Z" },
  isSnapshotUpdate: false,
});

const CALLS: Call[] = [
  {
    id: "a",
    model: "claude-sonnet-4-6",
    outputs: [10, 10, 299],
    write1h: 1_000_000,
    at: "2026-11-20T10:00:00.000Z",
  },
  { id: "b", model: "claude-sonnet-4-6", outputs: [3, 120], at: "2026-11-20T10:01:00.000Z" },
  { id: "c", model: "local-llama-70b", outputs: [5, 40], at: "2026-11-20T10:02:00.000Z" },
];

// The final figures: output 299 + 120 + 40, input 30, reads 3000, 1-hour writes 1M.
const FINAL = { input: 30, output: 459, read: 3000, write: 1_000_000 };
// Sonnet 4.6: 20×3 + 419×15 + 2000×0.3 + 1M×6 (1-hour) per million; the llama is unpriced.
const FINAL_COST = (20 * 3 + 419 * 15 + 2000 * 0.3 + 1_000_000 * 6) / 1e6;

function sessionRow(db: DatabaseSync) {
  return db.prepare(
    `SELECT input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
       unpriced_calls, started_at FROM sessions WHERE session_id = ?`,
  ).get(SESSION) as Record<string, number>;
}

function assertFinal(db: DatabaseSync, label: string): void {
  const row = sessionRow(db);
  assert.deepEqual(
    [row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens],
    [FINAL.input, FINAL.output, FINAL.read, FINAL.write],
    label,
  );
  assert.ok(Math.abs(row.cost_usd - FINAL_COST) < 1e-9, `${label}: cost ${row.cost_usd}`);
  assert.equal(row.unpriced_calls, 1, label);
  assert.equal(row.started_at, Date.parse("2026-11-20T09:59:00.000Z"), label);
  const usage = db.prepare(
    "SELECT usage_key, output_tokens, priced FROM usage ORDER BY usage_key",
  ).all() as Array<{ usage_key: string; output_tokens: number; priced: number }>;
  assert.deepEqual(
    usage.map((u) => [u.usage_key, u.output_tokens, u.priced]),
    [["msg_a:req_a", 299, 1], ["msg_b:req_b", 120, 1], ["msg_c:req_c", 40, 0]],
    label,
  );
}

async function withStore(
  work: (db: DatabaseSync, file: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync("/tmp/vantage-usage-merge-");
  const db = openDatabase(join(dir, "vantage.db"));
  try {
    await work(db, join(dir, `${SESSION}.jsonl`), dir);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ALL = [SNAPSHOT, ...CALLS.flatMap(callLines)];

Deno.test("usage merge: one read of the whole file stores every call's final figures", async () => {
  await withStore(async (db, file) => {
    writeFileSync(file, ALL.join("\n") + "\n");
    const counts = await ingestTranscriptFile(db, file, "claude_code");
    assert.equal(counts.usage, 3);
    assertFinal(db, "one read");
  });
});

Deno.test("usage merge: a message split across tail reads and a restart ends at its final figures", async () => {
  await withStore(async (db, file) => {
    // Each append is read by its own pass, whose parser resumes from the saved state: every
    // cut falls inside a message, and nothing is counted twice or left partial.
    const cuts = [2, 3, 5, 6, ALL.length];
    let done = 0;
    writeFileSync(file, "");
    for (const cut of cuts) {
      appendFileSync(file, ALL.slice(done, cut).map((line) => line + "\n").join(""));
      done = cut;
      await ingestTranscriptFile(db, file, "claude_code");
    }
    assertFinal(db, "split reads");
    // Half a line (the writer has not finished it) waits for the rest.
    const extra = callLines({
      id: "d",
      model: "claude-sonnet-4-6",
      outputs: [1, 50],
      at: "2026-11-20T10:03:00.000Z",
    });
    appendFileSync(file, extra[0] + "\n" + extra[1].slice(0, 40));
    await ingestTranscriptFile(db, file, "claude_code");
    const partial = db.prepare("SELECT output_tokens FROM usage WHERE usage_key = 'msg_d:req_d'")
      .get() as { output_tokens: number };
    assert.equal(partial.output_tokens, 1);
    appendFileSync(file, extra[1].slice(40) + "\n");
    await ingestTranscriptFile(db, file, "claude_code");
    const row = sessionRow(db);
    assert.equal(row.output_tokens, FINAL.output + 50);
  });
});

Deno.test("usage merge: an old partial line repeated much later does not lower a call", async () => {
  await withStore(async (db, file) => {
    // 150 calls in between push the call out of the parser's window of recent calls, so the
    // repeated partial line is reported again; in the same batch or the store, the larger wins.
    const between = Array.from({ length: 150 }, (_, i) =>
      callLines({
        id: `x${i}`,
        model: "claude-sonnet-4-6",
        outputs: [1],
        at: "2026-11-20T10:05:00.000Z",
      })[0]);
    const repeated = callLines(CALLS[0])[0];
    writeFileSync(file, [...ALL, ...between, repeated].join("\n") + "\n");
    await ingestTranscriptFile(db, file, "claude_code");
    const row = db.prepare("SELECT output_tokens FROM usage WHERE usage_key = 'msg_a:req_a'")
      .get() as { output_tokens: number };
    assert.equal(row.output_tokens, 299);
    assert.equal(sessionRow(db).output_tokens, FINAL.output + 150);
  });
});

Deno.test("usage merge: the live tailer moves a call to its final figures as lines arrive", async () => {
  await withStore(async (db, _file, dir) => {
    const folder = join(dir, ".claude", "projects", "-p");
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${SESSION}.jsonl`);
    writeFileSync(file, ALL.slice(0, 2).join("\n") + "\n");
    const tailer = new TranscriptTailer(db, { home: dir, debounceMs: 10, rootCheckMs: 60_000 });
    try {
      await tailer.start();
      const output = () =>
        (db.prepare("SELECT output_tokens FROM usage WHERE usage_key = 'msg_a:req_a'").get() as {
          output_tokens: number;
        }).output_tokens;
      assert.equal(output(), 10, "the first line's partial count, until the rest arrives");
      for (let i = 2; i < ALL.length; i++) {
        appendFileSync(file, ALL[i] + "\n");
        tailer.notice(file);
        await tailer.idle();
        if (i === 3) assert.equal(output(), 299, "the call's last line brings its final count");
      }
      assertFinal(db, "tailed");
    } finally {
      await tailer.stop();
    }
  });
});

Deno.test("usage merge: reading the file again without parser state counts nothing twice", async () => {
  await withStore(async (db, file) => {
    writeFileSync(file, ALL.slice(0, 5).join("\n") + "\n");
    await ingestTranscriptFile(db, file, "claude_code");
    // The cursor is lost (a file rewritten, or a store from before the merge): read from 0.
    db.exec("DELETE FROM transcript_files");
    writeFileSync(file, ALL.join("\n") + "\n");
    await ingestTranscriptFile(db, file, "claude_code");
    assertFinal(db, "read again");
    db.exec("DELETE FROM transcript_files");
    await ingestTranscriptFile(db, file, "claude_code");
    assertFinal(db, "read a third time");
  });
});

Deno.test("usage merge: new prices reprice stored calls; an unpriced call gains a price", async () => {
  await withStore(async (db, file) => {
    writeFileSync(file, ALL.join("\n") + "\n");
    await ingestTranscriptFile(db, file, "claude_code");
    assert.equal(syncStoredPrices(db), 0, "costs computed with the table in force");
    assert.equal(syncStoredPrices(db), 0, "and the fingerprint is kept");
    const overrides = { "local-llama": { input: 1, output: 1, cache_read: 1, cache_write: 1 } };
    assert.equal(syncStoredPrices(db, overrides), 1);
    const row = sessionRow(db);
    assert.equal(row.unpriced_calls, 0);
    // The llama's call: 20 input (10 per line, its largest), 40 output, 1000 reads at $1/M.
    assert.ok(Math.abs(row.cost_usd - (FINAL_COST + (10 + 40 + 1000) / 1e6)) < 1e-9);
  });
});

Deno.test("migration 15: epoch starts are mended, partial Claude usage is read again", () => {
  const db = openDatabase(":memory:", { migrations: MIGRATIONS.filter((m) => m.version < 15) });
  try {
    db.exec(`
      INSERT INTO sessions (session_id, agent, started_at, last_activity_at, cost_usd)
        VALUES ('s1', 'claude_code', 0, 1795946405000, 0), ('s2', 'codex', 0, 0, 0);
      INSERT INTO messages (session_id, agent, message_key, ts, role, message_type, text)
        VALUES ('s1', 'claude_code', 'k0', 0, 'user', 'user', 'a'),
               ('s1', 'claude_code', 'k1', 1795946400000, 'user', 'user', 'b');
      INSERT INTO usage (usage_key, session_id, agent, ts, model, input_tokens, output_tokens,
          cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
        VALUES ('m:r', 's1', 'claude_code', 0, 'gpt-9000', 10, 1, 0, 0, 0, 0);
      INSERT INTO transcript_files (path, agent, byte_offset, file_size, parser_state, updated_at)
        VALUES ('/a.jsonl', 'claude_code', 10, 10, '{}', 0), ('/b.jsonl', 'codex', 5, 5, '{}', 0);
    `);
    for (const migration of MIGRATIONS.filter((m) => m.version >= 15)) db.exec(migration.sql);
    const sessions = db.prepare("SELECT session_id, started_at, unpriced_calls FROM sessions")
      .all() as Array<{ session_id: string; started_at: number; unpriced_calls: number }>;
    assert.deepEqual(sessions.map((s) => [s.session_id, s.started_at, s.unpriced_calls]), [
      ["s1", 1795946400000, 1],
      ["s2", 0, 0],
    ]);
    assert.deepEqual(
      db.prepare("SELECT ts FROM messages ORDER BY message_key").all().map((r) => r.ts),
      [1795946400000, 1795946400000],
    );
    assert.equal((db.prepare("SELECT ts FROM usage").get() as { ts: number }).ts, 1795946400000);
    assert.deepEqual(
      db.prepare("SELECT agent FROM transcript_files").all().map((r) => r.agent),
      ["codex"],
    );
  } finally {
    db.close();
  }
});
