/**
 * The real Codex CLI, offline against a scripted Responses API server, with Vantage installed:
 * a build fails three times in a row. Codex's PostToolUse hook carries only the command's
 * output, not its exit code; Vantage reads the exit code from the rollout, so the failures
 * count as failures and what Codex sends the model next names `repeated_failed_build` inside a
 * <vantage-context> block, as it does for Claude Code.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { codexBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { type ResponseItem, startScriptedOpenAIServer } from "../helpers/scripted_openai_server.ts";
import { startServe } from "../helpers/serve_process.ts";

const CODEX = codexBinary();
if (CODEX === undefined) {
  console.log(`skipping the Codex context test: ${missingClientReason("codex")}`);
}

function bodyText(body: unknown): string {
  return JSON.stringify(body ?? "");
}

Deno.test({
  name: "Codex's next model request names repeated_failed_build after a build fails three times",
  ignore: CODEX === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const project = join(home.home, "work", "app");
    await Deno.mkdir(project, { recursive: true });
    const env = { ...home.env, VANTAGE_ROOTS: project };
    const install = await runVantage(["install", "--adapter", "codex"], { env });
    assert.equal(install.code, 0, install.stderr);
    const server = await startServe({ ...home, env }, [], [project]);

    const build: ResponseItem = {
      type: "function_call",
      name: "exec_command",
      arguments: { cmd: "make build-zeta" },
    };
    const model = startScriptedOpenAIServer([
      { items: [build] },
      { items: [build] },
      { items: [build] },
      { items: [{ type: "message", text: "The build target does not exist." }] },
    ]);
    // Vantage's installer keeps the user's config.toml; the scripted provider goes first.
    const config = join(home.home, ".codex", "config.toml");
    await Deno.writeTextFile(
      config,
      [
        `model = "gpt-5"`,
        `model_provider = "fake"`,
        ``,
        `[model_providers.fake]`,
        `name = "fake"`,
        `base_url = "${model.url}"`,
        `wire_api = "responses"`,
        `env_key = "FAKE_KEY"`,
        ``,
        await Deno.readTextFile(config),
      ].join("\n"),
    );
    try {
      const run = await new Deno.Command(CODEX!, {
        args: [
          "exec",
          "--skip-git-repo-check",
          "--dangerously-bypass-approvals-and-sandbox",
          // Codex runs only hooks a person trusted in /hooks; a headless run says so here.
          "--dangerously-bypass-hook-trust",
          "Build the zeta target",
        ],
        cwd: project,
        env: { ...env, FAKE_KEY: "test-key", VANTAGE_URL: server.url, DENO_DIR: denoDir() },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      const decoder = new TextDecoder();
      assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
      const main = model.requests.filter((r) => r.main);
      assert.equal(main.length, 4, "every scripted turn was played");

      // The model saw each failure's output; before the third one nothing said "repeated".
      assert.match(bodyText(main[1].body), /No rule to make target 'build-zeta'/);
      assert.doesNotMatch(bodyText(main[2].body), /repeated_failed_build/);
      // Right after the third failure, Codex hands the model Vantage's context.
      const afterThird = bodyText(main[3].body);
      assert.match(afterThird, /<vantage-context>/);
      assert.match(
        afterThird,
        /repeated_failed_build: `make build-zeta` failed 3 times[^"]*latest: Exit code 2/,
      );

      // In the store: three tool results, each a failure with Codex's exit code, and the finding.
      const db = new DatabaseSync(`${home.dataHome}/vantage.db`, { readOnly: true });
      try {
        const results = db.prepare(
          `SELECT success, error FROM events
           WHERE agent = 'codex' AND event_type = 'PostToolUse' ORDER BY id`,
        ).all() as Array<{ success: number | null; error: string | null }>;
        assert.deepEqual(results.map((r) => r.success), [0, 0, 0]);
        assert.ok(results.every((r) => r.error?.startsWith("Exit code 2\nmake: *** No rule")));
        const kinds = (db.prepare("SELECT kind FROM anomalies ORDER BY kind").all() as Array<
          { kind: string }
        >).map((r) => r.kind);
        assert.ok(kinds.includes("repeated_failed_build"), kinds.join(","));
      } finally {
        db.close();
      }
    } finally {
      await model.close();
      await server.stop();
      await home.cleanup();
    }
  },
});
