import assert from "node:assert/strict";
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { VantageError } from "../../src/core/errors.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import type { AdapterName } from "../../src/install/agent.ts";
import { autostartUnit } from "../../src/install/autostart.ts";
import type { InstallEnvironment } from "../../src/install/environment.ts";
import {
  applyPlan,
  type InstallRequest,
  planChangesNothing,
  planDiff,
  planInstall,
  planUninstall,
  purgeDataHome,
} from "../../src/install/installer.ts";
import { readTomlTable } from "../../src/install/toml_edit.ts";
import { snapshot, temporaryHome, testEnvironment, writeTree } from "./support.ts";

/** Each agent's config as a user might have it before Vantage: their own servers, hooks, comments. */
const USER_FILES: Record<AdapterName, Record<string, string>> = {
  "claude-code": {
    ".claude.json": `{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://example.test/mcp"
    }
  },
  "projects": {
    "/work/app": {
      "allowedTools": []
    }
  }
}
`,
    ".claude/settings.json": `{
    "model": "opus",
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "prettier --write ."}]
            }
        ]
    }
}`,
  },
  "codex": {
    ".codex/config.toml": `# my Codex config
model = "gpt-5" # default

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.github.env]
GITHUB_TOKEN = "token"
`,
    ".codex/hooks.json": `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          { "type": "command", "command": "notify-send done", "timeout": 3 }
        ]
      }
    ]
  }
}
`,
  },
  "copilot-cli": {
    ".copilot/mcp-config.json": `{
  "mcpServers": {
    "playwright": {
      "tools": ["*"],
      "type": "local",
      "command": "npx",
      "args": ["@playwright/mcp@latest"]
    }
  }
}
`,
    ".copilot/hooks/mine.json":
      `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh"}]}}\n`,
  },
  "openclaw": {
    ".openclaw/openclaw.json": `// OpenClaw settings
{
  gateway: { port: 18789 },
  mcp: {
    servers: {
      // the filesystem bridge
      fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/work"], },
    },
  },
}
`,
  },
};

const ADAPTERS = Object.keys(USER_FILES) as AdapterName[];

async function install(
  environment: InstallEnvironment,
  adapter: AdapterName,
  request: InstallRequest = { hooks: true },
) {
  return await applyPlan(environment, await planInstall(environment, adapter, request));
}

async function uninstall(environment: InstallEnvironment, adapter: AdapterName) {
  return await applyPlan(environment, await planUninstall(environment, adapter, { hooks: true }));
}

for (const adapter of ADAPTERS) {
  Deno.test(`${adapter}: install keeps the user's entries, twice is once, uninstall restores every byte`, async () => {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await writeTree(home, USER_FILES[adapter]);
      const before = await snapshot(home);
      const outcome = await install(environment, adapter);
      assert.ok(outcome.written.length > 0);
      const installed = await snapshot(home);
      for (const [path, text] of Object.entries(USER_FILES[adapter])) {
        if (installed[path] === text) continue; // A file Vantage does not touch.
        assert.ok(installed[path + ".vantage-backup"] === text, `${path} backed up`);
      }
      // The user's own entries are all still there.
      const joined = Object.values(installed).join("\n");
      for (
        const mark of [
          "github",
          "prettier --write .",
          "notify-send done",
          "playwright",
          "./audit.sh",
          "the filesystem bridge",
        ]
      ) {
        if (Object.values(USER_FILES[adapter]).join("").includes(mark)) {
          assert.ok(joined.includes(mark), mark);
        }
      }
      // A second install plans nothing and writes nothing.
      const again = await planInstall(environment, adapter, { hooks: true });
      assert.ok(planChangesNothing(again), planDiff(again));
      await applyPlan(environment, again);
      assert.deepEqual(await snapshot(home), installed);
      const removed = await uninstall(environment, adapter);
      assert.deepEqual(removed.backupsKept, []);
      assert.deepEqual(await snapshot(home), before);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });

  Deno.test(`${adapter}: into an empty home and back out leaves nothing behind`, async () => {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await install(environment, adapter, { hooks: true, surface: "full", scopes: ["agent:read"] });
      assert.ok(Object.keys(await snapshot(home)).length > 2);
      await uninstall(environment, adapter);
      assert.deepEqual(await snapshot(home), {});
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });
}

Deno.test("what the user changed after the install stays; only Vantage's entries go", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    await writeTree(home, USER_FILES.codex);
    await install(environment, "codex");
    const config = join(home, ".codex/config.toml");
    const edited =
      (await Deno.readTextFile(config)).replace('model = "gpt-5"', 'model = "gpt-5-codex"') +
      '\n[profiles.deep]\nmodel_reasoning_effort = "high"\n';
    await Deno.writeTextFile(config, edited);
    const outcome = await uninstall(environment, "codex");
    const text = await Deno.readTextFile(config);
    assert.equal(
      text,
      USER_FILES.codex[".codex/config.toml"].replace('model = "gpt-5"', 'model = "gpt-5-codex"') +
        '\n[profiles.deep]\nmodel_reasoning_effort = "high"\n',
    );
    assert.equal(readTomlTable(text, config, ["mcp_servers", "vantage"]), undefined);
    assert.deepEqual(outcome.backupsKept, [config + ".vantage-backup"]);
    assert.equal(
      await Deno.readTextFile(config + ".vantage-backup"),
      USER_FILES.codex[".codex/config.toml"],
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("Claude Code rewriting its own file does not stop Vantage's entry from leaving", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    await install(environment, "claude-code");
    const file = join(home, ".claude.json");
    const parsed = JSON.parse(await Deno.readTextFile(file));
    parsed.firstStartTime = "2026-01-01T00:00:00.000Z";
    await Deno.writeTextFile(file, JSON.stringify(parsed, null, 2));
    await uninstall(environment, "claude-code");
    assert.equal(
      await Deno.readTextFile(file),
      '{\n  "firstStartTime": "2026-01-01T00:00:00.000Z"\n}',
    );
    assert.deepEqual(Object.keys(await snapshot(home)).sort(), [".claude.json"]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a malformed config stops the install with its line and column, and nothing is written", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    const broken: Array<[AdapterName, string, string, RegExp]> = [
      [
        "claude-code",
        ".claude.json",
        '{\n  "a": 1,\n  "b": 2,\n}\n',
        /\.claude\.json:4:1: not valid JSON/,
      ],
      [
        "codex",
        ".codex/config.toml",
        'model = "gpt-5"\n[mcp_servers.x\n',
        /config\.toml:2:15: not valid TOML/,
      ],
      [
        "copilot-cli",
        ".copilot/mcp-config.json",
        '{"mcpServers": {"a": }}',
        /mcp-config\.json:1:22: not valid JSON/,
      ],
      [
        "openclaw",
        ".openclaw/openclaw.json",
        "{\n  mcp: {servers: {,}}\n}",
        /openclaw\.json:2:19: not valid JSON5 at line 2, column 19 \(unexpected ','\)/,
      ],
    ];
    for (const [adapter, path, text, message] of broken) {
      await writeTree(home, { [path]: text });
      const before = await snapshot(home);
      await assert.rejects(
        () => planInstall(environment, adapter, { hooks: true }),
        (error: unknown) => {
          assert.ok(error instanceof VantageError);
          assert.match(error.message, message);
          return true;
        },
      );
      await assert.rejects(() => planUninstall(environment, adapter, { hooks: true }), message);
      assert.deepEqual(await snapshot(home), before);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a backup is made once and never overwritten", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    await writeTree(home, {
      ".copilot/mcp-config.json": '{"mcpServers": {}}\n',
      ".copilot/mcp-config.json.vantage-backup": "an older backup\n",
    });
    const outcome = await install(environment, "copilot-cli");
    assert.deepEqual(outcome.backups, []);
    assert.match(outcome.warnings.join(), /already existed and holds an older version/);
    assert.equal(
      await Deno.readTextFile(join(home, ".copilot/mcp-config.json.vantage-backup")),
      "an older backup\n",
    );
    await install(environment, "copilot-cli", { hooks: true, surface: "composite" });
    assert.equal(
      await Deno.readTextFile(join(home, ".copilot/mcp-config.json.vantage-backup")),
      "an older backup\n",
    );
    // Without a trustworthy backup, uninstall takes the entry out of the file instead.
    await uninstall(environment, "copilot-cli");
    assert.equal(
      await Deno.readTextFile(join(home, ".copilot/mcp-config.json")),
      '{"mcpServers": {}}\n',
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("--no-hooks takes earlier hooks out and registers none", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    await writeTree(home, USER_FILES["claude-code"]);
    await install(environment, "claude-code");
    await install(environment, "copilot-cli");
    await install(environment, "claude-code", { hooks: false });
    await install(environment, "copilot-cli", { hooks: false });
    assert.equal(
      await Deno.readTextFile(join(home, ".claude/settings.json")),
      USER_FILES["claude-code"][".claude/settings.json"],
    );
    await assert.rejects(
      () => Deno.stat(join(home, ".copilot/hooks/vantage.json")),
      Deno.errors.NotFound,
    );
    assert.ok((await Deno.readTextFile(join(home, ".claude.json"))).includes('"vantage"'));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the registered commands: deno run with scoped permissions, or the compiled binary", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home, {
      variables: { VANTAGE_HOME: join(home, "data") },
      dataHome: join(home, "data"),
    });
    await install(environment, "codex", {
      hooks: true,
      surface: "full",
      scopes: ["agent:read", "docs:read"],
    });
    const config = await Deno.readTextFile(join(home, ".codex/config.toml"));
    const table = readTomlTable(config, "config.toml", ["mcp_servers", "vantage"]) as Record<
      string,
      unknown
    >;
    const paths = { ...resolvePaths(join(home, "data")), userHome: home };
    assert.equal(table.command, Deno.execPath());
    assert.deepEqual(table.args, [
      "run",
      "--quiet",
      ...permissionFlags("mcp-serve", paths, []),
      environment.mainPath,
      "mcp-serve",
      "--surface",
      "full",
      "--scopes",
      "agent:read,docs:read",
    ]);
    assert.ok(!(table.args as string[]).includes("-A"));
    assert.equal(table.startup_timeout_sec, 10);
    assert.deepEqual(table.env, { VANTAGE_MCP_CALLER: "codex", VANTAGE_HOME: join(home, "data") });
    const hooks = JSON.parse(await Deno.readTextFile(join(home, ".codex/hooks.json"))).hooks;
    const line: string = hooks.SessionStart[0].hooks[0].command;
    assert.ok(line.startsWith(`VANTAGE_HOME=${join(home, "data")} ${Deno.execPath()} run `), line);
    for (const flag of permissionFlags("hook", paths, [])) {
      assert.ok(line.includes(flag.replace("*", "")), flag);
    }
    assert.ok(line.endsWith(` ${environment.mainPath} hook --agent codex`));
    assert.equal(hooks.UserPromptSubmit[0].matcher, undefined);
    assert.equal(hooks.Stop[0].matcher, undefined);
    assert.equal(hooks.PreToolUse[0].matcher, "*");

    const compiled = testEnvironment(home, { execPath: "/opt/vantage/bin/vantage" });
    await install(compiled, "claude-code");
    const claude = JSON.parse(await Deno.readTextFile(join(home, ".claude.json")));
    assert.deepEqual(claude.mcpServers.vantage, {
      type: "stdio",
      command: "/opt/vantage/bin/vantage",
      args: ["mcp-serve"],
      env: { VANTAGE_MCP_CALLER: "claude_code" },
    });
    const settings = JSON.parse(await Deno.readTextFile(join(home, ".claude/settings.json")));
    assert.deepEqual(Object.keys(settings.hooks), [
      "SessionStart",
      "UserPromptSubmit",
      "PreToolUse",
      "PostToolUse",
      "PostToolUseFailure",
      "Stop",
      "PreCompact",
      "SessionEnd",
    ]);
    assert.deepEqual(settings.hooks.PostToolUseFailure, [{
      matcher: "*",
      hooks: [{
        type: "command",
        command: "/opt/vantage/bin/vantage hook --agent claude-code",
        timeout: 5,
      }],
    }]);
    const skill = await Deno.readTextFile(join(home, ".claude/skills/vantage/SKILL.md"));
    assert.match(skill, /^---\nname: vantage\ndescription: .+\n---\n/);
    for (
      const op of [
        "get_context_bundle",
        "get_anomalies",
        "search_sessions",
        "exec_query",
        "docs.search",
        "dex.describe",
      ]
    ) {
      assert.ok(skill.includes(op), op);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("Copilot and OpenClaw entries have their own shapes; DENO_DIR stays out of OpenClaw's", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home, { variables: { DENO_DIR: "/cache/deno" } });
    await install(environment, "copilot-cli");
    await install(environment, "openclaw");
    const copilot = JSON.parse(await Deno.readTextFile(join(home, ".copilot/mcp-config.json")));
    assert.equal(copilot.mcpServers.vantage.type, "local");
    assert.deepEqual(copilot.mcpServers.vantage.tools, ["*"]);
    assert.deepEqual(copilot.mcpServers.vantage.env, {
      VANTAGE_MCP_CALLER: "copilot_cli",
      DENO_DIR: "/cache/deno",
    });
    const hooks = JSON.parse(await Deno.readTextFile(join(home, ".copilot/hooks/vantage.json")));
    assert.equal(hooks.version, 1);
    assert.deepEqual(Object.keys(hooks.hooks), [
      "sessionStart",
      "userPromptSubmitted",
      "preToolUse",
      "postToolUse",
      "postToolUseFailure",
      "agentStop",
      "preCompact",
      "sessionEnd",
    ]);
    assert.equal(hooks.hooks.agentStop[0].timeoutSec, 5);
    assert.match(
      hooks.hooks.agentStop[0].bash,
      /^DENO_DIR=\/cache\/deno .* hook --agent copilot-cli$/,
    );
    const openclaw = JSON.parse(await Deno.readTextFile(join(home, ".openclaw/openclaw.json")));
    assert.equal(openclaw.mcp.servers.vantage.enabled, true);
    assert.deepEqual(openclaw.mcp.servers.vantage.env, { VANTAGE_MCP_CALLER: "openclaw" });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("Claude Code's project scope writes DIR/.mcp.json and leaves ~/.claude.json alone", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    const project = join(home, "app");
    await writeTree(home, {
      "app/.mcp.json": '{\n  "mcpServers": {}\n}\n',
      ".claude.json": "{}\n",
    });
    await install(environment, "claude-code", { hooks: false, project });
    assert.equal(await Deno.readTextFile(join(home, ".claude.json")), "{}\n");
    const mcp = JSON.parse(await Deno.readTextFile(join(project, ".mcp.json")));
    assert.equal(mcp.mcpServers.vantage.type, "stdio");
    // An uninstall without --project still finds the recorded project file.
    await uninstall(environment, "claude-code");
    assert.equal(await Deno.readTextFile(join(project, ".mcp.json")), '{\n  "mcpServers": {}\n}\n');
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("agent folder overrides are honoured (CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME, OPENCLAW_STATE_DIR)", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home, {
      variables: {
        CLAUDE_CONFIG_DIR: join(home, "cc"),
        CODEX_HOME: join(home, "cx"),
        COPILOT_HOME: join(home, "cp"),
        OPENCLAW_STATE_DIR: join(home, "oc"),
      },
    });
    for (const adapter of ADAPTERS) await install(environment, adapter);
    const files = Object.keys(await snapshot(home)).filter((path) => !path.endsWith("/"));
    assert.deepEqual(files.filter((path) => !path.startsWith(".vantage")).sort(), [
      "cc/.claude.json",
      "cc/settings.json",
      "cc/skills/vantage/SKILL.md",
      "cp/hooks/vantage.json",
      "cp/mcp-config.json",
      "cx/config.toml",
      "cx/hooks.json",
      "oc/openclaw.json",
    ]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("--autostart writes a systemd unit or a launchd agent, removed with the last agent", async () => {
  const home = await temporaryHome();
  try {
    const linux = testEnvironment(home, {
      variables: { VANTAGE_HOME: "/data/100% vantage" },
      dataHome: "/data/100% vantage",
    });
    const unit = autostartUnit(linux)!;
    assert.equal(unit.path, join(home, ".config/systemd/user/vantage.service"));
    // Quoted for the space, `%` doubled for systemd.
    assert.match(unit.content, /\nExecStart=\S+deno run .*"--allow-write=\/data\/100%% vantage"/);
    assert.match(unit.content, / \S+main\.ts serve\n/);
    assert.match(unit.content, /\nEnvironment="VANTAGE_HOME=\/data\/100%% vantage"\n/);
    assert.deepEqual(unit.enable, [
      "systemctl --user daemon-reload",
      "systemctl --user enable --now vantage",
    ]);
    const mac = autostartUnit(testEnvironment(home, { platform: "darwin" }))!;
    assert.equal(mac.path, join(home, "Library/LaunchAgents/dev.vantage.serve.plist"));
    assert.match(
      mac.content,
      /<key>ProgramArguments<\/key>\n {2}<array>\n {4}<string>.+deno<\/string>\n {4}<string>run<\/string>/,
    );
    assert.equal(autostartUnit(testEnvironment(home, { platform: "windows" })), undefined);

    const environment = testEnvironment(home);
    await install(environment, "codex", { hooks: true, autostart: true });
    await install(environment, "openclaw", { hooks: true });
    assert.ok(
      (await Deno.readTextFile(join(home, ".config/systemd/user/vantage.service"))).includes(
        "serve",
      ),
    );
    await uninstall(environment, "codex");
    await Deno.stat(join(home, ".config/systemd/user/vantage.service"));
    await uninstall(environment, "openclaw");
    assert.deepEqual(await snapshot(home), {});
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("--purge-data deletes the data home but never the user's home", async () => {
  const home = await temporaryHome();
  try {
    await writeTree(home, {
      ".vantage/vantage.db": "x",
      ".vantage/spool/hooks.jsonl": "{}\n",
      "keep.txt": "mine",
    });
    const removed = await purgeDataHome(testEnvironment(home));
    assert.ok(removed.includes(join(home, ".vantage")));
    assert.deepEqual(await snapshot(home), { "keep.txt": "mine" });
    await assert.rejects(
      () => purgeDataHome(testEnvironment(home, { dataHome: home })),
      /refusing to purge/,
    );
    await assert.rejects(
      () => purgeDataHome(testEnvironment(home, { dataHome: "/" })),
      /refusing to purge/,
    );
    await assert.rejects(
      () => purgeDataHome(testEnvironment(home, { dataHome: join(home, "..") })),
      /refusing to purge/,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
