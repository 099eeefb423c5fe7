import assert from "node:assert/strict";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";

Deno.test("composite surface over real stdio: query pipeline, describe, echo, refusals", async () => {
  const session = await connectStdio(["--surface", "composite"]);
  try {
    const { tools } = await session.client.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes("query"));
    assert.ok(names.includes("mcp.echo"));
    const query = tools.find((tool) => tool.name === "query")!;
    assert.equal(query.annotations?.readOnlyHint, true);

    // Single step: the bare result.
    const single = await session.client.callTool({
      name: "query",
      arguments: { steps: [{ op: "describe", params: { target: "list_cassettes" } }] },
    });
    assert.notEqual(single.isError, true);
    assert.equal(textJson(single).operation_id, "dex.list_cassettes");

    // Two steps with $prev.
    const piped = await session.client.callTool({
      name: "query",
      arguments: {
        steps: [
          { op: "list_cassettes" },
          { op: "describe", params: { target: "$prev.cassettes[0].operations[0]" } },
        ],
      },
    });
    const body = textJson(piped) as {
      steps: Array<{ op: string; result: { operation_id?: string } }>;
    };
    assert.equal(body.steps.length, 2);
    assert.equal(body.steps[1].result.operation_id, "dex.describe");

    const echo = await session.client.callTool({
      name: "mcp.echo",
      arguments: { message: "hello" },
    });
    assert.deepEqual(textJson(echo), { message: "hello" });

    const unknown = await session.client.callTool({
      name: "query",
      arguments: { steps: [{ op: "drop_tables" }] },
    });
    assert.equal(unknown.isError, true);
    assert.equal((textJson(unknown).error as { kind: string }).kind, "unknown_operation");

    const invalid = await session.client.callTool({
      name: "query",
      arguments: { steps: [{ op: "describe", params: { target: 7 } }] },
    });
    assert.equal(invalid.isError, true);
    assert.equal((textJson(invalid).error as { kind: string }).kind, "invalid_arguments");
  } finally {
    await session.close();
  }
});

Deno.test("full surface over real stdio: one tool per operation, each with its annotations", async () => {
  const session = await connectStdio(["--surface", "full"]);
  try {
    const { tools } = await session.client.listTools();
    const describe = tools.find((tool) => tool.name === "dex_describe");
    assert.ok(describe !== undefined);
    assert.equal(describe.annotations?.readOnlyHint, true);
    assert.ok(describe.outputSchema !== undefined);
    const result = await session.client.callTool({ name: "dex_list_cassettes", arguments: {} });
    assert.notEqual(result.isError, true);
    assert.ok(Array.isArray((result.structuredContent as { cassettes: unknown[] }).cassettes));
    const invalid = await session.client.callTool({
      name: "dex_describe",
      arguments: { target: 1 },
    });
    assert.equal(invalid.isError, true);
    assert.equal((textJson(invalid).error as { kind: string }).kind, "invalid_arguments");
  } finally {
    await session.close();
  }
  const narrow = await connectStdio(["--surface", "full", "--scopes", "net"]);
  try {
    const { tools } = await narrow.client.listTools();
    assert.deepEqual(tools, []);
    const refused = await narrow.client.callTool({ name: "dex_describe", arguments: {} });
    assert.equal(refused.isError, true);
    assert.equal((textJson(refused).error as { kind: string }).kind, "forbidden");
  } finally {
    await narrow.close();
  }
});
