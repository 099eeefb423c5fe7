/**
 * The daemon's spool replay on a real spool file: what waits there is taken
 * at start, what is spooled later on the next beat, a refused entry is
 * logged and let go, a failing one kept for the next replay; after `stop`
 * only an explicit replay takes what is left.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createLogger } from "../../src/core/log.ts";
import { appendToSpool, type SpoolEntry } from "../../src/agent/hooks/spool.ts";
import type { HookTaken } from "../../src/server/hook_pipeline.ts";
import { startSpoolReplay } from "../../src/server/spool_replay.ts";

function entry(id: string): SpoolEntry {
  return { delivery_id: id, agent: "claude_code", received_at: Date.now(), payload: "{}" };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.ok(check(), what);
}

Deno.test("the spool is replayed at start, on its interval, and once more on demand", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vantage-spool-" });
  const spool = join(dir, "spool", "hooks.jsonl");
  const taken: string[] = [];
  const lines: string[] = [];
  let failNext = true;
  const take = (item: SpoolEntry): HookTaken => {
    if (item.delivery_id === "flaky" && failNext) {
      failNext = false;
      throw new Error("store busy");
    }
    taken.push(item.delivery_id);
    return item.delivery_id === "bad"
      ? { stored: false, duplicate: false, reason: "missing session id" }
      : { stored: false, duplicate: true, event: undefined as never };
  };
  try {
    await appendToSpool(spool, entry("early"));
    await appendToSpool(spool, entry("bad"));
    await appendToSpool(spool, entry("flaky"));
    const replay = await startSpoolReplay({
      spool,
      take,
      log: createLogger("test", { sink: (line) => lines.push(line), minimum: "info" }),
      intervalMs: 50,
    });
    // At start: all three handed over, the refused one logged, the failing one kept.
    assert.deepEqual(taken, ["early", "bad"]);
    assert.ok(lines.some((l) => /warn .*spooled hook rejected.*missing session id/.test(l)));
    assert.ok(lines.some((l) => /error .*spooled hook failed; kept.*flaky.*store busy/.test(l)));
    // The next beat takes the kept entry and one spooled since.
    await appendToSpool(spool, entry("later"));
    await until(() => taken.includes("later") && taken.includes("flaky"), "replayed on a beat");
    replay.stop();
    // Stopped before its first beat could fire (no timer runs between start and stop here), on
    // a spool of its own, so no beat of the first one in flight can take what lands there.
    const other = join(dir, "other", "hooks.jsonl");
    const quiet = await startSpoolReplay({
      spool: other,
      take,
      log: createLogger("test", { sink: () => {} }),
      intervalMs: 20,
    });
    quiet.stop();
    await appendToSpool(other, entry("last"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(!taken.includes("last"), "no beat after stop");
    await quiet.replay();
    assert.equal(taken.at(-1), "last");
    assert.equal(taken.filter((id) => id === "early").length, 1, "each entry taken once");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
