/**
 * The real `vantage serve` (shipped permissions, real port): the official
 * MCP conformance suite against /mcp, the catalog over HTTP, a live event
 * arriving after a hook, and a graceful SIGTERM while an event stream is open.
 */
import assert from "node:assert/strict";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { startServe } from "../helpers/serve_process.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

/** The scenarios any server can pass; the README lists why the others do not apply. */
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "prompts-list",
  "dns-rebinding-protection",
];

async function conformance(url: string, scenario: string): Promise<{ code: number; text: string }> {
  const cwd = await Deno.makeTempDir({ prefix: "vantage-conformance-" });
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "npm:@modelcontextprotocol/conformance@0.1.16",
      "server",
      "--url",
      url,
      "--scenario",
      scenario,
    ],
    cwd,
    env: Deno.env.toObject(),
    stdout: "piped",
    stderr: "piped",
  }).output().finally(() => Deno.remove(cwd, { recursive: true }));
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

Deno.test("serve: MCP conformance, HTTP catalog, live events, graceful stop", async (t) => {
  const home = await makeAgentHome();
  const server = await startServe(home);
  // The event stream opened by one step stays open for the shutdown step to watch.
  let openStream: ReadableStreamDefaultReader<string> | undefined;
  try {
    await t.step("the MCP conformance scenarios pass against /mcp", async () => {
      for (const scenario of SCENARIOS) {
        const run = await conformance(`${server.url}/mcp`, scenario);
        assert.equal(run.code, 0, `${scenario}:\n${run.text}`);
        assert.match(run.text, /Passed: (\d+)\/\1, 0 failed/, `${scenario}:\n${run.text}`);
      }
    });

    await t.step("?surface=full and X-Vantage-Scopes shape the MCP tool list", async () => {
      const list = async (query: string, headers: Record<string, string> = {}) => {
        const response = await fetch(`${server.url}/mcp${query}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        assert.equal(response.status, 200);
        const body = await response.json();
        return body.result.tools.map((tool: { name: string }) => tool.name) as string[];
      };
      assert.deepEqual((await list("")).sort(), ["execute", "search"]);
      const full = await list("?surface=full");
      assert.ok(full.includes("exec_query") && full.includes("get_session_transcript"));
      const narrow = await list("?surface=full", { "x-vantage-scopes": "agent:read" });
      assert.ok(!narrow.includes("exec_query"));
      assert.ok(narrow.includes("search_sessions"));
      const get = await fetch(`${server.url}/mcp`, { headers: { accept: "text/event-stream" } });
      assert.equal(get.status, 405);
      await get.body?.cancel();
    });

    await t.step("a hook posted to the server arrives on /api/events", async () => {
      const stream = await fetch(`${server.url}/api/events`);
      assert.equal(stream.status, 200);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      const payload = JSON.parse(
        (await Deno.readTextFile(`${FIXTURES}claude_code/hooks.jsonl`)).split("\n")[0],
      );
      payload.session_id = "live-session-0001";
      const posted = await fetch(`${server.url}/api/hooks`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-vantage-agent": "claude_code" },
        body: JSON.stringify(payload),
      });
      assert.equal(posted.status, 200);
      await posted.body?.cancel();
      let text = "";
      while (!text.includes("event: session")) text += (await reader.read()).value ?? "";
      assert.match(text, /event: hook\ndata: \{[^\n]*live-session-0001/);
      assert.match(text, /event: session\ndata: \{[^\n]*live-session-0001/);
      openStream = reader;
    });

    await t.step("SIGTERM ends open event streams and the process exits 0", async () => {
      const reader = openStream!;
      const ended = (async () => {
        for (;;) {
          const { done } = await reader.read().catch(() => ({ done: true }));
          if (done) return true;
        }
      })();
      assert.equal(await server.stop("SIGTERM"), 0);
      assert.equal(await ended, true);
    });
  } finally {
    await server.stop().catch(() => {});
    await home.cleanup();
  }
});
