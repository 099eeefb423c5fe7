/**
 * `vantage ingest` killed in the middle of a backfill, then run again, stores every message
 * and model call exactly once: the batches of many small files (sub-agents' transcripts) share
 * transactions, each file's cursor committed with its records.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type CorpusFile, writeClaudeTranscript } from "../../scripts/lib/claude_corpus.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";

interface Stored {
  messages: number;
  usage: number;
  output: number;
  parentsMessages: number;
  parentsOutput: number;
  subagents: number;
}

function stored(dataHome: string): Stored | undefined {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true });
  } catch {
    return undefined; // Not created yet.
  }
  try {
    const one = (sql: string) => Object.values(db.prepare(sql).get() as object)[0] as number;
    return {
      messages: one("SELECT count(*) FROM messages"),
      usage: one("SELECT count(*) FROM usage"),
      output: one("SELECT coalesce(sum(output_tokens), 0) FROM usage"),
      parentsMessages: one(
        "SELECT coalesce(sum(message_count), 0) FROM sessions WHERE is_subagent = 0",
      ),
      parentsOutput: one(
        "SELECT coalesce(sum(output_tokens), 0) FROM sessions WHERE is_subagent = 0",
      ),
      subagents: one("SELECT count(*) FROM sessions WHERE is_subagent = 1"),
    };
  } catch {
    return undefined; // The schema is still being made.
  } finally {
    db.close();
  }
}

Deno.test("ingest killed mid-backfill, then run again, stores everything exactly once", async () => {
  const home = await makeAgentHome({ fixtures: false });
  try {
    const dir = `${home.home}/.claude/projects/-work-crash`;
    await Deno.mkdir(dir, { recursive: true });
    const corpus: CorpusFile[] = [];
    for (let i = 0; i < 3; i++) {
      corpus.push(
        await writeClaudeTranscript(`${dir}/session-${i}.jsonl`, {
          sessionId: `session-${i}`,
          cwd: "/work/crash",
          targetBytes: 12 * 1024 * 1024,
          seed: 20 + i,
          subagentEvery: 5,
        }),
      );
    }
    const sum = (field: "messages" | "usage" | "outputTokens" | "subagents") =>
      corpus.reduce((total, file) => total + file[field], 0);

    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN, "ingest", "--json"],
      env: home.env,
      stdout: "null",
      stderr: "null",
    }).spawn();
    const deadline = Date.now() + 60_000;
    let before: Stored | undefined;
    while (Date.now() < deadline) {
      before = stored(home.dataHome);
      if (before !== undefined && before.messages > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill("SIGKILL");
    await child.status;
    const afterKill = stored(home.dataHome);
    assert.ok(afterKill !== undefined && afterKill.messages > 0, "stored something first");
    assert.ok(
      afterKill.messages < sum("messages"),
      `killed mid-backfill (${afterKill.messages} of ${sum("messages")} messages)`,
    );

    const rerun = await runVantage(["ingest", "--json"], { env: home.env });
    assert.equal(rerun.code, 0, rerun.stderr);
    const final = stored(home.dataHome);
    assert.deepEqual(final, {
      messages: sum("messages"),
      usage: sum("usage"),
      output: sum("outputTokens"),
      // A parent's totals include its sub-agents'.
      parentsMessages: sum("messages"),
      parentsOutput: sum("outputTokens"),
      subagents: sum("subagents"),
    });
  } finally {
    await home.cleanup();
  }
});
