/**
 * `vantage doctor` checks the telemetry settings `install --otel` wrote, end
 * to end against a real `serve`: they point at it and it takes a test
 * export; `serve` moved, a signal sent elsewhere by the user, or a token
 * `serve` refuses, each fails with the key or the answer named. Without
 * `--otel` there is no telemetry check at all.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { getJsonValue, setJsonValue } from "../../src/install/json_edit.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { startServe } from "../helpers/serve_process.ts";

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

interface Report {
  ok: boolean;
  adapters: Array<{ adapter: string; installed: boolean; checks: Check[] }>;
}

const ADAPTERS = ["claude-code", "codex", "openclaw"];

/** A header with a token serve does not know, as Claude Code's settings spell headers. */
const WRONG_TOKEN_HEADER = "Authorization=Bearer%20not-the-token";

async function doctor(env: Record<string, string>): Promise<Report> {
  const run = await runVantage(["doctor", "--json"], { env });
  assert.ok(run.stdout.startsWith("{"), run.stdout + run.stderr);
  return JSON.parse(run.stdout);
}

function telemetryOf(report: Report, adapter: string): Check | undefined {
  return report.adapters.find((entry) => entry.adapter === adapter)?.checks
    .find((check) => check.name === "telemetry");
}

Deno.test({
  name: "doctor finds the agents' telemetry settings pointing at serve, and each way they do not",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const server = await startServe(home);
    try {
      const env = { ...home.env, VANTAGE_URL: server.url };
      for (const adapter of ADAPTERS) {
        const install = await runVantage(
          ["install", "--adapter", adapter, "--no-hooks", "--no-warm"],
          { env },
        );
        assert.equal(install.code, 0, install.stderr);
      }
      // Installed without --otel: nothing to check.
      const plain = await doctor(env);
      for (const adapter of ADAPTERS) assert.equal(telemetryOf(plain, adapter), undefined);

      for (const adapter of ADAPTERS) {
        const install = await runVantage(
          ["install", "--adapter", adapter, "--otel", "--no-hooks", "--no-warm"],
          { env },
        );
        assert.equal(install.code, 0, install.stderr);
      }
      const healthy = await doctor(env);
      assert.equal(healthy.ok, true, JSON.stringify(healthy, null, 1));
      for (const adapter of ADAPTERS) {
        const check = telemetryOf(healthy, adapter);
        assert.equal(check?.status, "ok", `${adapter}: ${JSON.stringify(check)}`);
        assert.match(
          check.detail,
          new RegExp(`^exports to ${server.url} .*serve took a test export$`),
        );
      }

      // serve moved to another port: every agent still exports to the old one.
      const moved = await doctor({ ...env, VANTAGE_URL: "http://127.0.0.1:9" });
      assert.equal(moved.ok, false);
      const expected: Record<string, string> = {
        "claude-code":
          `env.OTEL_EXPORTER_OTLP_ENDPOINT is '${server.url}', not 'http://127.0.0.1:9'`,
        "codex": "[otel] exporter is ",
        "openclaw": `diagnostics.otel.endpoint is '${server.url}', not 'http://127.0.0.1:9'`,
      };
      for (const adapter of ADAPTERS) {
        const check = telemetryOf(moved, adapter);
        assert.equal(check?.status, "fail", adapter);
        assert.ok(check.detail.includes(expected[adapter]), check.detail);
        assert.match(
          check.detail,
          /so the agent's telemetry does not reach serve at http:\/\/127\.0\.0\.1:9$/,
        );
        assert.equal(check.fix?.startsWith(`vantage install --adapter ${adapter} --otel`), true);
      }

      // The user sends Claude Code's logs elsewhere.
      const settings = join(home.home, ".claude", "settings.json");
      const installed = await Deno.readTextFile(settings);
      const logsPath = ["env", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"];
      await Deno.writeTextFile(
        settings,
        setJsonValue(installed, "json", logsPath, "http://collector:4318/v1/logs", settings),
      );
      const elsewhere = telemetryOf(await doctor(env), "claude-code");
      assert.equal(elsewhere?.status, "fail");
      assert.match(
        elsewhere.detail,
        /^env\.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT is 'http:\/\/collector:4318\/v1\/logs', which would send that signal somewhere other than Vantage/,
      );

      // A token serve does not know: the test export is refused.
      const headersPath = ["env", "OTEL_EXPORTER_OTLP_HEADERS"];
      await Deno.writeTextFile(
        settings,
        setJsonValue(
          installed,
          "json",
          headersPath,
          WRONG_TOKEN_HEADER,
          settings,
        ),
      );
      assert.equal(
        getJsonValue(await Deno.readTextFile(settings), "json", headersPath, settings),
        WRONG_TOKEN_HEADER,
      );
      const refused = telemetryOf(await doctor(env), "claude-code");
      assert.equal(refused?.status, "fail");
      assert.equal(
        refused.detail,
        `serve refuses the agent's exports to ${server.url}/v1/logs (HTTP 401): the settings' token is not serve's`,
      );

      // Installed for a team server with its token, checked against this one: the token that
      // Codex's exporter carries is not printed.
      const team = await runVantage(
        ["install", "--adapter", "codex", "--otel", "--no-hooks", "--no-warm"],
        {
          env: { ...env, VANTAGE_URL: "http://10.9.8.7:14300", VANTAGE_TOKEN: "team-secret-7f3a" },
        },
      );
      assert.equal(team.code, 0, team.stderr);
      const codex = telemetryOf(await doctor(env), "codex");
      assert.equal(codex?.status, "fail");
      assert.ok(codex.detail.includes("[otel] exporter is "), codex.detail);
      assert.ok(codex.detail.includes("(not shown)"), codex.detail);
      assert.ok(!codex.detail.includes("team-secret"), codex.detail);
    } finally {
      await server.stop();
      await Deno.remove(home.home, { recursive: true }).catch(() => {});
    }
  },
});
