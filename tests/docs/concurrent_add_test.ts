import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { runVantage } from "../helpers/cli.ts";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";
import { writeTree } from "./harness.ts";

type Json = Record<string, unknown>;

Deno.test("a large CLI add indexes on its worker, under the shipped permissions, while an MCP server searches the same store", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-concurrent-" });
  const source = await Deno.makeTempDir({ prefix: "vantage-concurrent-src-" });
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) {
    files[`notes/n${i}.md`] = `# Note ${i}\n\nshared words and uniq${i}x for this one\n`;
  }
  // Large enough that its chunks go to a pack file, written by the CLI and read by the server.
  const noise = crypto.getRandomValues(new Uint8Array(60_000));
  const big = Array.from(noise, (b) => b.toString(16).padStart(2, "0")).join("")
    .replace(/(.{64})/g, "$1\n");
  files["data/big.log"] = big;
  await writeTree(source, files);
  const env = { VANTAGE_ROOTS: source };
  const session = await connectStdio(["--surface", "composite"], { home, env });
  const search = async (query: string) => {
    const result = await session.client.callTool({
      name: "query",
      arguments: { steps: [{ op: "search", params: { query, type: "keyword", limit: 500 } }] },
    });
    return { isError: result.isError === true, body: textJson(result) };
  };
  try {
    const adding = runVantage(["add", source, "--json"], {
      env: { ...Deno.env.toObject(), VANTAGE_HOME: home, ...env },
      flags: permissionFlags("cli", resolvePaths(home), [source]),
    });
    // The server keeps answering while the other process writes the store and the index.
    for (let i = 0; i < 5; i++) {
      const during = await search("shared words");
      assert.equal(during.isError, false, JSON.stringify(during.body));
    }
    const added = await adding;
    assert.equal(added.code, 0, added.stderr);
    const report = JSON.parse(added.stdout);
    assert.equal(report.documents_added, 201);
    // Warnings appear only when something fell back (a worker that failed, say).
    assert.equal(report.warnings, undefined, JSON.stringify(report.warnings));

    const one = await search("uniq123x");
    assert.deepEqual(
      (one.body.results as Json[]).map((hit) => hit.path),
      [join(source, "notes/n123.md")],
    );
    const all = await search("shared");
    assert.equal((all.body.results as Json[]).length, 200);
    const got = await session.client.callTool({
      name: "query",
      arguments: { steps: [{ op: "get", params: { name: "big.log", include_content: true } }] },
    });
    assert.equal(got.isError === true, false);
    assert.ok(textJson(got).content === big, "the server reads the packed file back whole");
    const store = new DatabaseSync(resolvePaths(home).database, { readOnly: true });
    try {
      const queued = store.prepare("SELECT count(*) AS n FROM docs_index_queue").get() as {
        n: number;
      };
      assert.equal(queued.n, 0, "the adding process applied and cleared all its changes");
      const packed = store.prepare(
        "SELECT count(*) AS n FROM docs_chunks WHERE pack IS NOT NULL",
      ).get() as { n: number };
      assert.ok(packed.n >= 2, `${packed.n} chunks in packs`);
    } finally {
      store.close();
    }
  } finally {
    await session.close();
    await Deno.remove(home, { recursive: true }).catch(() => {});
    await Deno.remove(source, { recursive: true });
  }
});
