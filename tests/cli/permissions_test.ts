import assert from "node:assert/strict";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { connectStdio } from "../helpers/mcp_stdio.ts";
import config from "../../deno.json" with { type: "json" };

Deno.test("shipped tasks use exactly the computed permission sets, never -A", () => {
  const home = "/home/someone";
  const paths = resolvePaths(join(home, ".vantage"));
  const expected = { ...paths, userHome: home };
  const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
  // Tasks run from the repository root, so "." there is the program's own folder, and ask the
  // Deno running them for its own path (the query processes are that Deno).
  const expand = (task: string) =>
    task.replaceAll("$HOME", home).replace("--allow-read=.,", `--allow-read=${repo},`)
      .replaceAll(`$(deno eval 'console.log(Deno.execPath())')`, Deno.execPath()).split(/\s+/);
  const start = expand(config.tasks.start);
  const mcp = expand(config.tasks.mcp);
  for (const flag of permissionFlags("serve", expected, [])) assert.ok(start.includes(flag), flag);
  for (const flag of permissionFlags("mcp-serve", expected, [])) {
    assert.ok(mcp.includes(flag), flag);
  }
  for (const name of ["start", "mcp", "compile"] as const) {
    assert.ok(!/(^|\s)(-A|--allow-all)(\s|$)/.test(config.tasks[name]), name);
  }
});

Deno.test("mcp-serve under the shipped permissions refuses a read outside its roots, clearly", async () => {
  const outside = await Deno.makeTempDir({ prefix: "vantage-outside-" });
  await Deno.writeTextFile(join(outside, "PROMPT-secret.md"), "# Secret\n");
  const session = await connectStdio([], { env: { VANTAGE_PROMPTS: outside } });
  try {
    await assert.rejects(
      () => session.client.listPrompts(),
      (error: Error) => {
        assert.match(error.message, new RegExp(`read access to ${outside} was refused`));
        assert.match(error.message, /VANTAGE_ROOTS/);
        return true;
      },
    );
    // The server is still up and serving.
    const { tools } = await session.client.listTools();
    assert.equal(tools.length, 2);
  } finally {
    await session.close();
    await Deno.remove(outside, { recursive: true });
  }
});
