/**
 * `serve` killed (SIGKILL) while exporters send it OTLP exports at once, its workers storing
 * them in groups: every export it answered is in the store whole, and every other export is
 * either whole or absent (a group is committed whole or not at all, and no other writer runs
 * here to cut a group into several transactions), never half stored.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { protobufOf, span, tracesRequest } from "../helpers/otlp_bodies.ts";
import { startServe } from "../helpers/serve_process.ts";

const EXPORTS = 40;
const SPANS = 250;
/** Exporters sending at once, each its next export once the last is answered. */
const SENDERS = 8;
/** Answers awaited before the kill. */
const ANSWERED_BEFORE_KILL = 6;

function exportOf(tag: string): Uint8Array {
  const now = Date.now();
  const spans = Array.from({ length: SPANS }, (_, i) =>
    span({
      name: i % 3 === 2 ? "execute_tool Bash" : "chat claude-sonnet-4-5",
      endMs: now - 60_000 + i,
      durationMs: 3,
      attributes: i % 3 === 2
        ? {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.conversation.id": tag,
          "gen_ai.tool.name": "Bash",
          "gen_ai.tool.call.id": `${tag}-call-${i}`,
        }
        : {
          "gen_ai.operation.name": "chat",
          "gen_ai.conversation.id": tag,
          "gen_ai.request.model": "claude-sonnet-4-5",
          "gen_ai.response.id": `${tag}-resp-${i}`,
          "gen_ai.usage.input_tokens": 100 + i,
          "gen_ai.usage.output_tokens": 7,
        },
    }));
  return protobufOf("traces", tracesRequest(spans, { "service.name": "kill-test" }));
}

Deno.test("serve killed mid-intake loses only exports it had not answered, none half stored", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const serve = await startServe(home, ["--no-tail"]);
  const tags = Array.from({ length: EXPORTS }, (_, i) => `kill-${i}`);
  const bodies = tags.map(exportOf);
  const answered = new Set<string>();
  let killed = false;
  try {
    let next = 0;
    const sender = async () => {
      while (next < tags.length && !killed) {
        const i = next++;
        try {
          const response = await fetch(`${serve.url}/v1/traces`, {
            method: "POST",
            headers: { "content-type": "application/x-protobuf" },
            body: bodies[i] as Uint8Array<ArrayBuffer>,
          });
          await response.arrayBuffer();
          if (killed) return;
          assert.equal(response.status, 200);
          answered.add(tags[i]);
          if (answered.size === ANSWERED_BEFORE_KILL) {
            killed = true;
            await serve.stop("SIGKILL");
          }
        } catch (error) {
          // The connection of an export in flight breaks when serve dies.
          if (!killed) throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    assert.ok(killed, "serve answered every export before it could be killed");
  } finally {
    await serve.stop("SIGKILL");
  }
  try {
    // Opening the store after the kill replays what its write-ahead log holds.
    const db = new DatabaseSync(`${home.dataHome}/vantage.db`);
    const count = db.prepare(
      "SELECT count(*) AS n FROM telemetry_spans WHERE session_id = ?",
    );
    const calls = db.prepare(
      `SELECT (SELECT count(*) FROM telemetry_model_calls WHERE session_id = ?) +
        (SELECT count(*) FROM telemetry_tool_calls WHERE session_id = ?) AS n`,
    );
    let whole = 0;
    for (const tag of tags) {
      const spans = (count.get(tag) as { n: number }).n;
      const stored = (calls.get(tag, tag) as { n: number }).n;
      if (answered.has(tag)) {
        assert.equal(spans, SPANS, `${tag} was answered but is not stored whole`);
      } else {
        assert.ok(spans === 0 || spans === SPANS, `${tag} is half stored: ${spans} spans`);
      }
      assert.equal(stored, spans, `${tag}: its calls and its spans disagree`);
      if (spans === SPANS) whole++;
    }
    db.close();
    assert.ok(whole >= ANSWERED_BEFORE_KILL);
    assert.ok(whole < EXPORTS, "every export was stored: the kill came too late to test");
  } finally {
    await home.cleanup();
  }
});
