/**
 * Laptop to team, end to end with three people: three HOMEs, each with
 * Vantage installed for the real Claude Code client, a local `serve` that
 * keeps everything and forwards its hooks to one team `serve` (`--upstream`,
 * with the person's token from the real `vantage team add-user`), a real
 * session against the scripted model, and then `vantage sync` pushing the
 * person's history and a document. One person works while the team server
 * is down: their hooks wait in the upstream spool and arrive once it is
 * back. Then: every record of every person is on the team server exactly
 * once (the hooks forwarded live and the same hooks pushed again by the
 * sync count once), attributed to its person and host; a person cannot
 * change another's records or documents; and after `vantage team revoke`,
 * the revoked person's forwarded hooks and sync get 401.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { claudeBinary, missingClientReason } from "../helpers/agent_clients.ts";
import { type AgentHome, denoDir, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import {
  type ScriptTurn,
  startScriptedAnthropicServer,
} from "../helpers/scripted_anthropic_server.ts";
import { runHook, type ServeProcess, startServe } from "../helpers/serve_process.ts";
import { assertSameHistory, rows } from "./team_fixture.ts";

const CLAUDE = claudeBinary();
if (CLAUDE === undefined) {
  console.log(`skipping the three people's sync test: ${missingClientReason("claude")}`);
}

/** How long a serve may take to start while three clients' processes keep the machine busy. */
const START_MS = 120_000;

interface Person {
  name: string;
  host: string;
  home: AgentHome;
  token: string;
  project: string;
  local?: ServeProcess;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The person's environment: their HOME and data home, their team token and their host. */
function envOf(person: Person, teamUrl: string): Record<string, string> {
  return {
    ...person.home.env,
    VANTAGE_TEAM_URL: teamUrl,
    VANTAGE_TEAM_TOKEN: person.token,
    VANTAGE_HOSTNAME: person.host,
    // A loaded machine must not turn a slow local answer into a spooled hook.
    VANTAGE_HOOK_TIMEOUT_MS: "20000",
  };
}

/** One Claude Code session in the person's project, against a scripted model. */
async function claudeSession(person: Person, teamUrl: string): Promise<void> {
  const turns: ScriptTurn[] = [
    {
      blocks: [{
        type: "tool_use",
        name: "Bash",
        input: { command: `echo hello from ${person.name}`, description: "say hello" },
      }],
      usage: { input_tokens: 800, output_tokens: 40, cache_creation_input_tokens: 1500 },
    },
    {
      blocks: [{
        type: "tool_use",
        name: "Write",
        input: { file_path: join(person.project, "notes.txt"), content: `${person.name}\n` },
      }],
      usage: { input_tokens: 40, output_tokens: 30, cache_read_input_tokens: 2300 },
    },
    {
      blocks: [{ type: "text", text: `Done for ${person.name}.` }],
      usage: { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 2350 },
    },
  ];
  // Each person's calls have ids of their own, as the real API's do (usage keys are these ids).
  const model = startScriptedAnthropicServer(turns, { idPrefix: person.name });
  try {
    const run = await new Deno.Command(CLAUDE!, {
      args: ["-p", `Say hello and write notes for ${person.name}`, "--allowedTools", "Bash,Write"],
      cwd: person.project,
      env: {
        ...envOf(person, teamUrl),
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: "test-key",
        IS_SANDBOX: "1",
        DISABLE_AUTOUPDATER: "1",
        MCP_CONNECTION_NONBLOCKING: "false",
        MCP_TIMEOUT: "60000",
        VANTAGE_URL: person.local!.url,
        DENO_DIR: denoDir(),
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(240_000),
    }).output();
    const decoder = new TextDecoder();
    assert.equal(run.code, 0, decoder.decode(run.stderr) + decoder.decode(run.stdout));
    assert.equal(model.remaining(), 0, "every scripted turn was played");
  } finally {
    await model.close();
  }
}

/** Waits until the person's serve has read their transcripts to the end. */
async function transcriptsRead(person: Person): Promise<void> {
  await until(() => {
    const files = rows<{ behind: number }>(
      person.home.dataHome,
      "SELECT file_size - byte_offset AS behind FROM transcript_files WHERE agent = 'claude_code'",
    );
    if (files.length === 0) return false;
    return files.every((file) => {
      return file.behind === 0;
    });
  }, `${person.name}'s transcript read`);
  const messages = () => rows(person.home.dataHome, "SELECT id FROM messages").length;
  await until(() => messages() > 0, `${person.name}'s messages`);
}

async function health(person: Person): Promise<{ upstream: Record<string, unknown> }> {
  return await (await fetch(`${person.local!.url}/api/health`)).json();
}

function events(dataHome: string, person?: string): string[] {
  return rows<{ delivery_id: string }>(
    dataHome,
    person === undefined
      ? "SELECT delivery_id FROM events ORDER BY delivery_id"
      : "SELECT delivery_id FROM events WHERE person = ? ORDER BY delivery_id",
    ...(person === undefined ? [] : [person]),
  ).map((row) => row.delivery_id);
}

async function sync(person: Person, teamUrl: string) {
  const run = await runVantage(["sync", "--json"], { env: envOf(person, teamUrl) });
  return { ...run, summary: run.code === 0 ? JSON.parse(run.stdout) : undefined };
}

Deno.test({
  name: "three people: hooks forwarded and history synced to one team server, each once, theirs",
  ignore: CLAUDE === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const teamHome = await makeAgentHome({ fixtures: false });
    const port = freePort();
    const teamUrl = `http://127.0.0.1:${port}`;
    const people: Person[] = [];
    let team: ServeProcess | undefined;
    try {
      for (const name of ["ada", "bob", "cy"]) {
        const added = await runVantage(["team", "add-user", name], { env: teamHome.env });
        assert.equal(added.code, 0, added.stderr);
        const home = await makeAgentHome({ fixtures: false });
        const project = join(home.home, "work", `${name}-app`);
        await Deno.mkdir(project, { recursive: true });
        people.push({ name, host: `${name}-laptop`, home, token: added.stdout.trim(), project });
      }
      const [ada, bob, cy] = people;
      team = await startServe(teamHome, ["--no-tail", "--port", String(port)], [], START_MS);

      for (const person of people) {
        const env = envOf(person, teamUrl);
        const install = await runVantage(["install", "--adapter", "claude-code", "--no-warm"], {
          env,
        });
        assert.equal(install.code, 0, install.stderr);
        person.local = await startServe(
          { ...person.home, env },
          ["--upstream", teamUrl],
          [],
          START_MS,
        );
        const note = await runVantage([
          "call",
          "docs.add",
          JSON.stringify({ content: `${person.name}'s notes on wombats`, name: "notes.md" }),
        ], { env });
        assert.equal(note.code, 0, note.stderr);
      }

      // ada works with the team server up: her hooks go over as they happen.
      await claudeSession(ada, teamUrl);
      await transcriptsRead(ada);
      const adaEvents = events(ada.home.dataHome);
      assert.ok(adaEvents.length >= 6, `ada's hooks: ${adaEvents.length}`);
      await until(
        () => events(teamHome.dataHome, "ada").length === adaEvents.length,
        "ada's hooks",
      );

      // bob works while the team server is down: his hooks wait in his upstream spool.
      assert.equal(await team.stop(), 0, team.stderr());
      team = undefined;
      await claudeSession(bob, teamUrl);
      await transcriptsRead(bob);
      const bobEvents = events(bob.home.dataHome);
      assert.ok(bobEvents.length >= 6, `bob's hooks: ${bobEvents.length}`);
      await until(
        async () => (await health(bob)).upstream.spooled === bobEvents.length,
        "bob's hooks spooled",
      );
      assert.equal((await health(bob)).upstream.down, true);
      team = await startServe(teamHome, ["--no-tail", "--port", String(port)], [], START_MS);
      await until(
        () => events(teamHome.dataHome, "bob").length === bobEvents.length,
        "bob's replay",
      );
      assert.equal((await health(bob)).upstream.down, false);

      await claudeSession(cy, teamUrl);
      await transcriptsRead(cy);
      await until(
        () => events(teamHome.dataHome, "cy").length === events(cy.home.dataHome).length,
        "cy's hooks",
      );

      for (const person of people) {
        const run = await sync(person, teamUrl);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.summary.person, person.name);
        assert.equal(run.summary.refused.records, 0, JSON.stringify(run.summary));
        // The hooks were forwarded already: the sync's copies of them store nothing new.
        assert.equal(run.summary.stored.events, 0);
        assert.ok(run.summary.stored.messages > 0);
        assert.equal(run.summary.documents.added, 1);
      }

      // Every record of every person once, theirs, from their host.
      for (const person of people) {
        const sessions = new Set(
          rows<{ session_id: string }>(person.home.dataHome, "SELECT session_id FROM sessions")
            .map((row) => row.session_id),
        );
        assertSameHistory(
          person.home.dataHome,
          teamHome.dataHome,
          person.name,
          person.host,
          (id) => sessions.has(id),
        );
        assert.deepEqual(events(teamHome.dataHome, person.name), events(person.home.dataHome));
      }
      const total = (sql: string, ...homes: string[]) =>
        homes.reduce((sum, home) => sum + rows(home, sql).length, 0);
      const locals = people.map((person) => person.home.dataHome);
      for (
        const sql of [
          "SELECT id FROM messages",
          "SELECT id FROM events",
          "SELECT usage_key FROM usage",
        ]
      ) {
        assert.equal(total(sql, teamHome.dataHome), total(sql, ...locals), sql);
      }
      assert.deepEqual(
        rows<{ path: string; person: string }>(
          teamHome.dataHome,
          "SELECT path, person FROM docs_documents ORDER BY path",
        ),
        people.map((p) => ({ path: `${p.name}@${p.host}:notes.md`, person: p.name })),
      );

      // bob cannot change ada's records: a push naming her session is refused, nothing moves.
      const [adaSession] = rows<{ session_id: string }>(
        ada.home.dataHome,
        "SELECT session_id FROM sessions WHERE is_subagent = 0 LIMIT 1",
      );
      const [adaMessage] = rows<{ message_key: string; ts: number }>(
        ada.home.dataHome,
        "SELECT message_key, ts FROM messages WHERE session_id = ? LIMIT 1",
        adaSession.session_id,
      );
      const snapshot = () => [
        rows(
          teamHome.dataHome,
          "SELECT * FROM sessions WHERE session_id = ?",
          adaSession.session_id,
        ),
        rows(
          teamHome.dataHome,
          "SELECT * FROM messages WHERE session_id = ?",
          adaSession.session_id,
        ),
      ];
      const before = snapshot();
      const push = await fetch(`${teamUrl}/api/ops/sync.push`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bob.token}` },
        body: JSON.stringify({
          messages: [
            {
              agent: "claude_code",
              session_id: adaSession.session_id,
              message_key: adaMessage.message_key,
              ts: adaMessage.ts,
              role: "user",
              message_type: "user",
              text: "bob rewrites ada's prompt",
            },
            {
              agent: "claude_code",
              session_id: adaSession.session_id,
              message_key: "bob-was-here",
              ts: adaMessage.ts,
              role: "user",
              message_type: "user",
              text: "bob adds to ada's session",
            },
          ],
        }),
      });
      const pushed = await push.json();
      assert.equal(push.status, 200, JSON.stringify(pushed));
      assert.equal(pushed.result.refused, 2);
      assert.deepEqual(pushed.result.refused_sessions, [
        { session_id: adaSession.session_id, owner: "ada", records: 2 },
      ]);
      assert.deepEqual(snapshot(), before);
      const update = await fetch(`${teamUrl}/api/ops/docs.update`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bob.token}` },
        body: JSON.stringify({ name: "ada@ada-laptop:notes.md", tags: ["bob-was-here"] }),
      });
      assert.equal(update.status, 403, await update.text());

      // cy is revoked: her next forwarded hook and her next sync get 401; nothing of hers moves.
      const revoke = await runVantage(["team", "revoke", "cy"], { env: teamHome.env });
      assert.equal(revoke.code, 0, revoke.stderr);
      const cyOnTeam = events(teamHome.dataHome, "cy");
      const hook = await runHook(
        cy.home,
        "claude-code",
        JSON.stringify({
          session_id: "cy-after-revocation",
          cwd: cy.project,
          hook_event_name: "UserPromptSubmit",
          prompt: "one more thing",
        }),
        { VANTAGE_URL: cy.local!.url, VANTAGE_HOOK_TIMEOUT_MS: "20000" },
      );
      assert.equal(hook.code, 0, hook.stderr);
      await until(async () => (await health(cy)).upstream.refused === 1, "cy's hook refused");
      assert.equal((await health(cy)).upstream.spooled, 0);
      assert.deepEqual(events(teamHome.dataHome, "cy"), cyOnTeam);
      assert.ok(cy.local!.stderr().includes("was revoked"), cy.local!.stderr());
      const refused = await sync(cy, teamUrl);
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(refused.stderr, /refused the token: the token of 'cy' was revoked/);
      const direct = await fetch(`${teamUrl}/api/ops/sync.hello`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${cy.token}` },
        body: "{}",
      });
      assert.equal(direct.status, 401, await direct.text());
      // ada and bob go on.
      const again = await sync(ada, teamUrl);
      assert.equal(again.code, 0, again.stderr);
    } finally {
      for (const person of people) {
        if (person.local !== undefined) {
          assert.equal(await person.local.stop(), 0, person.local.stderr());
        }
        await person.home.cleanup();
      }
      if (team !== undefined) assert.equal(await team.stop(), 0, team.stderr());
      await teamHome.cleanup();
    }
  },
});
