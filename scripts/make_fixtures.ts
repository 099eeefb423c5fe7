/**
 * Regenerates the real transcript fixtures in `tests/fixtures/transcripts/` by running the real
 * `claude` and `codex` clients offline against the scripted model servers in `tests/helpers/`.
 *
 * Usage:
 *   npm install --prefix /tmp/clients @anthropic-ai/claude-code @openai/codex
 *   deno run -A scripts/make_fixtures.ts [--bin /tmp/clients/node_modules/.bin] [--only claude|codex]
 *
 * Each client runs in a throw-away HOME with hooks that record every payload they receive;
 * the transcripts and the recorded hook payloads are copied into the fixtures folder with the
 * temporary HOME replaced by `/home/fixture`, so paths in the fixtures are stable.
 *
 * @module
 */

import { parseArgs } from "node:util";
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

if (import.meta.main) {
  const bin = args.bin ?? "/tmp/clients/node_modules/.bin";
  if (args.only === undefined || args.only === "claude") await makeClaudeFixture(bin);
  if (args.only === undefined || args.only === "codex") await makeCodexFixture(bin);
}
