import assert from "node:assert/strict";
import { join } from "node:path";
import { getJsonValue } from "../../src/install/json_edit.ts";
import { runVantageCommand, snapshot, temporaryHome, writeTree } from "./support.ts";

Deno.test("install --dry-run prints the exact diff per file and writes nothing", async () => {
  const home = await temporaryHome();
  try {
    await writeTree(home, { ".codex/config.toml": '# mine\nmodel = "gpt-5"\n' });
    const before = await snapshot(home);
    const run = await runVantageCommand(["install", "--adapter", "codex", "--dry-run"], home);
    assert.equal(run.code, 0, run.stderr);
    const config = join(home, ".codex/config.toml");
    assert.ok(
      run.stdout.startsWith(
        `--- ${config}\n+++ ${config}\n@@ -1,2 +1,11 @@\n # mine\n model = "gpt-5"\n+\n+[mcp_servers.vantage]\n+command = `,
      ),
      run.stdout,
    );
    assert.match(
      run.stdout,
      /\n--- \/dev\/null\n\+\+\+ .*\/\.codex\/hooks\.json\n@@ -0,0 \+1,\d+ @@\n\+\{\n/,
    );
    assert.match(run.stdout, /\(dry run: nothing was written\)\n$/);
    assert.deepEqual(await snapshot(home), before);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("install, install again, uninstall: reports, and the home is as it was", async () => {
  const home = await temporaryHome();
  try {
    await writeTree(home, { ".copilot/mcp-config.json": '{\n  "mcpServers": {}\n}\n' });
    const before = await snapshot(home);
    const first = await runVantageCommand(["install", "--adapter", "copilot-cli"], home);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Installed Vantage for GitHub Copilot CLI:\n/);
    assert.match(
      first.stdout,
      /\n {2}updated ~\/\.copilot\/mcp-config\.json {2}\(MCP server; original saved as ~\/\.copilot\/mcp-config\.json\.vantage-backup\)\n/,
    );
    assert.match(first.stdout, /\n {2}created ~\/\.copilot\/hooks\/vantage\.json {2}\(hooks\)\n/);
    assert.match(first.stdout, /`copilot mcp list`/);
    const installed = await snapshot(home);
    const second = await runVantageCommand(["install", "--adapter", "copilot-cli"], home);
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stdout,
      /^Vantage is already installed for GitHub Copilot CLI as asked; nothing changed\.\n/,
    );
    assert.deepEqual(await snapshot(home), installed);
    const dry = await runVantageCommand(
      ["uninstall", "--adapter", "copilot-cli", "--dry-run"],
      home,
    );
    assert.match(dry.stdout, /\n\+\+\+ \/dev\/null\n/);
    assert.deepEqual(await snapshot(home), installed);
    const removed = await runVantageCommand(["uninstall", "--adapter", "copilot-cli"], home);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(
      removed.stdout,
      /^Removed Vantage from GitHub Copilot CLI:\n {2}restored ~\/\.copilot\/mcp-config\.json/,
    );
    assert.match(removed.stdout, /the original came back byte for byte/);
    assert.deepEqual(await snapshot(home), before);
    const again = await runVantageCommand(["uninstall", "--adapter", "copilot-cli"], home);
    assert.match(
      again.stdout,
      /^Vantage was not installed for GitHub Copilot CLI; no agent file changed\./,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("codex install says how to trust the hooks in /hooks", async () => {
  const home = await temporaryHome();
  try {
    const run = await runVantageCommand(["install", "--adapter", "codex", "--autostart"], home);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Start `codex`, type `\/hooks`, review the Vantage hooks/);
    assert.match(
      run.stdout,
      /systemctl --user daemon-reload && systemctl --user enable --now vantage/,
    );
    const quiet = await runVantageCommand(["install", "--adapter", "codex", "--no-hooks"], home);
    assert.doesNotMatch(quiet.stdout, /`\/hooks`/);
    assert.match(quiet.stdout, /\n {2}removed ~\/\.codex\/hooks\.json {2}\(hooks\)\n/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("bad flags and malformed configs fail with one clear line and change nothing", async () => {
  const home = await temporaryHome();
  try {
    await writeTree(home, { ".claude.json": '{\n  "projects": {\n    "/a": {,}\n  }\n}\n' });
    const before = await snapshot(home);
    const cases: Array<[string[], number, RegExp]> = [
      [
        ["install"],
        2,
        /^vantage install: missing --adapter; choose one of: claude-code, codex, copilot-cli, openclaw\n$/,
      ],
      [["install", "--adapter", "cursor"], 2, /unknown adapter 'cursor'/],
      [
        ["install", "--adapter", "codex", "--project", "."],
        2,
        /--project applies to claude-code only/,
      ],
      [["install", "--adapter", "codex", "--surface", "wide"], 2, /unknown surface 'wide'/],
      [["install", "--adapter", "codex", "--scopes", "root"], 2, /unknown scope 'root'/],
      [["install", "--adapter", "codex", "--bogus"], 2, /Unknown option '--bogus'/],
      [["uninstall", "--adapter", "codex", "--no-hooks"], 2, /Unknown option '--no-hooks'/],
      [
        ["install", "--adapter", "claude-code"],
        1,
        /^vantage install: .*\/\.claude\.json:3:12: not valid JSON at line 3, column 12 \(unexpected ','\); Vantage never overwrites/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const run = await runVantageCommand(args, home);
      assert.equal(run.code, code, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    }
    assert.deepEqual(await snapshot(home), before);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor: nothing installed, a healthy install, then a broken command", async () => {
  const home = await temporaryHome();
  try {
    const empty = await runVantageCommand(["doctor"], home);
    assert.equal(empty.code, 1);
    assert.match(empty.stdout, /Vantage is not installed in any agent/);
    await runVantageCommand(["install", "--adapter", "claude-code"], home);
    const healthy = await runVantageCommand(["doctor", "--json"], home);
    assert.equal(healthy.code, 0, healthy.stdout + healthy.stderr);
    const report = JSON.parse(healthy.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.server.status, "warn");
    assert.equal(report.server.url, "http://127.0.0.1:9/api/health");
    const claude = report.adapters.find((a: { adapter: string }) => a.adapter === "claude-code");
    assert.deepEqual(
      claude.checks.map((c: { name: string; status: string }) => `${c.name}:${c.status}`),
      ["config:ok", "mcp entry:ok", "command:ok", "mcp initialize:ok", "hooks:ok"],
    );
    assert.match(
      claude.checks[3].detail,
      /^answered initialize as vantage \d+\.\d+\.\d+ in \d+ ms and tools\/list \(2 tools\) in \d+ ms, all from Deno's cache$/,
    );
    assert.equal(report.adapters.filter((a: { installed: boolean }) => a.installed).length, 1);

    const file = join(home, ".claude.json");
    const config = JSON.parse(await Deno.readTextFile(file));
    config.mcpServers.vantage.command = "/nonexistent/vantage";
    await Deno.writeTextFile(file, JSON.stringify(config, null, 2) + "\n");
    const broken = await runVantageCommand(["doctor", "--adapter", "claude-code"], home);
    assert.equal(broken.code, 1);
    assert.match(
      broken.stdout,
      /✘ command: \/nonexistent\/vantage is not an executable file\n {6}fix: vantage install --adapter claude-code/,
    );
    assert.match(broken.stdout, /⚠ server: http:\/\/127\.0\.0\.1:9\/api\/health is not reachable/);
    await Deno.writeTextFile(file, "{\n  oops\n}\n");
    const malformed = await runVantageCommand(["doctor", "--adapter", "claude-code"], home);
    assert.equal(malformed.code, 1);
    assert.match(malformed.stdout, /✘ config: ~\/\.claude\.json:2:3: not valid JSON/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a symlinked JSON5 config is edited through its link and given back byte for byte", async () => {
  const home = await temporaryHome();
  try {
    // A dotfiles checkout holds the real file; ~/.openclaw/openclaw.json links to it.
    const original = `// mine, kept in dotfiles
{
  gateway: { port: 18789, },
  mcp: { servers: { 'fs': { command: "npx", }, }, },
}
`;
    await writeTree(home, { "dotfiles/openclaw.json5": original });
    await Deno.mkdir(join(home, ".openclaw"));
    await Deno.symlink("../dotfiles/openclaw.json5", join(home, ".openclaw/openclaw.json"));
    const before = await snapshot(home);
    const run = await runVantageCommand(["install", "--adapter", "openclaw"], home);
    assert.equal(run.code, 0, run.stderr);
    const installed = await snapshot(home);
    assert.equal(installed[".openclaw/openclaw.json"], "<link ../dotfiles/openclaw.json5>");
    const edited = installed["dotfiles/openclaw.json5"];
    assert.ok(
      edited.startsWith(
        `// mine, kept in dotfiles\n{\n  gateway: { port: 18789, },\n` +
          `  mcp: { servers: { 'fs': { command: "npx", }, "vantage": {"command":`,
      ),
      edited,
    );
    assert.ok(edited.endsWith(`}, }, },\n}\n`), edited);
    const servers = getJsonValue(edited, "json5", ["mcp", "servers"], "openclaw.json5");
    assert.deepEqual(Object.keys(servers as object), ["fs", "vantage"]);
    const removed = await runVantageCommand(["uninstall", "--adapter", "openclaw"], home);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(await snapshot(home), before);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
