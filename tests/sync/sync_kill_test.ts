/**
 * `vantage sync` killed half-way (`kill -9`) and run again: nothing
 * duplicated, nothing missing. Real processes under their shipped
 * permission sets: a team `serve` with a person from the real `vantage team
 * add-user`, a laptop store filled by the real `vantage ingest` from
 * generated Claude Code transcripts (answers over several lines, sub-agents)
 * plus hook events and documents, and `vantage sync` killed once the server
 * has acknowledged some batches but not all. The second run goes on from
 * the last acknowledged batch; then the team server holds every message,
 * call, event, outcome and document exactly once, with every session's
 * counts equal to the laptop's.
 */
import assert from "node:assert/strict";
import { prng, writeClaudeTranscript, ZipfVocabulary } from "../../scripts/lib/claude_corpus.ts";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { ingestInline } from "../../src/docs/mod.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { DATABASE, vantageServices } from "../../src/ops/runtime.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";
import { startServe } from "../helpers/serve_process.ts";
import { assertSameHistory, rows, syncCursor } from "./team_fixture.ts";

const SESSIONS = 6;

/** Fills the laptop: transcripts to ingest, then hook events and documents stored directly. */
async function fillLaptop(home: { home: string; dataHome: string; env: Record<string, string> }) {
  const dir = `${home.home}/.claude/projects/-work-sync`;
  await Deno.mkdir(dir, { recursive: true });
  const vocabulary = new ZipfVocabulary(20_000, prng(7));
  for (let i = 0; i < SESSIONS; i++) {
    await writeClaudeTranscript(`${dir}/session-${i}.jsonl`, {
      sessionId: `session-${i}`,
      cwd: "/work/sync",
      targetBytes: 1_500_000,
      seed: i + 1,
      startMs: Date.UTC(2026, 10, 1) + i * 3_600_000,
      vocabulary,
      subagentEvery: 12,
    });
  }
  const ingest = await runVantage(["ingest"], { env: home.env });
  assert.equal(ingest.code, 0, ingest.stderr);
  const services = vantageServices({ ...resolvePaths(home.dataHome), userHome: home.home });
  try {
    const db = services.get(DATABASE);
    for (let i = 0; i < 1_500; i++) {
      const session = `session-${i % SESSIONS}`;
      const taken = takeHookDelivery(db, {
        agent: "claude_code",
        delivery_id: `laptop-delivery-${i}`,
        received_at: Date.UTC(2026, 10, 1) + i * 1_000,
        payload: JSON.stringify({
          session_id: session,
          cwd: "/work/sync",
          hook_event_name: "PostToolUse",
          tool_name: "Bash",
          tool_use_id: `toolu_${i}`,
          tool_input: { command: `npm test -- --shard ${i}` },
          tool_response: { stdout: `shard ${i} passed\n`.repeat(20), exit_code: 0 },
        }),
      });
      assert.ok(taken.stored);
    }
    const text = (i: number) => `# Note ${i}\n\n` + `wombat burrow ${i} `.repeat(2_000);
    await ingestInline(
      db,
      Array.from({ length: 20 }, (_, i) => ({
        name: `notes/note-${i}.md`,
        bytes: new TextEncoder().encode(text(i)),
      })),
      { session: null, embedder: new HashedEmbedder(), now: Date.now(), tags: ["field"] },
    );
  } finally {
    services.close();
  }
}

Deno.test({
  name: "vantage sync killed half-way and run again: nothing duplicated, nothing missing",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const team = await makeAgentHome({ fixtures: false });
    const laptop = await makeAgentHome({ fixtures: false });
    let server: Awaited<ReturnType<typeof startServe>> | undefined;
    try {
      await fillLaptop(laptop);
      const added = await runVantage(["team", "add-user", "ada"], { env: team.env });
      assert.equal(added.code, 0, added.stderr);
      server = await startServe(team, ["--no-tail"]);
      const env = {
        ...laptop.env,
        VANTAGE_TEAM_URL: server.url,
        VANTAGE_TEAM_TOKEN: added.stdout.trim(),
        VANTAGE_HOSTNAME: "ada-laptop",
      };
      const paths = { ...resolvePaths(laptop.dataHome), userHome: laptop.home };
      const sync = () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", ...permissionFlags("cli", paths, []), MAIN, "sync", "--json"],
          env,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      const allMessages = rows(laptop.dataHome, "SELECT id FROM messages").length;

      // Kill it once some message batches were acknowledged, before the last.
      const first = sync();
      let at = 0;
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline) {
        at = syncCursor(laptop.dataHome, "messages");
        if (at > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.kill("SIGKILL");
      const killed = await first.output();
      assert.equal(killed.signal, "SIGKILL", new TextDecoder().decode(killed.stderr));
      at = syncCursor(laptop.dataHome, "messages");
      assert.ok(at > 0, "a message batch was acknowledged before the kill");
      const onServer = rows(team.dataHome, "SELECT id FROM messages").length;
      assert.ok(onServer < allMessages, `killed half-way: ${onServer} of ${allMessages} messages`);

      const second = await sync().output();
      const stderr = new TextDecoder().decode(second.stderr);
      assert.equal(second.code, 0, stderr);
      const summary = JSON.parse(new TextDecoder().decode(second.stdout));
      assert.equal(summary.person, "ada");
      // It went on from the last acknowledged batch rather than from the start.
      assert.equal(
        summary.sent.messages,
        rows(laptop.dataHome, "SELECT id FROM messages WHERE id > ?", at).length,
      );
      assert.ok(summary.sent.messages < allMessages);

      assertSameHistory(laptop.dataHome, team.dataHome, "ada", "ada-laptop");
      const documents = rows<{ path: string; person: string }>(
        team.dataHome,
        "SELECT path, person FROM docs_documents ORDER BY path",
      );
      assert.equal(documents.length, 20);
      assert.ok(documents.every((d) => d.person === "ada" && d.path.startsWith("ada@ada-laptop:")));

      // A third run has nothing to send.
      const third = await sync().output();
      assert.equal(third.code, 0, new TextDecoder().decode(third.stderr));
      assert.equal(JSON.parse(new TextDecoder().decode(third.stdout)).batches, 0);
    } finally {
      if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
      await laptop.cleanup();
      await team.cleanup();
    }
  },
});
