/**
 * The store the agent-experience benchmark asks its questions of: one small
 * Deno project and what Vantage would have recorded around it — the calling
 * agent's current session (a test failing three times), an older session
 * where the same type error was fixed, a Codex and a Copilot CLI session
 * next door, a failing build, files changed outside the session, an anomaly,
 * token usage, and the project's indexed state. Written with the store's own
 * functions, like the sensors and tailers write it.
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import { detectProject } from "../../src/perception/project_detect.ts";
import { priceCall } from "../../src/agent/usage/pricing.ts";
import type {
  AgentName,
  CountedUsage as UsageInput,
  TranscriptMessage as MessageInput,
} from "../../src/model/agent_records.ts";
import { insertHookEvent } from "../../src/store/agent/events.ts";
import { insertMessages, maxMessageId } from "../../src/store/agent/messages.ts";
import { upsertSessionFacts } from "../../src/store/agent/sessions.ts";
import { insertUsage } from "../../src/store/agent/usage.ts";
import { openDatabase } from "../../src/store/database.ts";
import { MessageIndexer } from "../../src/store/agent/message_index.ts";
import { recordEmission } from "../../src/store/perception/anomalies.ts";
import { insertBuildRun } from "../../src/store/perception/build_runs.ts";
import { insertFileChange } from "../../src/store/perception/file_changes.ts";
import { saveProjectState } from "../../src/store/perception/project_state.ts";

/** Session ids the tasks look for. */
export const SEEDED = {
  mine: "7b1e2c4d-0000-4000-8000-000000000001",
  earlierFix: "7b1e2c4d-0000-4000-8000-000000000002",
  codex: "019a3c55-0000-7000-8000-000000000003",
  copilot: "c0p1l07-0000-4000-8000-000000000004",
  /** The error the earlier session fixed, and the current build shows again. */
  error: "TS2322: Type 'string' is not assignable to type 'number'.",
};

const FILES: Record<string, string> = {
  "deno.json": JSON.stringify(
    { tasks: { dev: "deno run -A src/server.ts", test: "deno test -A tests/" } },
    null,
    2,
  ),
  "README.md":
    "# shop-api\n\nA small HTTP API. `deno task dev` serves it; `deno task test` tests it.\n",
  "src/config.ts": 'export const port: number = Deno.env.get("PORT") ?? 8080;\n',
  "src/server.ts":
    'import { port } from "./config.ts";\nDeno.serve({ port }, () => new Response("ok"));\n',
  "tests/server_test.ts": 'Deno.test("serves", () => {});\n',
};

/** Writes the project, fills the store at `dataHome`, and returns the project's path. */
export async function seedAxStore(work: string, dataHome: string): Promise<string> {
  const project = join(work, "shop-api");
  for (const [path, text] of Object.entries(FILES)) {
    await Deno.mkdir(join(project, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(project, path), text);
  }
  const paths = resolvePaths(dataHome);
  await Deno.mkdir(dataHome, { recursive: true });
  const db = openDatabase(paths.database);
  try {
    const now = Date.now();
    const min = 60_000;
    saveProjectState(db, project, JSON.stringify(await detectProject(project)), now - 30 * min);

    const sessions: Array<{ id: string; agent: AgentName; start: number; title: string }> = [
      {
        id: SEEDED.earlierFix,
        agent: "claude_code",
        start: now - 3 * 1440 * min,
        title: "Port type",
      },
      { id: SEEDED.copilot, agent: "copilot_cli", start: now - 150 * min, title: "Docs" },
      { id: SEEDED.codex, agent: "codex", start: now - 45 * min, title: "Rate limiting" },
      { id: SEEDED.mine, agent: "claude_code", start: now - 25 * min, title: "Checkout endpoint" },
    ];
    for (const s of sessions) {
      upsertSessionFacts(db, {
        agent: s.agent,
        session_id: s.id,
        cwd: project,
        started_at: s.start,
        model: s.agent === "codex" ? "gpt-5.1-codex" : "claude-sonnet-4-5",
        title: s.title,
      });
    }

    const said: Array<[string, AgentName, number, MessageInput["role"], string, string?]> = [
      [SEEDED.earlierFix, "claude_code", 4300, "user", `deno check fails: ${SEEDED.error}`],
      [
        SEEDED.earlierFix,
        "claude_code",
        4299,
        "assistant",
        "The port comes from Deno.env.get, which gives a string. I'll parse it with Number() and keep 8080 as the fallback.",
      ],
      [
        SEEDED.earlierFix,
        "claude_code",
        4298,
        "assistant",
        'Fixed in src/config.ts: `export const port = Number(Deno.env.get("PORT") ?? 8080);` and deno check passes.',
      ],
      [SEEDED.copilot, "copilot_cli", 150, "user", "Add deployment notes to the README"],
      [SEEDED.copilot, "copilot_cli", 140, "assistant", "Added a Deploy section to README.md."],
      [SEEDED.codex, "codex", 44, "user", "Add rate limiting to the server"],
      [
        SEEDED.codex,
        "codex",
        30,
        "assistant",
        "Added a token-bucket limiter in src/server.ts middleware; running deno task test next.",
      ],
      [SEEDED.codex, "codex", 12, "assistant", "Tests pass with the limiter; 100 requests/minute."],
      [SEEDED.mine, "claude_code", 24, "user", "Add a /checkout endpoint to src/server.ts"],
      [
        SEEDED.mine,
        "claude_code",
        20,
        "assistant",
        "Adding the /checkout route and a test for it.",
      ],
      [SEEDED.mine, "claude_code", 6, "assistant", `deno task test fails: ${SEEDED.error}`],
    ];
    const messages: MessageInput[] = said.map(([session, agent, ago, role, text], index) => ({
      agent,
      session_id: session,
      cwd: project,
      ts: now - ago * min,
      role,
      message_type: role === "user" ? "user" : "assistant",
      text,
      message_key: `ax-${index}`,
    }));
    insertMessages(db, messages);

    // The current session ran the tests three times, failing the same way, and edited a file.
    let delivery = 0;
    const event = (at: number, fields: Record<string, unknown>) =>
      insertHookEvent(
        db,
        {
          agent: "claude_code",
          session_id: SEEDED.mine,
          cwd: project,
          ts: now - at * min,
          event_type: "PostToolUse",
          raw: {},
          ...fields,
        },
        `ax-${delivery++}`,
        now - at * min,
      );
    event(24, { event_type: "UserPromptSubmit", prompt: "Add a /checkout endpoint" });
    event(18, { tool_name: "Edit", file_path: join(project, "src/server.ts"), success: true });
    for (const at of [10, 8, 6]) {
      event(at, {
        event_type: "PostToolUseFailure",
        tool_name: "Bash",
        command: "deno task test",
        command_prefix: "deno task",
        success: false,
        error: SEEDED.error,
      });
    }

    insertBuildRun(db, {
      tag: "check",
      command: "deno check src/",
      cwd: project,
      project,
      started_at: now - 5 * min,
      duration_ms: 2100,
      exit_code: 1,
      errors: JSON.stringify([{ message: SEEDED.error, file: "src/config.ts", line: 1 }]),
      output_tail: "",
    });

    insertFileChange(db, {
      project,
      path: join(project, "src/server.ts"),
      kind: "modify",
      ts: now - 12 * min,
      source: "agent",
      session_id: SEEDED.codex,
      agent: "codex",
    });
    insertFileChange(db, {
      project,
      path: join(project, "deno.json"),
      kind: "modify",
      ts: now - 9 * min,
      source: "unknown",
      session_id: null,
      agent: null,
    });

    recordEmission(db, {
      session_id: SEEDED.mine,
      project,
      kind: "repeated_command_failure",
      severity: "warning",
      channel: "next_prompt",
      fingerprint: "deno-task-test",
      evidence: `\`deno task test\` failed 3 times in a row with the same error (${SEEDED.error})`,
      suggestion: "Read src/config.ts: the port is a string; fix the type before running again.",
      related_files: [join(project, "src/config.ts")],
      first_emitted_at: now - 6 * min,
    }, now - 6 * min);

    const usage: UsageInput[] = sessions.map((s, index) => ({
      agent: s.agent,
      session_id: s.id,
      ts: s.start + min,
      model: s.agent === "codex" ? "gpt-5.1-codex" : "claude-sonnet-4-5",
      usage_key: `ax-usage-${index}`,
      input_tokens: 12_000 + 1000 * index,
      output_tokens: 2_400,
      cache_read_tokens: 90_000,
      cache_write_tokens: 8_000,
      reasoning_tokens: 0,
    }));
    insertUsage(db, usage, (record) => {
      const cost = priceCall(record, record.model);
      return cost === undefined ? { priced: false } : { priced: true, usd: cost.usd };
    });

    const indexer = await MessageIndexer.start(paths.database, () => maxMessageId(db));
    await indexer.caughtUp();
    indexer.close();
  } finally {
    db.close();
  }
  return project;
}
