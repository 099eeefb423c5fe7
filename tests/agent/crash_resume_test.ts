/**
 * Killing `serve` in the middle of a transcript ingest and starting it again
 * loses nothing and counts nothing twice.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { writeClaudeTranscript } from "../../scripts/lib/claude_corpus.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { startServe } from "../helpers/serve_process.ts";

function read(dataHome: string) {
  try {
    const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
    try {
      const messages = (db.prepare("SELECT count(*) AS n FROM messages").get() as { n: number }).n;
      const usage = (db.prepare("SELECT count(*) AS n FROM usage").get() as { n: number }).n;
      const session = db.prepare(
        "SELECT message_count, output_tokens, tool_calls FROM sessions WHERE session_id = 'big-session'",
      )
        .get() as { message_count: number; output_tokens: number; tool_calls: number } | undefined;
      return { messages, usage, session };
    } finally {
      db.close();
    }
  } catch {
    return { messages: 0, usage: 0, session: undefined };
  }
}

Deno.test("serve killed mid-ingest resumes exactly: no loss, no duplicates", async () => {
  const home = await makeAgentHome({ fixtures: false });
  try {
    const dir = `${home.home}/.claude/projects/-work-big`;
    await Deno.mkdir(dir, { recursive: true });
    const corpus = await writeClaudeTranscript(`${dir}/big-session.jsonl`, {
      sessionId: "big-session",
      cwd: "/work/big",
      targetBytes: 48 * 1024 * 1024,
      seed: 7,
    });
    const first = await startServe(home);
    const deadline = Date.now() + 60_000;
    let partial = 0;
    while (Date.now() < deadline) {
      partial = read(home.dataHome).messages;
      if (partial > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await first.stop("SIGKILL");
    const afterKill = read(home.dataHome).messages;
    assert.ok(afterKill > 0, "the first server stored something before it was killed");
    assert.ok(
      afterKill < corpus.messages,
      `killed mid-ingest (${afterKill} of ${corpus.messages})`,
    );

    const second = await startServe(home);
    try {
      const end = Date.now() + 120_000;
      while (Date.now() < end && read(home.dataHome).messages < corpus.messages) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const final = read(home.dataHome);
      assert.equal(final.messages, corpus.messages);
      assert.equal(final.usage, corpus.usage);
      assert.equal(final.session?.message_count, corpus.messages);
      // Every answer is written as three lines, the first two with a partial output count.
      assert.equal(final.session?.output_tokens, corpus.outputTokens);
      assert.equal(final.session?.tool_calls, corpus.toolCalls);
    } finally {
      await second.stop();
    }
  } finally {
    await home.cleanup();
  }
});
