/**
 * The four real agent clients read what `vantage install` wrote: Claude Code
 * starts the server and reports it connected, Codex lists it enabled, Copilot
 * CLI lists it, OpenClaw lists and probes it. Each test ignores itself, with
 * the reason printed, when its client is not installed.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import {
  claudeBinary,
  codexBinary,
  copilotBinary,
  missingClientReason,
  openclawBinary,
  openclawNode,
} from "../helpers/agent_clients.ts";
import {
  baseEnvironment,
  realDenoDir,
  runVantageCommand,
  snapshot,
  temporaryHome,
  writeTree,
} from "./support.ts";

const CLAUDE = claudeBinary();
const CODEX = codexBinary();
const COPILOT = copilotBinary();
const OPENCLAW = openclawBinary();
const OPENCLAW_NODE = openclawNode();

const CLIENTS: Array<[string, string | undefined]> = [
  ["claude", CLAUDE],
  ["codex", CODEX],
  ["copilot", COPILOT],
  ["openclaw", OPENCLAW],
];
for (const [name, binary] of CLIENTS) {
  if (binary === undefined) console.log(`skipping the ${name} tests: ${missingClientReason(name)}`);
}

/** Runs a client with the temporary home, a bounded time, and returns what it printed. */
async function client(
  command: string,
  args: string[],
  home: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: home,
    env: baseEnvironment(home, env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(90_000),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function install(home: string, adapter: string): Promise<void> {
  const run = await runVantageCommand(["install", "--adapter", adapter], home);
  assert.equal(run.code, 0, run.stderr);
}

async function uninstall(home: string, adapter: string): Promise<void> {
  const run = await runVantageCommand(["uninstall", "--adapter", adapter], home);
  assert.equal(run.code, 0, run.stderr);
}

Deno.test({
  name: "Claude Code: `claude mcp list` starts Vantage and shows ✔ Connected",
  ignore: CLAUDE === undefined,
  async fn() {
    const home = await temporaryHome();
    const env = { IS_SANDBOX: "1", DISABLE_AUTOUPDATER: "1" };
    try {
      await writeTree(home, {
        ".claude.json":
          '{\n  "mcpServers": {\n    "echo": {"type": "stdio", "command": "/bin/true"}\n  }\n}\n',
      });
      await install(home, "claude-code");
      const listed = await client(CLAUDE!, ["mcp", "list"], home, env);
      console.log(listed.stdout.trim());
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /\nvantage: \S+ run .* mcp-serve - ✔ Connected\n/);
      assert.match(listed.stdout, /\necho: \/bin\/true/);
      const got = await client(CLAUDE!, ["mcp", "get", "vantage"], home, env);
      assert.match(got.stdout, /Scope: User config/);
      assert.match(got.stdout, /VANTAGE_MCP_CALLER=claude_code/);
      await uninstall(home, "claude-code");
      const after = await client(CLAUDE!, ["mcp", "list"], home, env);
      assert.doesNotMatch(after.stdout, /vantage/);
      assert.match(after.stdout, /echo: \/bin\/true/);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "Codex: `codex mcp list` shows Vantage enabled beside the user's servers",
  ignore: CODEX === undefined,
  async fn() {
    const home = await temporaryHome();
    try {
      const original =
        '# mine\nmodel = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-server"\nargs = ["--stdio"]\n';
      await writeTree(home, { ".codex/config.toml": original });
      await install(home, "codex");
      const table = await client(CODEX!, ["mcp", "list"], home);
      console.log(table.stdout.trim());
      assert.equal(table.code, 0, table.stderr);
      assert.match(
        table.stdout,
        /\nvantage +\S+deno +run .*mcp-serve +DENO_DIR=\*+, VANTAGE_MCP_CALLER=\*+ +- +enabled /,
      );
      const listed = JSON.parse((await client(CODEX!, ["mcp", "list", "--json"], home)).stdout);
      const vantage = listed.find((server: { name: string }) => server.name === "vantage");
      assert.equal(vantage.enabled, true);
      assert.equal(vantage.startup_timeout_sec, 10);
      assert.equal(vantage.transport.command, Deno.execPath());
      assert.equal(vantage.transport.env.VANTAGE_MCP_CALLER, "codex");
      assert.deepEqual(listed.map((server: { name: string }) => server.name).sort(), [
        "docs",
        "vantage",
      ]);
      await uninstall(home, "codex");
      assert.equal(await Deno.readTextFile(join(home, ".codex/config.toml")), original);
      const after = JSON.parse((await client(CODEX!, ["mcp", "list", "--json"], home)).stdout);
      assert.deepEqual(after.map((server: { name: string }) => server.name), ["docs"]);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "Copilot CLI: `copilot mcp list` and `copilot mcp get` accept Vantage",
  ignore: COPILOT === undefined,
  async fn() {
    const home = await temporaryHome();
    try {
      await install(home, "copilot-cli");
      const listed = await client(COPILOT!, ["mcp", "list"], home);
      console.log(listed.stdout.trim());
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /User servers:\n {2}vantage \(local\)/);
      const json = JSON.parse((await client(COPILOT!, ["mcp", "list", "--json"], home)).stdout);
      assert.equal(json.mcpServers.vantage.enabled, true);
      assert.equal(json.mcpServers.vantage.source, "user");
      const got = await client(COPILOT!, ["mcp", "get", "vantage"], home);
      assert.match(
        got.stdout,
        /Status: Enabled\n {2}Type: local\n {2}Command: \S+deno run .* mcp-serve\n/,
      );
      assert.match(got.stdout, /Tools: \* \(all\)/);
      await uninstall(home, "copilot-cli");
      const after = await client(COPILOT!, ["mcp", "list"], home);
      assert.match(after.stdout, /No MCP servers configured/);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "OpenClaw: `openclaw mcp list` lists Vantage and `openclaw mcp probe` reaches it",
  ignore: OPENCLAW === undefined,
  async fn() {
    const home = await temporaryHome();
    try {
      const original = "{\n  // mine\n  gateway: { port: 18789 },\n}\n";
      await writeTree(home, { ".openclaw/openclaw.json": original });
      // OpenClaw starts servers with a bare environment (no DENO_DIR), so Deno looks in the
      // default cache under HOME: point that at the real one instead of downloading again.
      await Deno.mkdir(join(home, ".cache"), { recursive: true });
      await Deno.symlink(realDenoDir(), join(home, ".cache", "deno"));
      await install(home, "openclaw");
      const env = { PATH: `${dirname(OPENCLAW_NODE!)}:${Deno.env.get("PATH") ?? ""}` };
      const listed = await client(OPENCLAW_NODE!, [OPENCLAW!, "mcp", "list", "--json"], home, env);
      assert.equal(listed.code, 0, listed.stderr);
      const servers = JSON.parse(listed.stdout);
      assert.equal(servers.vantage.enabled, true);
      assert.equal(servers.vantage.command, Deno.execPath());
      const probe = await client(
        OPENCLAW_NODE!,
        [OPENCLAW!, "mcp", "probe", "vantage", "--json"],
        home,
        env,
      );
      assert.equal(probe.code, 0, probe.stdout + probe.stderr);
      const report = JSON.parse(probe.stdout);
      console.log(
        `openclaw mcp probe: ${JSON.stringify(report.servers.vantage)} tools ${
          report.tools.join(", ")
        }`,
      );
      assert.equal(report.servers.vantage.tools, 2);
      assert.ok(
        report.tools.includes("vantage__search") && report.tools.includes("vantage__execute"),
      );
      await uninstall(home, "openclaw");
      assert.equal(await Deno.readTextFile(join(home, ".openclaw/openclaw.json")), original);
      const left = Object.keys(await snapshot(join(home, ".openclaw")));
      assert.ok(!left.some((path) => path.includes("vantage")), left.join(", "));
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
