import assert from "node:assert/strict";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { documentRoots, permissionFlags } from "../../src/core/permissions.ts";
import { launchArguments } from "../../scripts/launch.ts";
import { connectStdio, MAIN } from "../helpers/mcp_stdio.ts";
import config from "../../deno.json" with { type: "json" };

Deno.test("shipped tasks run the launcher with only what it needs, never -A", () => {
  // The launcher reads the environment and starts this Deno; the permissions of `serve` and
  // `mcp-serve` themselves come from permissionFlags (tests/cli/tasks_test.ts checks the child's
  // command line against it while the task runs).
  const self = `$(deno eval 'console.log(Deno.execPath())')`;
  const launcherFlags = ["--no-prompt", "--allow-env=HOME,VANTAGE_*", `--allow-run=${self}`];
  assert.equal(
    config.tasks.start,
    ["deno run", ...launcherFlags, "scripts/launch.ts serve"].join(" "),
  );
  assert.equal(
    config.tasks.mcp,
    ["deno run", ...launcherFlags, "scripts/launch.ts mcp-serve"].join(" "),
  );
  for (const name of ["start", "mcp", "compile"] as const) {
    assert.ok(!/(^|\s)(-A|--allow-all)(\s|$)/.test(config.tasks[name]), name);
  }
  // What the launcher hands its child for each command: the same computed set the installer
  // registers for agents, with the data home and the roots read from the environment.
  const paths = resolvePaths();
  assert.deepEqual(launchArguments("serve", ["--port", "0"]), [
    "run",
    ...permissionFlags("serve", paths, documentRoots()),
    MAIN,
    "serve",
    "--port",
    "0",
  ]);
  assert.deepEqual(launchArguments("mcp-serve", []), [
    "run",
    ...permissionFlags("mcp-serve", paths, documentRoots()),
    MAIN,
    "mcp-serve",
  ]);
  assert.throws(() => launchArguments("ingest", []), /unknown command 'ingest'/);
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
