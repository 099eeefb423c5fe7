import assert from "node:assert/strict";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";

Deno.test("dex surface over real stdio: list, search, execute, pipeline, refusals", async (t) => {
  const session = await connectStdio();
  try {
    await t.step("tools/list shows search and execute with schemas and annotations", async () => {
      const { tools } = await session.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["search", "execute"]);
      assert.equal(tools[0].annotations?.readOnlyHint, true);
      assert.equal(tools[0].inputSchema.type, "object");
      assert.ok(tools[1].outputSchema !== undefined);
    });

    await t.step("search finds operations by words and identifiers", async () => {
      const result = await session.client.callTool({
        name: "search",
        arguments: { query: "describe operation schema" },
      });
      assert.notEqual(result.isError, true);
      const structured = result.structuredContent as {
        results: Array<{ operation_id: string; signature: string }>;
        truncated: boolean;
      };
      assert.equal(structured.results[0].operation_id, "dex.describe");
      assert.equal(structured.results[0].signature, "(target?: string)");
      const full = await session.client.callTool({
        name: "search",
        arguments: { query: "describe operation schema", detail: "full" },
      });
      const whole = (full.structuredContent as {
        results: Array<{ cassette: string; input_schema: { type: string } }>;
      }).results[0];
      assert.equal(whole.cassette, "dex");
      assert.equal(whole.input_schema.type, "object");
      const byIdentifier = await session.client.callTool({
        name: "search",
        arguments: { query: "listCassettes" },
      });
      assert.equal(
        (byIdentifier.structuredContent as { results: Array<{ operation_id: string }> }).results[0]
          .operation_id,
        "dex.list_cassettes",
      );
    });

    await t.step("execute runs one operation", async () => {
      const result = await session.client.callTool({
        name: "execute",
        arguments: { operation_id: "dex.list_cassettes", arguments: {} },
      });
      assert.notEqual(result.isError, true);
      const structured = result.structuredContent as {
        operation_id: string;
        source: string;
        result: { cassettes: Array<{ name: string }> };
      };
      assert.equal(structured.operation_id, "dex.list_cassettes");
      assert.equal(structured.source, "builtin");
      assert.ok(structured.result.cassettes.some((c) => c.name === "dex"));
      assert.deepEqual(textJson(result), structured);
    });

    await t.step("a pipeline feeds $prev into the next step", async () => {
      const result = await session.client.callTool({
        name: "execute",
        arguments: {
          steps: [
            { op: "dex.list_cassettes" },
            { op: "dex.describe", params: { target: "$prev.cassettes[0].operations[1]" } },
          ],
        },
      });
      assert.notEqual(result.isError, true);
      const structured = result.structuredContent as {
        completed: number;
        result: { operation_id: string };
      };
      assert.equal(structured.completed, 2);
      assert.equal(structured.result.operation_id, "dex.list_cassettes");
    });

    await t.step("invalid arguments and unknown operations come back as errors", async () => {
      const invalid = await session.client.callTool({
        name: "execute",
        arguments: { operation_id: "dex.describe", arguments: { target: 42 } },
      });
      assert.equal(invalid.isError, true);
      const error =
        (invalid.structuredContent as { error: { kind: string; dispatched: boolean } }).error;
      assert.equal(error.kind, "invalid_arguments");
      assert.equal(error.dispatched, false);
      const unknown = await session.client.callTool({
        name: "execute",
        arguments: { operation_id: "dex.nothing_here", arguments: {} },
      });
      assert.equal(unknown.isError, true);
      assert.equal(
        (unknown.structuredContent as { error: { kind: string } }).error.kind,
        "unknown_operation",
      );
      const domain = await session.client.callTool({
        name: "execute",
        arguments: { operation_id: "dex.describe", arguments: { target: "no.such.thing" } },
      });
      assert.equal(domain.isError, true);
      assert.equal((domain.structuredContent as { dispatched: boolean }).dispatched, true);
      assert.ok("operation_error" in (domain.structuredContent as object));
    });

    await t.step("prompts: built-ins plus PROMPT-*.md files", async () => {
      await Deno.mkdir(`${session.home}/prompts`, { recursive: true });
      await Deno.writeTextFile(
        `${session.home}/prompts/PROMPT-research-mcp.md`,
        "# Research MCP\nSteps…\n",
      );
      const { prompts } = await session.client.listPrompts();
      const names = prompts.map((p) => p.name);
      assert.ok(names.includes("search_codebase"));
      assert.ok(names.includes("research_mcp"));
      const file = await session.client.getPrompt({ name: "research_mcp" });
      assert.equal(file.messages[0].role, "assistant");
      assert.equal((file.messages[0].content as { text: string }).text, "# Research MCP\nSteps…\n");
      const builtin = await session.client.getPrompt({
        name: "search_codebase",
        arguments: { pattern: "TODO" },
      });
      assert.match((builtin.messages[0].content as { text: string }).text, /TODO/);
      await assert.rejects(
        () => session.client.getPrompt({ name: "nope" }),
        /no prompt named 'nope'/,
      );
    });
  } finally {
    await session.close();
  }
  // Nothing but JSON-RPC went to stdout (the client would have failed to parse it); logs are on stderr.
});

Deno.test("dex surface hides and refuses what the caller's scopes do not allow", async () => {
  const session = await connectStdio(["--scopes", "agent:read"]);
  try {
    const search = await session.client.callTool({
      name: "search",
      arguments: { query: "describe" },
    });
    assert.deepEqual((search.structuredContent as { results: unknown[] }).results, []);
    const refused = await session.client.callTool({
      name: "execute",
      arguments: { operation_id: "dex.describe", arguments: {} },
    });
    assert.equal(refused.isError, true);
    const error = (refused.structuredContent as {
      error: { kind: string; details: { missing_scopes: string[] } };
    }).error;
    assert.equal(error.kind, "forbidden");
    assert.deepEqual(error.details.missing_scopes, ["dex:read"]);
  } finally {
    await session.close();
  }
});
