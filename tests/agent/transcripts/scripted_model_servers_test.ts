// The scripted model servers generate the real fixtures; these checks keep their wire format
// honest without needing the real clients.
import assert from "node:assert/strict";
import { startScriptedAnthropicServer } from "../../helpers/scripted_anthropic_server.ts";
import { startScriptedOpenAIServer } from "../../helpers/scripted_openai_server.ts";

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

function parseSse(text: string): SseEvent[] {
  return text.trim().split("\n\n").map((block) => {
    const [eventLine, dataLine] = block.split("\n");
    return {
      event: eventLine.replace(/^event: /, ""),
      data: JSON.parse(dataLine.replace(/^data: /, "")),
    };
  });
}

Deno.test("scripted Anthropic server plays main turns and answers side requests", async () => {
  const server = startScriptedAnthropicServer([
    {
      blocks: [
        { type: "text", text: "Running it." },
        { type: "tool_use", name: "Bash", input: { command: "ls" } },
      ],
    },
  ]);
  try {
    const head = await fetch(server.url, { method: "HEAD" });
    await head.body?.cancel();
    assert.equal(head.status, 200);

    const side = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "claude-haiku-4-5", messages: [], max_tokens: 10 }),
    });
    const sideBody = await side.json();
    assert.equal(sideBody.content[0].type, "text");
    assert.equal(server.remaining(), 1);

    const main = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: "POST",
      body: JSON.stringify({
        model: "claude-sonnet-4-5",
        stream: true,
        tools: [{ name: "Bash" }],
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    assert.equal(main.headers.get("request-id"), "req_script_001");
    const events = parseSse(await main.text());
    assert.deepEqual(events.map((e) => e.event), [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const start = events[0].data.message as Record<string, unknown>;
    assert.equal(start.id, "msg_script_001");
    assert.equal(start.model, "claude-sonnet-4-5");
    const tool = events[4].data.content_block as Record<string, unknown>;
    assert.equal(tool.id, "toolu_script_001");
    const delta = events[5].data.delta as Record<string, unknown>;
    assert.deepEqual(JSON.parse(String(delta.partial_json)), { command: "ls" });
    assert.equal((events[7].data.delta as Record<string, unknown>).stop_reason, "tool_use");
    assert.equal(server.remaining(), 0);
    assert.deepEqual(server.requests.map((r) => [r.method, r.main]), [
      ["HEAD", false],
      ["POST", false],
      ["POST", true],
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("scripted OpenAI server plays Responses API turns", async () => {
  const server = startScriptedOpenAIServer([
    {
      items: [{ type: "function_call", name: "exec_command", arguments: { cmd: "ls" } }],
      usage: { input_tokens: 100, cached_input_tokens: 40, output_tokens: 20 },
    },
  ]);
  try {
    const response = await fetch(`${server.url}/responses`, {
      method: "POST",
      body: JSON.stringify({ model: "gpt-5", stream: true, tools: [{ type: "function" }] }),
    });
    const events = parseSse(await response.text());
    assert.deepEqual(events.map((e) => e.event), [
      "response.created",
      "response.output_item.done",
      "response.completed",
    ]);
    const item = events[1].data.item as Record<string, unknown>;
    assert.equal(item.type, "function_call");
    assert.equal(item.call_id, "call_script_001");
    assert.deepEqual(JSON.parse(String(item.arguments)), { cmd: "ls" });
    const completed = events[2].data.response as Record<string, Record<string, unknown>>;
    assert.equal(completed.usage.total_tokens, 120);
    assert.deepEqual(completed.usage.input_tokens_details, { cached_tokens: 40 });
    assert.equal(server.remaining(), 0);
  } finally {
    await server.close();
  }
});
