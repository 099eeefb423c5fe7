import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runVantage } from "../helpers/cli.ts";
import { connectStdio } from "../helpers/mcp_stdio.ts";

const DEBUG = { VANTAGE_LOG: "debug" };

/** Waits until `stderr()` holds `text` (the warm-up runs in the background after tools/list). */
async function waitForLog(stderr: () => string, text: string): Promise<void> {
  for (let waited = 0; !stderr().includes(text); waited += 50) {
    if (waited > 30_000) assert.fail(`no '${text}' in mcp-serve's log:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test("mcp-serve warms document search after tools/list, and the agent's first search answers", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-warm-" });
  try {
    const notes = [
      "The build failed with a linker error in config.ts.",
      "A release checklist: test, tag, publish.",
    ];
    for (const [i, text] of notes.entries()) {
      const added = await runVantage(["add", "-", "--name", `note-${i}.md`], {
        stdin: text,
        env: { ...Deno.env.toObject(), VANTAGE_HOME: home },
      });
      assert.equal(added.code, 0, added.stderr);
    }
    const session = await connectStdio(["--surface", "full"], { home, env: DEBUG });
    try {
      await session.client.listTools();
      await waitForLog(session.stderr, "search warmed");
      assert.match(session.stderr(), /search warmed \{"ms":[\d.]+,"type":"hybrid"\}/);
      const result = await session.client.callTool({
        name: "docs_search",
        arguments: { query: "linker error" },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const found = result.structuredContent as { results: Array<{ path: string }> };
      assert.equal(found.results[0].path, "note-0.md");
    } finally {
      await session.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});

Deno.test("the warm-up never creates a store, and needs the docs:read grant", async () => {
  const empty = await connectStdio([], { env: DEBUG });
  try {
    await empty.client.listTools();
    // A call after tools/list: by its answer the warm-up (20 ms after tools/list) has had its turn.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await empty.client.callTool({
      name: "execute",
      arguments: { operation_id: "dex.list_cassettes", arguments: {} },
    });
    assert.equal(existsSync(join(empty.home, "vantage.db")), false, empty.stderr());
    assert.doesNotMatch(empty.stderr(), /search warm/);
  } finally {
    await empty.close();
  }

  const home = await Deno.makeTempDir({ prefix: "vantage-warm-" });
  try {
    const added = await runVantage(["add", "-", "--name", "note.md"], {
      stdin: "a note about builds",
      env: { ...Deno.env.toObject(), VANTAGE_HOME: home },
    });
    assert.equal(added.code, 0, added.stderr);
    const agentOnly = await connectStdio(["--scopes", "agent:read"], { home, env: DEBUG });
    try {
      await agentOnly.client.listTools();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await agentOnly.client.callTool({ name: "search", arguments: { query: "sessions" } });
      assert.doesNotMatch(agentOnly.stderr(), /search warm/);
    } finally {
      await agentOnly.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
});
