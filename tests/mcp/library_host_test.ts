/**
 * A host program mounting Vantage's handlers over its own catalog, with the
 * MCP SDK's in-memory transport: no Vantage server, no Vantage operations.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  buildSurface,
  createCatalog,
  createMcpServer,
  executeTool,
  mcpNaming,
  type OperationNaming,
  searchTool,
} from "../../mod.ts";
import { hostCatalog } from "../helpers/host_catalog.ts";
import { textJson } from "../helpers/mcp_stdio.ts";

async function connect(
  surface: "dex" | "composite" | "full",
  scopes: string[],
  store: Map<string, string>,
  naming?: OperationNaming,
) {
  const host = hostCatalog(store);
  const catalog = naming === undefined ? host : createCatalog({
    cassettes: host.cassettes,
    limits: host.limits,
    naming,
  });
  const server = createMcpServer({
    version: "test",
    promptsDir: "/nonexistent",
    surface: () => buildSurface(surface, catalog, { scopes }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "host-test", version: "1" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, close: () => client.close() };
}

Deno.test("tool definitions are JSON Schema 2020-12 with annotations", () => {
  for (const tool of [searchTool(), executeTool()]) {
    assert.equal(tool.input_schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(tool.output_schema.type, "object");
    assert.equal(typeof tool.annotations.readOnlyHint, "boolean");
  }
});

Deno.test("a host's catalog over the dex surface: search, execute, pipeline", async () => {
  const store = new Map<string, string>();
  const { client, close } = await connect("dex", ["notes:read", "notes:write"], store);
  try {
    const found = await client.callTool({ name: "search", arguments: { query: "store a note" } });
    assert.equal(
      (found.structuredContent as { results: Array<{ operation_id: string }> }).results[0]
        .operation_id,
      "notes.put",
    );
    const put = await client.callTool({
      name: "execute",
      arguments: { operation_id: "notes.put", arguments: { key: "plan", text: "ship it" } },
    });
    assert.notEqual(put.isError, true);
    assert.equal(store.get("plan"), "ship it");
    const piped = await client.callTool({
      name: "execute",
      arguments: {
        steps: [{ op: "notes.list" }, { op: "notes.read_note", params: { key: "$prev.keys[0]" } }],
      },
    });
    assert.deepEqual((piped.structuredContent as { result: unknown }).result, {
      key: "plan",
      text: "ship it",
    });
  } finally {
    await close();
  }
});

Deno.test("composite execute: stops at the first error unless continueOnError", async () => {
  const store = new Map<string, string>();
  const { client, close } = await connect("composite", ["notes:read", "notes:write"], store);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["query", "execute", "mcp.echo"]);
    const stopped = await client.callTool({
      name: "execute",
      arguments: {
        operations: [
          { op: "put", params: { key: "a", text: "1" } },
          { op: "put", params: { key: "", text: "bad" } },
          { op: "put", params: { key: "c", text: "3" } },
        ],
      },
    });
    const body = textJson(stopped) as {
      results: Array<{ op: string; success: boolean }>;
      totalOps: number;
      succeeded: number;
      failed: number;
    };
    assert.equal(body.totalOps, 3);
    assert.equal(body.succeeded, 1);
    assert.equal(body.failed, 1);
    assert.equal(body.results.length, 2);
    assert.deepEqual(body.results[0], { op: "put", success: true, key: "a", stored: true });
    assert.equal(store.has("c"), false);
    const continued = await client.callTool({
      name: "execute",
      arguments: {
        continueOnError: true,
        operations: [
          { op: "put", params: { key: "", text: "bad" } },
          { op: "nope", params: {} },
          { op: "put", params: { key: "c", text: "3" } },
        ],
      },
    });
    const second = textJson(continued) as { results: unknown[]; succeeded: number; failed: number };
    assert.equal(second.results.length, 3);
    assert.equal(second.succeeded, 1);
    assert.equal(second.failed, 2);
    assert.equal(store.get("c"), "3");
    // A query pipeline over the host's read operations.
    const q = await client.callTool({
      name: "query",
      arguments: { steps: [{ op: "list" }, { op: "get", params: { key: "$prev.keys[1]" } }] },
    });
    const steps = (textJson(q) as { steps: Array<{ result: { text?: string } }> }).steps;
    assert.equal(steps[1].result.text, "3");
  } finally {
    await close();
  }
});

Deno.test("composite surface without write scopes hides execute and refuses writes", async () => {
  const store = new Map<string, string>();
  const { client, close } = await connect("composite", ["notes:read"], store);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["query", "mcp.echo"]);
    const refused = await client.callTool({
      name: "execute",
      arguments: { operations: [{ op: "put", params: { key: "x", text: "y" } }] },
    });
    assert.equal(refused.isError, true);
    assert.equal(store.size, 0);
  } finally {
    await close();
  }
});

Deno.test("composite query refuses a write, by its batch name or placed among the reads", async () => {
  const store = new Map<string, string>([["a", "alpha"]]);
  // The host's table puts its write op under `query` (as `save`) beside a read.
  const naming = mcpNaming({
    composite: {
      "notes.put": { tool: "query", name: "save" },
      "notes.list": { tool: "query", name: "list" },
      "notes.read_note": { tool: "execute", name: "fetch" },
    },
  });
  const { client, close } = await connect(
    "composite",
    ["notes:read", "notes:write"],
    store,
    naming,
  );
  try {
    const { tools } = await client.listTools();
    const query = tools.find((tool) => tool.name === "query")!;
    const steps = query.inputSchema.properties!.steps as {
      items: { properties: { op: { enum: string[] } } };
    };
    assert.deepEqual(steps.items.properties.op.enum, ["list"], "the write is not offered");
    const refused = await client.callTool({
      name: "query",
      arguments: { steps: [{ op: "list" }, { op: "save", params: { key: "b", text: "x" } }] },
    });
    assert.equal(refused.isError, true);
    const body = textJson(refused) as {
      error: { kind: string; dispatched: boolean; message: string };
      completed: Array<{ op: string }>;
    };
    assert.equal(body.error.kind, "forbidden");
    assert.equal(body.error.dispatched, false);
    assert.equal(
      body.error.message,
      "steps[1] (save): operation 'notes.put' is not annotated read-only, and this pipeline runs only read-only operations; run writes on their own or in a write batch",
    );
    assert.deepEqual(body.completed.map((step) => step.op), ["list"]);
    assert.deepEqual([...store.keys()], ["a"], "nothing was written");
  } finally {
    await close();
  }
  // With Vantage's own layout the write lives under `execute`; named in a query, it is refused too.
  const plain = await connect("composite", ["notes:read", "notes:write"], store);
  try {
    const refused = await plain.client.callTool({
      name: "query",
      arguments: { steps: [{ op: "put", params: { key: "c", text: "y" } }] },
    });
    assert.equal(refused.isError, true);
    assert.match(
      (textJson(refused).error as { message: string }).message,
      /^steps\[0\] \(put\): operation 'notes\.put' is not annotated read-only/,
    );
    assert.equal(store.has("c"), false);
  } finally {
    await plain.close();
  }
});
