/**
 * The text block of a tool result is not a second, larger copy: over real
 * stdio, on every surface, it is compact JSON or a shorter readable rendering,
 * never longer than the structured payload beside it.
 */
import assert from "node:assert/strict";
import { connectStdio } from "../helpers/mcp_stdio.ts";

type Call = { name: string; arguments: Record<string, unknown> };

const CALLS: Record<string, Call[]> = {
  dex: [
    { name: "search", arguments: { query: "failed builds" } },
    { name: "search", arguments: { query: "store a note", limit: 2 } },
    { name: "search", arguments: { query: "describe", detail: "full", limit: 1 } },
    { name: "search", arguments: { query: "zzzz qqqq" } },
    { name: "search", arguments: { limit: 3 } },
    { name: "execute", arguments: { operation_id: "dex.list_cassettes", arguments: {} } },
    {
      name: "execute",
      arguments: { operation_id: "dex.describe", arguments: { target: "docs.add" } },
    },
    { name: "execute", arguments: { operation_id: "dex.nope", arguments: {} } },
    {
      name: "execute",
      arguments: {
        steps: [{ op: "dex.list_cassettes" }, {
          op: "dex.describe",
          params: { target: "$prev.cassettes[0].operations[0]" },
        }],
      },
    },
  ],
  composite: [
    { name: "query", arguments: { steps: [{ op: "describe", params: { target: "search" } }] } },
    { name: "query", arguments: { steps: [{ op: "list_cassettes" }, { op: "list_collections" }] } },
    { name: "query", arguments: { steps: [{ op: "nope" }] } },
    { name: "mcp.echo", arguments: { message: "hello" } },
  ],
  full: [
    { name: "dex_list_cassettes", arguments: {} },
    { name: "dex_describe", arguments: { target: "search_sessions" } },
    { name: "docs_list_collections", arguments: {} },
    { name: "dex_describe", arguments: { target: 7 } },
  ],
};

/** Whether `text` is JSON written without any spacing. */
function compactJson(text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

for (const [surface, calls] of Object.entries(CALLS)) {
  Deno.test(`${surface} surface: text blocks are never longer than the structured payload`, async () => {
    const session = await connectStdio(["--surface", surface]);
    try {
      for (const call of calls) {
        const result = await session.client.callTool(call);
        const label = `${surface} ${call.name} ${JSON.stringify(call.arguments)}`;
        const content = result.content as Array<{ type: string; text: string }>;
        assert.equal(content.length, 1, label);
        assert.equal(content[0].type, "text", label);
        const text = content[0].text;
        if (result.structuredContent === undefined) {
          // The text is the only payload: compact JSON.
          assert.ok(compactJson(text), `${label}: ${text.slice(0, 80)}`);
          continue;
        }
        const structured = JSON.stringify(result.structuredContent);
        assert.ok(
          text.length <= structured.length,
          `${label}: ${text.length} > ${structured.length}`,
        );
        // Either the payload itself, compact, or a rendering of it that is shorter.
        if (compactJson(text)) assert.equal(text, structured, label);
        else assert.ok(text.length < structured.length, label);
      }
    } finally {
      await session.close();
    }
  });
}

Deno.test("dex search text lists every hit as a call line, shorter than the JSON", async () => {
  const session = await connectStdio();
  try {
    const result = await session.client.callTool({
      name: "search",
      arguments: { query: "how did we fix this error before" },
    });
    const text = (result.content as Array<{ text: string }>)[0].text;
    const hits = (result.structuredContent as {
      results: Array<{ operation_id: string; signature: string; description: string }>;
    }).results;
    assert.equal(hits.length, 5);
    for (const hit of hits) {
      assert.ok(text.includes(`${hit.operation_id}${hit.signature} → {`), hit.operation_id);
      assert.ok(text.includes(`  ${hit.description}`), hit.operation_id);
    }
    assert.match(text, /\(more matched: raise limit\)$/);
    assert.ok(text.length < JSON.stringify(result.structuredContent).length);
  } finally {
    await session.close();
  }
});
