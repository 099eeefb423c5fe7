import assert from "node:assert/strict";
import { join } from "node:path";
import { loadOrCreateToken } from "../../src/http/token.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runHook, startServe } from "../helpers/serve_process.ts";
import { randomBytes } from "../docs/harness.ts";

/** Every folder and file below `root`, with its permission bits. */
async function modes(root: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      out.set(path, (await Deno.lstat(path)).mode! & 0o777);
      if (entry.isDirectory) await walk(path);
    }
  };
  out.set(root, (await Deno.stat(root)).mode! & 0o777);
  await walk(root);
  return out;
}

Deno.test({
  name: "the data home is its owner's only: folders 0700; stores, packs, spool and token 0600",
  ignore: Deno.build.os === "windows",
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    try {
      // A data home an earlier version made, open to everyone's reading.
      await Deno.mkdir(home.dataHome, { mode: 0o755 });
      await Deno.chmod(home.dataHome, 0o755);
      // The server is down: the hook's payload waits in the spool.
      const hook = await runHook(
        home,
        "claude_code",
        JSON.stringify({ session_id: "s1", hook_event_name: "UserPromptSubmit", prompt: "hi" }),
        { VANTAGE_URL: "http://127.0.0.1:9", VANTAGE_AUTOSTART: "0" },
      );
      assert.equal(hook.code, 0, hook.stderr);
      await loadOrCreateToken(home.dataHome);

      const server = await startServe(home, ["--no-tail"]);
      try {
        // Hex of random bytes compresses to about half: well above the pack threshold.
        const content = Array.from(randomBytes(24_000, 7), (b) => b.toString(16).padStart(2, "0"))
          .join("");
        const added = await fetch(`${server.url}/api/ops/docs.add`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ content, name: "big.txt" }),
        });
        assert.equal(added.status, 200, await added.clone().text());
        await added.body?.cancel();
        const searched = await fetch(`${server.url}/api/ops/docs.search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: "big" }),
        });
        assert.equal(searched.status, 200);
        await searched.body?.cancel();
      } finally {
        await server.stop();
      }

      const found = await modes(home.dataHome);
      const names = [...found.keys()].map((path) => path.slice(home.dataHome.length));
      for (const expected of ["/vantage.db", "/docs-index.db", "/spool", "/token", "/docs-packs"]) {
        assert.ok(names.includes(expected), `${expected} exists (found ${names.join(", ")})`);
      }
      assert.ok(names.some((name) => /^\/docs-packs\/pack-\d+\.vpk$/.test(name)), names.join());
      const wrong: string[] = [];
      for (const [path, mode] of found) {
        const isFolder = (await Deno.lstat(path)).isDirectory;
        const want = isFolder ? 0o700 : 0o600;
        if (mode !== want) wrong.push(`${path} is ${mode.toString(8)}, want ${want.toString(8)}`);
      }
      assert.deepEqual(wrong, []);
    } finally {
      await home.cleanup();
    }
  },
});
