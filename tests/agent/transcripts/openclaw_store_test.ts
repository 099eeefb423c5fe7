/**
 * OpenClaw's SQLite agent store, read from the recorded fixture (a copy of the store the real
 * OpenClaw 2026.9.6 wrote, see tests/fixtures/transcripts/README.md): entries decode to the
 * same lines as the JSONL form, a session found in both is stored once, reading resumes per
 * session, a rewrite starts the session over, and a store another connection is writing to is
 * read as committed.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { zstdCompressSync } from "node:zlib";
import { join } from "node:path";
import {
  isOpenClawStorePath,
  OpenClawStoreReader,
} from "../../../src/agent/transcripts/openclaw_store.ts";
import {
  ingestOpenClawStore,
  storeSessionKey,
} from "../../../src/agent/transcripts/openclaw_store_ingester.ts";
import { ingestTranscriptFile } from "../../../src/agent/transcripts/transcript_ingester.ts";
import { detectAgentFromPath } from "../../../src/agent/transcripts/transcript_paths.ts";
import { getTranscriptCursor } from "../../../src/store/agent/transcript_cursors.ts";
import { openDatabase } from "../../../src/store/database.ts";
import { findFiles, fixtureLines, FIXTURES } from "../../helpers/transcript_fixtures.ts";

const STORE = `${FIXTURES}openclaw/agents/main/agent/openclaw-agent.sqlite`;

async function jsonlPath(): Promise<string> {
  const [path] = await findFiles(`${FIXTURES}openclaw`, (n) => n.endsWith(".jsonl"));
  return path;
}

/** A writable copy of the fixture store in a temporary agent folder. */
async function copyStore(): Promise<{ dir: string; store: string }> {
  const dir = await Deno.makeTempDir({ prefix: "vantage-openclaw-" });
  const store = join(dir, "agents", "main", "agent", "openclaw-agent.sqlite");
  await Deno.mkdir(join(dir, "agents", "main", "agent"), { recursive: true });
  await Deno.copyFile(STORE, store);
  return { dir, store };
}

interface SessionRow {
  message_count: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  reasoning_tokens: number;
}

function sessionRow(db: DatabaseSync): SessionRow {
  return {
    ...db.prepare(
      `SELECT message_count, tool_calls, input_tokens, output_tokens, cache_read_tokens,
       reasoning_tokens FROM sessions WHERE agent = 'openclaw'`,
    ).get() as unknown as SessionRow,
  };
}

const EXPECTED: SessionRow = {
  message_count: 11,
  tool_calls: 4,
  input_tokens: 14400,
  output_tokens: 135,
  cache_read_tokens: 48400,
  reasoning_tokens: 14,
};

Deno.test("openclaw store: every entry decodes to the line the JSONL form holds", async () => {
  const lines = await fixtureLines(await jsonlPath());
  const raw = new DatabaseSync(STORE, { readOnly: true });
  const compressed = raw.prepare(
    "SELECT count(*) AS n FROM transcript_events WHERE event_zstd IS NOT NULL",
  ).get() as { n: number };
  raw.close();
  // The 400-line output of `seq 1 400` is over 1 KiB: OpenClaw stored it compressed.
  assert.equal(compressed.n, 1);

  const reader = new OpenClawStoreReader(STORE);
  try {
    const sessions = reader.sessions();
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].last_seq, lines.length - 1);
    assert.equal(typeof sessions[0].generation, "string");
    const events = reader.events(sessions[0].session_id, 0, 100);
    assert.deepEqual(events.map((e) => e.text), lines);
    assert.deepEqual(events.map((e) => e.seq), lines.map((_, i) => i));
    assert.deepEqual(reader.events(sessions[0].session_id, 15, 2).map((e) => e.seq), [15, 16]);
  } finally {
    reader.close();
  }
  assert.equal(isOpenClawStorePath(STORE), true);
  assert.equal(isOpenClawStorePath(`${STORE}-wal`), true);
  assert.equal(detectAgentFromPath(STORE), "openclaw");
  assert.throws(
    () => new OpenClawStoreReader(`${FIXTURES}codex/hooks.jsonl`),
    /cannot read the OpenClaw store .*hooks\.jsonl: file is not a database/,
  );
});

Deno.test("openclaw store: ingested like the JSONL, and a session in both is stored once", async () => {
  const jsonl = await jsonlPath();
  for (const order of [["store", "jsonl"], ["jsonl", "store"]]) {
    const db = openDatabase(":memory:");
    try {
      for (const kind of order) {
        const counts = await ingestTranscriptFile(db, kind === "store" ? STORE : jsonl, "openclaw");
        if (kind === order[0]) {
          assert.equal(counts.lines, 19, kind);
          assert.equal(counts.messages, 11, kind);
          assert.equal(counts.usage, 5, kind);
        } else {
          // Same entry ids, same keys: nothing new.
          assert.equal(counts.lines, 19, kind);
          assert.equal(counts.messages, 0, kind);
          assert.equal(counts.usage, 0, kind);
        }
      }
      assert.deepEqual(sessionRow(db), EXPECTED, order.join(" then "));
      const messages = db.prepare("SELECT count(*) AS n FROM messages").get() as { n: number };
      assert.equal(messages.n, 11);
      // Read again: the store's cursors are at the end.
      const again = await ingestTranscriptFile(db, STORE, "openclaw");
      assert.equal(again.lines, 0);
    } finally {
      db.close();
    }
  }
});

Deno.test("openclaw store: each session resumes where it stopped; a rewrite starts it over", async () => {
  const { dir, store } = await copyStore();
  const db = openDatabase(":memory:");
  try {
    const full = new DatabaseSync(STORE, { readOnly: true });
    const rows = full.prepare(
      "SELECT session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json FROM transcript_events WHERE seq >= 10 ORDER BY seq",
    ).all();
    full.close();
    const writer = new DatabaseSync(store);
    writer.exec("PRAGMA foreign_keys = OFF; DELETE FROM transcript_events WHERE seq >= 10");
    writer.close();

    const first = await ingestOpenClawStore(db, store);
    assert.equal(first.lines, 10);
    const sessionId = (rows[0] as { session_id: string }).session_id;
    assert.equal(getTranscriptCursor(db, storeSessionKey(store, sessionId))?.byte_offset, 10);

    const grow = new DatabaseSync(store);
    const insert = grow.prepare(
      "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    for (const row of rows) insert.run(...Object.values(row) as never[]);
    grow.close();
    const second = await ingestOpenClawStore(db, store);
    assert.equal(second.lines, 9);
    assert.deepEqual(sessionRow(db), EXPECTED);
    assert.equal(getTranscriptCursor(db, storeSessionKey(store, sessionId))?.byte_offset, 19);

    // OpenClaw rewrote the session (compaction, rewind): its generation changed. It is read
    // from the start again and nothing is counted twice.
    const rewrite = new DatabaseSync(store);
    rewrite.exec("UPDATE transcript_rewrite_watermarks SET generation = 'rewritten'");
    rewrite.close();
    const third = await ingestOpenClawStore(db, store);
    assert.equal(third.lines, 19);
    assert.equal(third.messages, 0);
    assert.deepEqual(sessionRow(db), EXPECTED);
    assert.equal((await ingestOpenClawStore(db, store)).lines, 0);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openclaw store: read as committed while another connection writes it", async () => {
  const { dir, store } = await copyStore();
  const db = openDatabase(":memory:");
  // OpenClaw keeps the store in WAL mode and writes in transactions of its own.
  const openclaw = new DatabaseSync(store);
  try {
    openclaw.exec("PRAGMA journal_mode = WAL");
    const sessionId = (openclaw.prepare("SELECT session_id FROM transcript_events LIMIT 1")
      .get() as { session_id: string }).session_id;
    openclaw.exec("BEGIN IMMEDIATE");
    const line = JSON.stringify({
      type: "message",
      id: "late-entry",
      parentId: null,
      timestamp: "2026-12-01T16:02:00.000Z",
      message: { role: "user", content: "one more thing" },
    });
    openclaw.prepare(
      "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, 19, ?, 0, ?)",
    ).run(sessionId, line, new TextEncoder().encode(line).length);
    // The write is not committed: the reader sees the 19 committed entries and is not blocked.
    const before = await ingestOpenClawStore(db, store);
    assert.equal(before.lines, 19);
    openclaw.exec("COMMIT");
    const after = await ingestOpenClawStore(db, store);
    assert.equal(after.lines, 1);
    assert.equal(after.messages, 1);
    // The reader wrote nothing: its connection was read-only.
    const check = openclaw.prepare("SELECT count(*) AS n FROM transcript_events").get() as {
      n: number;
    };
    assert.equal(check.n, 20);
  } finally {
    openclaw.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openclaw store: a damaged compressed entry is skipped as malformed, the rest is read", async () => {
  const { dir, store } = await copyStore();
  const db = openDatabase(":memory:");
  try {
    const writer = new DatabaseSync(store);
    // A row whose recorded size does not match what its bytes decompress to.
    writer.prepare(
      "UPDATE transcript_events SET event_zstd = ?, event_utf8_bytes = 5000 WHERE event_zstd IS NOT NULL",
    ).run(zstdCompressSync(new TextEncoder().encode('{"type":"custom","id":"x"}')));
    writer.close();
    const counts = await ingestOpenClawStore(db, store);
    assert.equal(counts.lines, 19);
    assert.equal(counts.malformed, 1);
    // The seq 1 400 result was that row: one tool result fewer.
    assert.equal(counts.messages, 10);
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
