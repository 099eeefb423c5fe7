/**
 * `vantage install --otel`: each agent's own telemetry settings pointed at
 * `serve`, beside the user's settings and never over them; twice is once;
 * an uninstall gives back every byte, and after the user edited the file
 * it takes out only what Vantage added.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VantageError } from "../../src/core/errors.ts";
import type { AdapterName } from "../../src/install/agent.ts";
import type { InstallEnvironment } from "../../src/install/environment.ts";
import {
  applyPlan,
  type InstallRequest,
  planChangesNothing,
  planDiff,
  planInstall,
  planUninstall,
} from "../../src/install/installer.ts";
import { getJsonValue } from "../../src/install/json_edit.ts";
import { readTomlTable } from "../../src/install/toml_edit.ts";
import {
  runVantageCommand,
  snapshot,
  temporaryHome,
  testEnvironment,
  writeTree,
} from "./support.ts";

const OTEL: InstallRequest = { hooks: true, otel: true };
const ENDPOINT = "http://127.0.0.1:14300";

/** Each agent's config with the user's own settings in the places `--otel` writes to. */
const USER_FILES: Partial<Record<AdapterName, Record<string, string>>> = {
  "claude-code": {
    ".claude/settings.json": `{
    "model": "opus",
    "env": {
        "DISABLE_TELEMETRY_PROMPT": "1",
        "OTEL_METRIC_EXPORT_INTERVAL": "60000"
    },
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

[otel]
environment = "staging" # mine
log_user_prompt = true

[profiles.deep]
model_reasoning_effort = "high"
`,
  },
  "openclaw": {
    ".openclaw/openclaw.json": `// OpenClaw settings
{
  gateway: { port: 18789 },
  diagnostics: {
    // sampled
    otel: { sampleRate: 0.5, traces: false, },
  },
}
`,
  },
};

const ADAPTERS = Object.keys(USER_FILES) as AdapterName[];

async function install(
  environment: InstallEnvironment,
  adapter: AdapterName,
  request: InstallRequest = OTEL,
) {
  return await applyPlan(environment, await planInstall(environment, adapter, request));
}

async function uninstall(environment: InstallEnvironment, adapter: AdapterName) {
  return await applyPlan(environment, await planUninstall(environment, adapter, { hooks: true }));
}

/** The telemetry settings now in the agent's config, read as the agent would. */
async function telemetryOf(home: string, adapter: AdapterName): Promise<unknown> {
  if (adapter === "claude-code") {
    const file = join(home, ".claude/settings.json");
    return getJsonValue(await Deno.readTextFile(file), "json", ["env"], file);
  }
  if (adapter === "codex") {
    const file = join(home, ".codex/config.toml");
    return readTomlTable(await Deno.readTextFile(file), file, ["otel"]);
  }
  const file = join(home, ".openclaw/openclaw.json");
  const text = await Deno.readTextFile(file);
  return {
    diagnostics: getJsonValue(text, "json5", ["diagnostics"], file),
    plugin: getJsonValue(text, "json5", ["plugins", "entries", "diagnostics-otel"], file),
  };
}

const EXPECTED: Record<string, unknown> = {
  "claude-code": {
    DISABLE_TELEMETRY_PROMPT: "1",
    // The user's interval stays; the rest is Vantage's.
    OTEL_METRIC_EXPORT_INTERVAL: "60000",
    CLAUDE_CODE_ENABLE_TELEMETRY: "1",
    OTEL_LOGS_EXPORTER: "otlp",
    OTEL_METRICS_EXPORTER: "otlp",
    OTEL_TRACES_EXPORTER: "otlp",
    CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
    OTEL_LOGS_EXPORT_INTERVAL: "5000",
    OTEL_TRACES_EXPORT_INTERVAL: "5000",
  },
  "codex": {
    environment: "staging",
    log_user_prompt: true,
    exporter: { "otlp-http": { endpoint: `${ENDPOINT}/v1/logs`, protocol: "binary" } },
    trace_exporter: { "otlp-http": { endpoint: `${ENDPOINT}/v1/traces`, protocol: "binary" } },
    metrics_exporter: { "otlp-http": { endpoint: `${ENDPOINT}/v1/metrics`, protocol: "binary" } },
  },
  "openclaw": {
    diagnostics: {
      otel: {
        sampleRate: 0.5,
        // The user turned traces off: kept.
        traces: false,
        enabled: true,
        endpoint: ENDPOINT,
        protocol: "http/protobuf",
        metrics: true,
        logs: true,
      },
    },
    plugin: { enabled: true },
  },
};

for (const adapter of ADAPTERS) {
  Deno.test(`${adapter} --otel: beside the user's settings, twice is once, uninstall restores every byte`, async () => {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await writeTree(home, USER_FILES[adapter]!);
      const before = await snapshot(home);
      const plan = await planInstall(environment, adapter, OTEL);
      // The dry run's diff shows the telemetry settings, and planning wrote nothing.
      assert.match(planDiff(plan), /14300/);
      assert.deepEqual(await snapshot(home), before);
      await applyPlan(environment, plan);
      assert.deepEqual(await telemetryOf(home, adapter), EXPECTED[adapter]);
      const installed = await snapshot(home);
      const again = await planInstall(environment, adapter, OTEL);
      assert.ok(planChangesNothing(again), planDiff(again));
      await applyPlan(environment, again);
      assert.deepEqual(await snapshot(home), installed);
      await uninstall(environment, adapter);
      assert.deepEqual(await snapshot(home), before);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });

  Deno.test(`${adapter} --otel: after the user edits the file, only Vantage's settings leave`, async () => {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await writeTree(home, USER_FILES[adapter]!);
      const original = USER_FILES[adapter]!;
      const [path] = Object.keys(original);
      await install(environment, adapter);
      const file = join(home, path);
      // An edit of the user's elsewhere in the file: the untouched-file shortcut is gone.
      const edited = (await Deno.readTextFile(file)).replace("18789", "18790")
        .replace('"opus"', '"sonnet"').replace('"gpt-5"', '"gpt-5-codex"');
      await Deno.writeTextFile(file, edited);
      const outcome = await uninstall(environment, adapter);
      assert.deepEqual(outcome.backupsKept, [file + ".vantage-backup"]);
      assert.equal(
        await Deno.readTextFile(file),
        original[path].replace("18789", "18790").replace('"opus"', '"sonnet"')
          .replace('"gpt-5"', '"gpt-5-codex"'),
      );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });

  Deno.test(`${adapter}: an install without --otel takes out what --otel wrote, and only that`, async () => {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await writeTree(home, USER_FILES[adapter]!);
      await install(environment, adapter, { hooks: true });
      const plain = await snapshot(home);
      await install(environment, adapter, OTEL);
      assert.notDeepEqual(await snapshot(home), plain);
      await install(environment, adapter, { hooks: true });
      assert.deepEqual(await snapshot(home), plain);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });

  Deno.test(`${adapter} --otel: into an empty home and back out leaves nothing behind`, async () => {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await install(environment, adapter);
      assert.ok(JSON.stringify(await telemetryOf(home, adapter)).includes(ENDPOINT));
      await uninstall(environment, adapter);
      assert.deepEqual(await snapshot(home), {});
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  });
}

/** A user's telemetry setting that points elsewhere, per agent, and the key the refusal names. */
const THEIRS: Array<[AdapterName, string, string, RegExp]> = [
  [
    "claude-code",
    ".claude/settings.json",
    '{\n  "env": {\n    "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example.com"\n  }\n}\n',
    /env\.OTEL_EXPORTER_OTLP_ENDPOINT is already set \('https:\/\/otel\.example\.com'\)/,
  ],
  [
    "claude-code",
    ".claude/settings.json",
    '{"env": {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://logs.example.com/v1/logs"}}\n',
    /env\.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT is set .*somewhere other than Vantage/,
  ],
  [
    "claude-code",
    ".claude/settings.json",
    '{"env": {"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=secret-value"}}\n',
    /env\.OTEL_EXPORTER_OTLP_HEADERS is set \(value not shown\)/,
  ],
  [
    "codex",
    ".codex/config.toml",
    '[otel]\nexporter = { otlp-http = { endpoint = "https://otel.example.com/v1/logs", protocol = "json" } }\n',
    /\[otel\] exporter is already set/,
  ],
  [
    "codex",
    ".codex/config.toml",
    '[otel]\nmetrics_exporter = "none"\n',
    /\[otel\] metrics_exporter is already set \('none'\)/,
  ],
  [
    "openclaw",
    ".openclaw/openclaw.json",
    '{ diagnostics: { otel: { endpoint: "http://collector:4318" } } }\n',
    /diagnostics\.otel\.endpoint is already set \('http:\/\/collector:4318'\)/,
  ],
  [
    "openclaw",
    ".openclaw/openclaw.json",
    "{ diagnostics: { enabled: false } }\n",
    /diagnostics\.enabled is set \('false'\), and diagnostics-otel exports nothing/,
  ],
  [
    "openclaw",
    ".openclaw/openclaw.json",
    '{ plugins: { entries: { "diagnostics-otel": { enabled: false } } } }\n',
    /plugins\.entries\.diagnostics-otel\.enabled is already set \('false'\)/,
  ],
];

Deno.test("a user's own telemetry setting stops --otel with the key named, and nothing is written", async () => {
  for (const [adapter, path, text, message] of THEIRS) {
    const home = await temporaryHome();
    try {
      const environment = testEnvironment(home);
      await writeTree(home, { [path]: text });
      const before = await snapshot(home);
      await assert.rejects(
        () => planInstall(environment, adapter, OTEL),
        (error: unknown) => {
          assert.ok(error instanceof VantageError);
          assert.equal(error.kind, "conflict");
          assert.match(error.message, message);
          assert.ok(error.message.startsWith(join(home, path)), error.message);
          assert.doesNotMatch(error.message, /secret-value/);
          return true;
        },
        `${adapter}: ${text}`,
      );
      assert.deepEqual(await snapshot(home), before);
      // Without --otel the same file installs, and the user's setting stays.
      await install(environment, adapter, { hooks: true });
      assert.ok((await Deno.readTextFile(join(home, path))).length >= text.length);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
});

Deno.test("a setting the user already had with Vantage's value stays theirs through uninstall", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    const settings = `{\n  "env": {\n    "OTEL_EXPORTER_OTLP_ENDPOINT": "${ENDPOINT}"\n  }\n}\n`;
    await writeTree(home, { ".claude/settings.json": settings });
    await install(environment, "claude-code", { hooks: false, otel: true });
    const file = join(home, ".claude/settings.json");
    // The user edits something else: the uninstall must tell Vantage's keys from theirs.
    await Deno.writeTextFile(
      file,
      (await Deno.readTextFile(file)).replace('"env": {', '"env": {\n    "EDITOR": "vim",'),
    );
    await uninstall(environment, "claude-code");
    assert.equal(
      await Deno.readTextFile(file),
      `{\n  "env": {\n    "EDITOR": "vim",\n    "OTEL_EXPORTER_OTLP_ENDPOINT": "${ENDPOINT}"\n  }\n}\n`,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a new port moves Vantage's own settings; the user's are still never touched", async () => {
  const home = await temporaryHome();
  try {
    await writeTree(home, USER_FILES.codex!);
    await install(testEnvironment(home), "codex");
    const moved = testEnvironment(home, { variables: { VANTAGE_PORT: "14400" } });
    await install(moved, "codex");
    const file = join(home, ".codex/config.toml");
    const otel = readTomlTable(await Deno.readTextFile(file), file, ["otel"]);
    assert.deepEqual(otel?.exporter, {
      "otlp-http": { endpoint: "http://127.0.0.1:14400/v1/logs", protocol: "binary" },
    });
    assert.equal(otel?.environment, "staging");
    await uninstall(moved, "codex");
    assert.equal(await Deno.readTextFile(file), USER_FILES.codex![".codex/config.toml"]);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("off loopback the token goes along: VANTAGE_TOKEN, else serve's token file, else a refusal", async () => {
  const home = await temporaryHome();
  try {
    const remote = "http://10.1.2.3:14300";
    const refused = testEnvironment(home, { variables: { VANTAGE_URL: remote + "/" } });
    await assert.rejects(
      () => planInstall(refused, "claude-code", OTEL),
      /10\.1\.2\.3:14300 is not a loopback address.*VANTAGE_TOKEN/,
    );
    await writeTree(home, { ".vantage/token": "from-the-file\n" });
    await install(refused, "claude-code", { hooks: false, otel: true });
    const file = join(home, ".claude/settings.json");
    const env = getJsonValue(await Deno.readTextFile(file), "json", ["env"], file) as Record<
      string,
      string
    >;
    assert.equal(env.OTEL_EXPORTER_OTLP_ENDPOINT, remote);
    assert.equal(env.OTEL_EXPORTER_OTLP_HEADERS, "Authorization=Bearer from-the-file");

    const explicit = testEnvironment(home, {
      variables: { VANTAGE_URL: remote, VANTAGE_TOKEN: "t0ken" },
    });
    await install(explicit, "codex", { hooks: false, otel: true });
    const config = join(home, ".codex/config.toml");
    const otel = readTomlTable(await Deno.readTextFile(config), config, ["otel"]);
    assert.deepEqual(otel?.trace_exporter, {
      "otlp-http": {
        endpoint: `${remote}/v1/traces`,
        protocol: "binary",
        headers: { Authorization: "Bearer t0ken" },
      },
    });
    // Uninstalled after an edit, with the token gone: all but the headers still leave.
    await Deno.writeTextFile(
      file,
      (await Deno.readTextFile(file)).replace('"env": {', '"model": "opus",\n  "env": {'),
    );
    await Deno.remove(join(home, ".vantage/token"));
    await uninstall(refused, "claude-code");
    assert.deepEqual(
      getJsonValue(await Deno.readTextFile(file), "json", [], file),
      { model: "opus", env: { OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer from-the-file" } },
    );
    await install(explicit, "openclaw", { hooks: false, otel: true });
    const claw = join(home, ".openclaw/openclaw.json");
    assert.deepEqual(
      getJsonValue(
        await Deno.readTextFile(claw),
        "json5",
        ["diagnostics", "otel", "headers"],
        claw,
      ),
      { Authorization: "Bearer t0ken" },
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("Codex: Vantage's keys go into the user's [otel] table and leave it as it was", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    // CRLF, the table last in the file.
    const text = '# c\r\nmodel = "gpt-5"\r\n\r\n[otel]\r\nenvironment = "dev"\r\n';
    await writeTree(home, { ".codex/config.toml": text });
    await install(environment, "codex", { hooks: false, otel: true });
    const file = join(home, ".codex/config.toml");
    const installed = await Deno.readTextFile(file);
    assert.ok(!/[^\r]\n/.test(installed), "CRLF throughout");
    assert.equal(readTomlTable(installed, file, ["otel"])?.environment, "dev");
    await Deno.writeTextFile(file, installed.replace("gpt-5", "o3"));
    await uninstall(environment, "codex");
    assert.equal(await Deno.readTextFile(file), text.replace("gpt-5", "o3"));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("Copilot CLI --otel writes nothing more: it has no file for its telemetry settings", async () => {
  const home = await temporaryHome();
  try {
    const environment = testEnvironment(home);
    const plain = await planInstall(environment, "copilot-cli", { hooks: true });
    const otel = await planInstall(environment, "copilot-cli", OTEL);
    assert.equal(planDiff(otel), planDiff(plain));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the CLI: --otel --dry-run shows the settings and writes nothing; notes say what is next", async () => {
  const home = await temporaryHome();
  try {
    const settings = '{\n  "env": {\n    "MY_VAR": "x"\n  }\n}\n';
    await writeTree(home, { ".claude/settings.json": settings });
    const before = await snapshot(home);
    const dry = await runVantageCommand(
      ["install", "--adapter", "claude-code", "--otel", "--dry-run"],
      home,
    );
    assert.equal(dry.code, 0, dry.stderr);
    // The test environment's VANTAGE_URL is where --otel points.
    assert.match(dry.stdout, /\n\+ {4}"OTEL_EXPORTER_OTLP_ENDPOINT": "http:\/\/127\.0\.0\.1:9",\n/);
    assert.match(dry.stdout, /\n- {4}"MY_VAR": "x"\n\+ {4}"MY_VAR": "x",\n/);
    assert.deepEqual(await snapshot(home), before);

    const run = await runVantageCommand(
      ["install", "--adapter", "claude-code", "--otel", "--no-warm"],
      home,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /updated ~\/\.claude\/settings\.json {2}\(hooks and telemetry settings;/,
    );
    assert.match(
      run.stdout,
      /Telemetry: sessions started from now on export to http:\/\/127\.0\.0\.1:9 /,
    );

    const copilot = await runVantageCommand(
      ["install", "--adapter", "copilot-cli", "--otel", "--no-warm"],
      home,
    );
    assert.equal(copilot.code, 0, copilot.stderr);
    assert.match(
      copilot.stdout,
      /only from environment variables.*export COPILOT_OTEL_FILE_EXPORTER_PATH="\$HOME\/\.copilot\/otel\/copilot-otel\.jsonl"/,
    );

    await writeTree(home, {
      ".codex/config.toml":
        '[otel]\nexporter = { otlp-http = { endpoint = "https://x/v1/logs" } }\n',
    });
    const codexBefore = await snapshot(home);
    const refused = await runVantageCommand(
      ["install", "--adapter", "codex", "--otel", "--no-warm"],
      home,
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /config\.toml: \[otel\] exporter is already set/);
    assert.deepEqual(await snapshot(home), codexBefore);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
