/**
 * One of several processes fighting over a data home's server lock: from a
 * shared start time, for a while, it takes the lock when it can, marks its
 * turn with a file only one process may create, and lets go; when refused
 * it reads the lock as a hook would, probing it in others' way. Prints
 * `{taken, refused, overlaps}`; an overlap means two processes held the
 * lock at once.
 *
 * Usage: deno run --allow-read=DIR --allow-write=DIR lock_contender.ts HOME START_MS RUN_MS
 */
import { join } from "node:path";
import { VantageError } from "../../src/core/errors.ts";
import { acquireServerLock, readServerLock } from "../../src/store/server_lock.ts";

const [home, startArg, runArg] = Deno.args;
const start = Number(startArg);
const end = start + Number(runArg);
const marker = join(home, "holder");
const counts = { taken: 0, refused: 0, overlaps: 0 };

await new Promise((resolve) => setTimeout(resolve, Math.max(0, start - Date.now())));
while (Date.now() < end) {
  let lock;
  try {
    lock = await acquireServerLock(home);
  } catch (error) {
    if (!(error instanceof VantageError) || error.kind !== "conflict") throw error;
    counts.refused++;
    await readServerLock(home);
    continue;
  }
  counts.taken++;
  let marked = false;
  try {
    Deno.writeTextFileSync(marker, String(Deno.pid), { createNew: true });
    marked = true;
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    counts.overlaps++;
  }
  await lock.record(1 + counts.taken % 60_000);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
  if (marked) Deno.removeSync(marker);
  await lock.release();
}
console.log(JSON.stringify(counts));
