import assert from "node:assert/strict";
import { WorkBalance } from "../../src/docs/ingest_balance.ts";

Deno.test("WorkBalance embeds on the main thread only once the worker would finish last", () => {
  const balance = new WorkBalance();
  balance.plan("text", 10_000_000);
  balance.plan("binary", 50_000_000);
  assert.equal(balance.embedHere(10_000), false, "the main thread has the most left to do");
  // The main thread stores most of it, measured at 40 ms per MB of text and 5 per MB of binary.
  balance.mainDone({ text: 9_000_000, binary: 0 }, 360);
  balance.mainDone({ text: 0, binary: 49_000_000 }, 245);
  const left = balance.mainRemaining;
  assert.ok(Math.abs(left - (1_000_000 * 40e-6 + 1_000_000 * 5e-6)) < 1, String(left));
  // Meanwhile the worker was handed a large batch to index.
  balance.toIndex(5_000_000);
  const handed = balance.handOver();
  assert.ok(balance.workerRemaining > left);
  assert.equal(balance.embedHere(10_000), true, "now the worker would finish last");
  // It reports the batch done, and faster than guessed: the estimate follows.
  balance.workerDone(handed, 100, 0);
  assert.equal(balance.workerRemaining, 0);
  balance.toIndex(1_000_000);
  assert.ok(Math.abs(balance.workerRemaining - 20) < 1e-6, String(balance.workerRemaining));
  assert.equal(balance.embedHere(10_000), false);
});

Deno.test("WorkBalance forgets a failed batch's work", () => {
  const balance = new WorkBalance();
  balance.toEmbed(1_000_000);
  const handed = balance.handOver();
  assert.ok(balance.workerRemaining > 0);
  balance.workerFailed(handed);
  assert.equal(balance.workerRemaining, 0);
});

Deno.test("WorkBalance counts a batch seen finished once, and its later report only teaches rates", () => {
  const balance = new WorkBalance();
  balance.toIndex(1_000_000);
  const first = balance.handOver();
  balance.toIndex(1_000_000);
  const second = balance.handOver();
  const both = balance.workerRemaining;
  balance.workerFinished(first);
  balance.workerFinished(first);
  assert.ok(Math.abs(balance.workerRemaining - both / 2) < 1e-9, "taken off once");
  balance.workerDone(first, 10, 0);
  assert.ok(
    Math.abs(balance.workerRemaining - both / 2) < 1e-9,
    "the report does not take it again",
  );
  // The report did teach the rate: 10 ms per million characters indexed.
  balance.workerDone(second, 10, 0);
  assert.equal(balance.workerRemaining, 0);
  balance.toIndex(1_000_000);
  assert.ok(Math.abs(balance.workerRemaining - 10) < 1e-6, String(balance.workerRemaining));
});
