/**
 * The queue that runs a session's telemetry rules after its exports: each
 * waiting session is checked once however many exports named it, never on
 * the export's own turn, a few per turn when many wait, and nothing after
 * close. A failing check does not stop the others.
 */
import assert from "node:assert/strict";
import { SessionCheckQueue } from "../../src/server/session_checks.ts";

async function settle(queue: SessionCheckQueue): Promise<void> {
  for (let i = 0; i < 500 && queue.size > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  // One more pause: the last turn's checks run after the size dropped.
  await new Promise((resolve) => setTimeout(resolve, 20));
}

Deno.test("each waiting session is checked once, after the exports that named it", async () => {
  const checked: string[] = [];
  const queue = new SessionCheckQueue((id) => checked.push(id), { delayMs: 5 });
  queue.add(["a", "b"]);
  queue.add(["a"]);
  queue.add([]);
  assert.deepEqual(checked, [], "not on the export's own turn");
  await settle(queue);
  assert.deepEqual(checked, ["a", "b"]);
  queue.add(["a"]);
  await settle(queue);
  assert.deepEqual(checked, ["a", "b", "a"], "a later export checks it again");
  queue.close();
});

Deno.test("many waiting sessions are checked a few per turn; a failing check skips only itself", async () => {
  const checked: string[] = [];
  const queue = new SessionCheckQueue((id) => {
    if (id === "s2") throw new Error("broken session");
    checked.push(id);
  }, { delayMs: 5, perTurn: 2 });
  queue.add(["s1", "s2", "s3", "s4", "s5"]);
  await settle(queue);
  assert.deepEqual(checked, ["s1", "s3", "s4", "s5"]);
  queue.close();
});

Deno.test("close drops what waits and takes nothing more", async () => {
  const checked: string[] = [];
  const queue = new SessionCheckQueue((id) => checked.push(id), { delayMs: 5 });
  queue.add(["a"]);
  queue.close();
  queue.add(["b"]);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.deepEqual(checked, []);
  assert.equal(queue.size, 0);
});
