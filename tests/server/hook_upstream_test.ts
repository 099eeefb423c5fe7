/**
 * The hook forwarder of `serve --upstream`, against real HTTP servers on
 * loopback: a forward returns before the team server answers (the hook's
 * answer never waits for it); a team server that is down gets nothing lost
 * (the hooks wait in the upstream spool, and a replay once it is back hands
 * each over once, under its delivery id); one that refuses a hook (a revoked
 * token) gets it once, and it is not spooled.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../src/core/log.ts";
import type { HookDelivery } from "../../src/agent/mod.ts";
import { startHookUpstream } from "../../src/server/hook_upstream.ts";

interface Received {
  delivery: string;
  agent: string | null;
  host: string | null;
  token: string | null;
  body: string;
}

/** A team server stand-in that records each hook and answers as `answer` says. */
function teamStandIn(port: number, answer: (received: Received) => Promise<Response>) {
  const received: Received[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, signal: controller.signal, onListen: () => {} },
    async (request) => {
      const entry = {
        delivery: request.headers.get("x-vantage-delivery") ?? "",
        agent: request.headers.get("x-vantage-agent"),
        host: request.headers.get("x-vantage-host"),
        token: request.headers.get("authorization"),
        body: await request.text(),
      };
      received.push(entry);
      return await answer(entry);
    },
  );
  return {
    received,
    port: server.addr.port,
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}

function delivery(i: number): HookDelivery {
  return {
    agent: "claude_code",
    delivery_id: `delivery-${i}`,
    received_at: Date.UTC(2026, 10, 3, 9, 0, i),
    event: "PostToolUse",
    payload: JSON.stringify({ session_id: "s", hook_event_name: "PostToolUse", n: i }),
    host: "ada-laptop",
  };
}

const quiet = createLogger("test", { sink: () => {} });

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function spooledLines(spool: string): Promise<number> {
  let lines = 0;
  const folder = spool.slice(0, spool.lastIndexOf("/"));
  try {
    for await (const entry of Deno.readDir(folder)) {
      if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
      const text = await Deno.readTextFile(`${folder}/${entry.name}`);
      lines += text.split("\n").filter((line) => line.trim() !== "").length;
    }
  } catch {
    // No folder: nothing spooled.
  }
  return lines;
}

Deno.test("a forward returns before the team server answers, and the hook goes over as stored", async () => {
  const folder = await Deno.makeTempDir({ prefix: "vantage-upstream-" });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const team = teamStandIn(0, async () => {
    await gate;
    return Response.json({ stored: true, duplicate: false });
  });
  const upstream = startHookUpstream({
    url: `http://127.0.0.1:${team.port}/`,
    token: "vtp_token",
    spoolPath: `${folder}/upstream-spool/hooks.jsonl`,
    log: quiet,
    replayIntervalMs: 60_000,
  });
  try {
    upstream.forward(delivery(1));
    // Returned at once; the team server has the request and has not answered it.
    await until(() => team.received.length === 1, "the forward");
    assert.equal(upstream.counts().forwarded, 0);
    release();
    await until(() => upstream.counts().forwarded === 1, "the answer");
    assert.deepEqual(team.received[0], {
      delivery: "delivery-1",
      agent: "claude_code",
      host: "ada-laptop",
      token: "Bearer vtp_token",
      body: delivery(1).payload,
    });
  } finally {
    release();
    await upstream.stop();
    await team.close();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("hooks wait in the upstream spool while the team server is down, then go over once", async () => {
  const folder = await Deno.makeTempDir({ prefix: "vantage-upstream-" });
  const spool = `${folder}/upstream-spool/hooks.jsonl`;
  // A port nothing listens on yet.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const upstream = startHookUpstream({
    url: `http://127.0.0.1:${port}`,
    token: "vtp_token",
    spoolPath: spool,
    log: quiet,
    replayIntervalMs: 60_000,
  });
  let team: ReturnType<typeof teamStandIn> | undefined;
  try {
    for (let i = 0; i < 5; i++) upstream.forward(delivery(i));
    await until(() => upstream.counts().spooled === 5, "five spooled hooks");
    assert.equal(upstream.counts().down, true);
    assert.equal(await spooledLines(spool), 5);
    // Down: replays change nothing and count no failure (five failures would set one aside).
    for (let i = 0; i < 6; i++) await upstream.replay();
    assert.equal(await spooledLines(spool), 5);
    assert.equal(
      await Deno.readTextFile(`${folder}/upstream-spool/rejected.jsonl`).catch(() => ""),
      "",
    );

    team = teamStandIn(port, () => Promise.resolve(Response.json({ stored: true })));
    await upstream.replay();
    assert.deepEqual(
      team.received.map((r) => r.delivery),
      ["delivery-0", "delivery-1", "delivery-2", "delivery-3", "delivery-4"],
    );
    assert.equal(await spooledLines(spool), 0);
    assert.deepEqual(upstream.counts(), { forwarded: 5, spooled: 5, refused: 0, down: false });
    // Up again: the next hook goes over live.
    upstream.forward(delivery(5));
    await until(() => upstream.counts().forwarded === 6, "the live forward");
    assert.equal(team.received.length, 6);
  } finally {
    await upstream.stop();
    await team?.close();
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("a hook the team server refuses is sent once and not spooled", async () => {
  const folder = await Deno.makeTempDir({ prefix: "vantage-upstream-" });
  const spool = `${folder}/upstream-spool/hooks.jsonl`;
  const team = teamStandIn(0, () =>
    Promise.resolve(Response.json(
      { error: { kind: "forbidden", message: "the token of 'ada' was revoked" } },
      { status: 401 },
    )));
  const lines: string[] = [];
  const upstream = startHookUpstream({
    url: `http://127.0.0.1:${team.port}`,
    token: "vtp_revoked",
    spoolPath: spool,
    log: createLogger("test", { sink: (line) => void lines.push(line) }),
    replayIntervalMs: 60_000,
  });
  try {
    upstream.forward(delivery(1));
    upstream.forward(delivery(2));
    await until(() => upstream.counts().refused === 2, "two refusals");
    await upstream.stop();
    assert.equal(team.received.length, 2);
    assert.equal(await spooledLines(spool), 0);
    // One line for the one reason.
    assert.equal(lines.filter((line) => line.includes("was revoked")).length, 1);
  } finally {
    await team.close();
    await Deno.remove(folder, { recursive: true });
  }
});
