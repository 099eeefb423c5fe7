/**
 * The hook's client side over a real socket: the payload reaches the server
 * byte for byte as the agent wrote it (the server parses it, once); only a
 * payload about to be spooled is read, so that nothing but a JSON object
 * waits in the spool and a SessionStart can start the server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkSpoolable, deliverHook } from "../../../src/agent/hooks/hook_delivery.ts";

/** Spacing, an escape and a number form that a parse and re-serialization would all change. */
const AS_WRITTEN =
  '{ "session_id" : "s1",\n  "hook_event_name":"SessionStart", "n": 1.50, "t":"caf\\u00e9" }';

Deno.test("the server gets the payload exactly as the agent wrote it", async () => {
  const bodies: string[] = [];
  const headers: Headers[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      bodies.push(await request.text());
      headers.push(request.headers);
      return Response.json({ stored: true, duplicate: false, output: { ok: 1 } });
    },
  );
  const dir = await Deno.makeTempDir({ prefix: "vantage-delivery-" });
  try {
    const outcome = await deliverHook({
      agent: "claude_code",
      payload: AS_WRITTEN,
      serverUrl: `http://127.0.0.1:${server.addr.port}`,
      timeoutMs: 10_000,
      spoolPath: join(dir, "spool", "hooks.jsonl"),
    });
    assert.deepEqual(outcome, { delivered: true, spooled: false, output: { ok: 1 } });
    assert.deepEqual(bodies, [AS_WRITTEN]);
    assert.equal(headers[0].get("x-vantage-agent"), "claude_code");
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with no server, a JSON object is spooled with its event name and anything else is not", async () => {
  // A port nothing listens on: bind one, note it, close it.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const dir = await Deno.makeTempDir({ prefix: "vantage-delivery-" });
  const spoolPath = join(dir, "spool", "hooks.jsonl");
  const deliver = (payload: string) =>
    deliverHook({
      agent: "claude_code",
      payload,
      serverUrl: `http://127.0.0.1:${port}`,
      timeoutMs: 10_000,
      spoolPath,
    });
  try {
    const garbage = await deliver("{not json");
    assert.equal(garbage.spooled, false);
    assert.equal(garbage.invalid, true);
    assert.match(garbage.reason ?? "", /^payload is not JSON \(/);
    const list = await deliver("[1, 2]");
    assert.deepEqual([list.invalid, list.reason], [true, "payload is not a JSON object"]);
    await assert.rejects(() => Deno.stat(spoolPath), Deno.errors.NotFound);

    const kept = await deliver(AS_WRITTEN);
    assert.equal(kept.spooled, true);
    assert.equal(kept.unreachable, true);
    assert.equal(kept.hookEventName, "SessionStart");
    const lines = (await Deno.readTextFile(spoolPath)).trim().split("\n");
    assert.equal(lines.length, 1);
    assert.equal(JSON.parse(lines[0]).payload, AS_WRITTEN, "spooled as written too");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkSpoolable reads only what spooling needs", () => {
  assert.deepEqual(checkSpoolable('{"hook_event_name":"Stop"}'), {
    ok: true,
    hookEventName: "Stop",
  });
  assert.deepEqual(checkSpoolable('{"hook_event_name":7}'), { ok: true });
  assert.deepEqual(checkSpoolable("null"), { ok: false, reason: "payload is not a JSON object" });
  assert.equal(checkSpoolable("").ok, false);
});
