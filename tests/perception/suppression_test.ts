import assert from "node:assert/strict";
import type { AnomalyFinding } from "../../src/perception/anomaly_types.ts";
import {
  applySuppression,
  type EmissionEntry,
  foldEmissionLog,
} from "../../src/perception/suppression.ts";

const MIN = 60_000;
const T = 1_800_000_000_000;

function finding(fp: string): AnomalyFinding {
  return {
    kind: "stale_file_view",
    severity: "critical",
    channel: "post_tool",
    evidence: "e",
    suggestion: "s",
    related_files: [],
    fingerprint: fp,
    observed_at: T,
  };
}

// Runs one detection round and persists what it returns, as the hook path does.
function round(log: EmissionEntry[], fps: string[], now: number, resolved?: string[]) {
  const result = applySuppression(fps.map(finding), log, now, { resolved });
  log.push(...result.entries);
  return result;
}

Deno.test("applySuppression emits a new fingerprint once, then stays silent for ten minutes", () => {
  const log: EmissionEntry[] = [];
  const first = round(log, ["a"], T);
  assert.deepEqual(first.emit.map((f) => [f.fingerprint, f.first_emitted_at]), [["a", T]]);
  assert.deepEqual(log, [{ fingerprint: "a", event: "emitted", ts: T, first_emitted_at: T }]);
  const second = round(log, ["a"], T + 9 * MIN);
  assert.deepEqual(second.emit, []);
  assert.deepEqual(second.silenced.map((f) => f.fingerprint), ["a"]);
  assert.deepEqual(second.entries, []);
});

Deno.test("applySuppression re-emits after the window, keeping the episode's first emission", () => {
  const log: EmissionEntry[] = [];
  round(log, ["a"], T);
  const later = round(log, ["a"], T + 10 * MIN);
  assert.deepEqual(later.emit.map((f) => f.first_emitted_at), [T]);
  assert.equal(
    round(log, ["a"], T + 15 * MIN).emit.length,
    0,
    "a new window started at the re-emission",
  );
});

Deno.test("applySuppression lets a resolved fingerprint fire again at once", () => {
  const log: EmissionEntry[] = [];
  round(log, ["a", "b"], T);
  // "a" disappeared (the agent re-read the file): it is marked resolved.
  const cleared = round(log, ["b"], T + 1 * MIN);
  assert.deepEqual(cleared.entries, [{ fingerprint: "a", event: "resolved", ts: T + MIN }]);
  assert.deepEqual(cleared.emit, []);
  const back = round(log, ["a", "b"], T + 2 * MIN);
  assert.deepEqual(back.emit.map((f) => [f.fingerprint, f.first_emitted_at]), [["a", T + 2 * MIN]]);
  assert.deepEqual(back.silenced.map((f) => f.fingerprint), ["b"]);
  // Resolution is recorded once, not at every round.
  round(log, [], T + 3 * MIN);
  const again = round(log, [], T + 4 * MIN);
  assert.deepEqual(again.entries, []);
});

Deno.test("applySuppression honours explicit resolutions even while the finding is still present", () => {
  const log: EmissionEntry[] = [];
  round(log, ["cmd"], T);
  const result = round(log, ["cmd"], T + MIN, ["cmd"]);
  assert.deepEqual(result.emit.map((f) => f.fingerprint), ["cmd"]);
  assert.deepEqual(result.entries.map((e) => e.event), ["resolved", "emitted"]);
});

Deno.test("applySuppression handles duplicate fingerprints in one round once", () => {
  const result = applySuppression([finding("a"), finding("a")], [], T);
  assert.equal(result.emit.length, 1);
  assert.equal(result.entries.length, 1);
});

Deno.test("foldEmissionLog ignores resolutions of never-emitted fingerprints", () => {
  const states = foldEmissionLog([
    { fingerprint: "x", event: "resolved", ts: T },
    { fingerprint: "y", event: "emitted", ts: T, first_emitted_at: T - MIN },
    { fingerprint: "y", event: "resolved", ts: T + MIN },
  ]);
  assert.deepEqual(states.get("x"), { resolved: false });
  assert.deepEqual(states.get("y"), {
    last_emitted_at: T,
    first_emitted_at: T - MIN,
    resolved: true,
  });
  assert.equal(
    applySuppression([finding("x")], [{ fingerprint: "x", event: "resolved", ts: T }], T).emit
      .length,
    1,
  );
});
