/**
 * A push may be larger than other requests: the sync operations declare
 * their own argument limit, and the HTTP route reads a body that large for
 * them only. A 3 MB push is taken; the same size sent to another operation
 * is refused with 413 before it is parsed.
 */
import assert from "node:assert/strict";
import { startInProcessTeam } from "./team_fixture.ts";

Deno.test("a push larger than the usual body limit is taken; other operations keep theirs", async () => {
  const team = await startInProcessTeam();
  try {
    const token = team.addPerson("ada");
    const post = (id: string, body: unknown) =>
      fetch(`${team.url}/api/ops/${id}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const text = "a long tool output line\\n".repeat(120_000);
    const pushed = await post("sync.push", {
      messages: [{
        agent: "claude_code",
        session_id: "big-session",
        message_key: "big-1",
        ts: Date.UTC(2026, 10, 3),
        role: "tool",
        message_type: "tool_result",
        text,
      }],
    });
    const answer = await pushed.json();
    assert.equal(pushed.status, 200, JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.result.messages, 1);
    const added = await post("docs.add", { content: text, name: "big.md" });
    assert.equal(added.status, 413);
    assert.match(
      (await added.json()).error.message,
      /request body is \d+ bytes; the limit is 1048576/,
    );
  } finally {
    await team.close();
  }
});
