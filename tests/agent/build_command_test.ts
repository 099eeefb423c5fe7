/**
 * `vantage build -- <cmd>` passes output through, exits with the command's
 * code, and records the run so `get_build_status` reports it.
 */
import assert from "node:assert/strict";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";

Deno.test("vantage build records failing and passing runs that get_build_status reports", async () => {
  const home = await makeAgentHome({ fixtures: false });
  try {
    const project = `${home.home}/proj`;
    await Deno.mkdir(project);
    // A compiler-style error line the parsers understand (gcc/clang format).
    const script = `${project}/build.sh`;
    await Deno.writeTextFile(
      script,
      "#!/bin/sh\necho 'src/main.c:12:5: error: expected ; before return' >&2\nexit 3\n",
    );
    await Deno.chmod(script, 0o755);
    const failing = await runVantage(["build", "--tag", "ci", "--", script], { env: home.env });
    assert.equal(failing.code, 3);
    assert.match(failing.stderr, /src\/main\.c:12:5: error: expected ; before return/);
    assert.match(failing.stderr, /vantage build: exit 3 .*1 error parsed/);

    const status = await runVantage(["call", "agent.get_build_status", '{"tag":"ci"}'], {
      env: home.env,
    });
    assert.equal(status.code, 0, status.stderr);
    const body = JSON.parse(status.stdout);
    assert.equal(body.status, "failing");
    assert.equal(body.exit_code, 3);
    assert.equal(body.stale, false);
    assert.equal(body.last_error.file, "src/main.c");
    assert.equal(body.last_error.line, 12);

    const passing = await runVantage(["build", "--tag", "ci", "--", "true"], { env: home.env });
    assert.equal(passing.code, 0);
    const after = JSON.parse(
      (await runVantage(["call", "agent.get_build_status", '{"tag":"ci"}'], { env: home.env }))
        .stdout,
    );
    assert.equal(after.status, "passing");

    const missing = await runVantage(["build", "--tag", "ci"], { env: home.env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /give the command after '--'/);

    const refreshed = await runVantage(["project", "refresh", project, "--json"], {
      env: home.env,
    });
    assert.equal(refreshed.code, 0, refreshed.stderr);
    assert.equal(JSON.parse(refreshed.stdout).root, project);
  } finally {
    await home.cleanup();
  }
});
