import assert from "node:assert/strict";
import { join } from "node:path";
import { readTranscriptBatches } from "../../../src/agent/transcripts/transcript_batches.ts";

/** A Claude Code transcript of `lines` prompts, each line about 1 KB. */
async function transcript(dir: string, lines: number): Promise<string> {
  const path = join(dir, "session-a.jsonl");
  const text = Array.from({ length: lines }, (_, i) =>
    JSON.stringify({
      type: "user",
      sessionId: "session-a",
      uuid: `u${i}`,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      message: { role: "user", content: `prompt ${i} ${"words ".repeat(160)}` },
    })).join("\n") + "\n";
  await Deno.writeTextFile(path, text);
  return path;
}

/**
 * How many times a repeating zero-delay timer fired while the batches of `path` were read
 * (read straight through, the reading never lets it).
 */
async function timerTurnsWhileReading(path: string, turnEventLoop?: boolean): Promise<{
  turns: number;
  messages: number;
}> {
  let turns = 0;
  const timer = setInterval(() => turns++, 0);
  let messages = 0;
  try {
    for await (
      const batch of readTranscriptBatches(path, "claude_code", undefined, {
        batchBytes: 8 * 1024 * 1024,
        turnEventLoop,
      })
    ) {
      messages += batch.records.messages.length;
    }
    return { turns, messages };
  } finally {
    clearInterval(timer);
  }
}

Deno.test("reading a transcript lets the event loop turn between chunks, unless a backfill asks to read straight on", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // About 2.4 MB: ten chunks of 256 KiB, in one batch.
    const path = await transcript(dir, 2400);
    const served = await timerTurnsWhileReading(path);
    assert.equal(served.messages, 2400);
    assert.ok(served.turns >= 5, `the timer ran ${served.turns} times while the file was read`);
    const straight = await timerTurnsWhileReading(path, false);
    assert.equal(straight.messages, 2400);
    assert.equal(straight.turns, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
