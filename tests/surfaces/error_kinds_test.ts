/**
 * Every error kind reads the same on every surface. Driven from
 * ERROR_KINDS: an operation raises each kind, and the HTTP route, the three
 * MCP surfaces (through the real handler's `/mcp`) and the CLI's exit code
 * each report it with the signal this table expects — so a kind added to
 * the list fails here until every surface maps it. Then the forbidden row
 * end to end, through real `vantage call` and `mcp-serve` processes.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { callExitCode } from "../../src/cli/call.ts";
import { ERROR_KINDS, type ErrorKind, VantageError } from "../../src/core/errors.ts";
import { createHandler } from "../../src/http/handler.ts";
import { mcpNaming } from "../../src/mcp/operation_names.ts";
import { createCatalog } from "../../src/ops/catalog.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { defineOperation } from "../../src/ops/operation.ts";
import { Services } from "../../src/ops/services.ts";
import { runVantage } from "../helpers/cli.ts";
import { LOOPBACK, postJson } from "../helpers/http_handler.ts";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";

/** What each kind must look like: HTTP status and CLI exit code (MCP: always isError). */
const EXPECTED: Readonly<Record<ErrorKind, { status: number; exit: number }>> = {
  invalid_arguments: { status: 400, exit: 2 },
  unknown_operation: { status: 404, exit: 2 },
  forbidden: { status: 403, exit: 3 },
  timeout: { status: 504, exit: 1 },
  result_too_large: { status: 413, exit: 1 },
  invalid_result: { status: 500, exit: 1 },
  operation_error: { status: 422, exit: 1 },
  not_found: { status: 404, exit: 4 },
  conflict: { status: 409, exit: 1 },
  unavailable: { status: 503, exit: 5 },
  internal_error: { status: 500, exit: 1 },
};

/** A host catalog whose one operation raises the kind it is asked for. */
function raisingCatalog() {
  return createCatalog({
    naming: mcpNaming({ composite: { "kinds.raise": { tool: "query", name: "raise" } } }),
    cassettes: [{
      name: "kinds",
      source: "test",
      description: "Raises any error kind",
      operations: [defineOperation({
        id: "kinds.raise",
        title: "Raise an error kind",
        description: "Fails with a VantageError of the given kind.",
        input: z.object({ kind: z.enum(ERROR_KINDS) }),
        output: z.object({}),
        scopes: ["kinds:run"],
        annotations: { readOnlyHint: true },
        run: (_ctx, { kind }) => {
          throw new VantageError(kind, `raised ${kind} on purpose`, { details: { asked: kind } });
        },
      })],
    }],
  });
}

type Json = Record<string, unknown>;

/** The kind a surface's JSON body reports: the executor's error, or the operation's own. */
function kindIn(body: Json): unknown {
  const error = body.error as Json | undefined;
  const own = body.operation_error as Json | undefined;
  return error?.kind ?? own?.kind;
}

Deno.test("the expectation table covers exactly ERROR_KINDS", () => {
  assert.deepEqual(Object.keys(EXPECTED).sort(), [...ERROR_KINDS].sort());
});

Deno.test("every kind an operation raises maps the same on HTTP, MCP and the CLI", async () => {
  const catalog = raisingCatalog();
  const services = new Services();
  const handler = createHandler({
    guard: LOOPBACK,
    hooks: {
      take: () => {
        throw new Error("no hooks here");
      },
    },
    ops: { catalog, services, scopes: ["kinds:run"] },
    dashboard: false,
  });
  let rpcId = 0;
  const callTool = async (surface: string, name: string, args: Json) => {
    const response = await handler(
      postJson(`/mcp?surface=${surface}`, {
        jsonrpc: "2.0",
        id: ++rpcId,
        method: "tools/call",
        params: { name, arguments: args },
      }, { accept: "application/json, text/event-stream" }),
    );
    assert.equal(response.status, 200, `${surface} ${name}: HTTP ${response.status}`);
    const rpc = await response.json() as {
      result: { isError?: boolean; content: [{ text: string }] };
    };
    return { isError: rpc.result.isError === true, body: JSON.parse(rpc.result.content[0].text) };
  };
  for (const kind of ERROR_KINDS) {
    const expected = EXPECTED[kind];
    const args = { kind };

    const http = await handler(postJson("/api/ops/kinds.raise", args));
    const httpBody = await http.json();
    assert.equal(http.status, expected.status, `${kind}: HTTP status`);
    assert.equal(kindIn(httpBody), kind, `${kind}: HTTP body`);

    const response = await executeOperation(catalog, "kinds.raise", args, { scopes: ["*"] });
    assert.equal(callExitCode(response), expected.exit, `${kind}: exit code`);
    assert.equal(kindIn(response as unknown as Json), kind, `${kind}: executor response`);

    const dex = await callTool("dex", "execute", { operation_id: "kinds.raise", arguments: args });
    assert.equal(dex.isError, true, `${kind}: dex isError`);
    assert.equal(kindIn(dex.body), kind, `${kind}: dex body`);

    const piped = await callTool("dex", "execute", {
      steps: [{ op: "kinds.raise", params: args }],
    });
    assert.equal(piped.isError, true, `${kind}: dex pipeline isError`);
    assert.equal(kindIn(piped.body), kind, `${kind}: dex pipeline error`);

    const full = await callTool("full", "kinds_raise", args);
    assert.equal(full.isError, true, `${kind}: full isError`);
    assert.equal(kindIn(full.body), kind, `${kind}: full body`);

    const composite = await callTool("composite", "query", {
      steps: [{ op: "raise", params: args }],
    });
    assert.equal(composite.isError, true, `${kind}: composite isError`);
    assert.equal(kindIn(composite.body), kind, `${kind}: composite body`);
  }
});

Deno.test("forbidden end to end: exit 3 from vantage call, isError with kind forbidden from mcp-serve", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-kinds-" });
  const env = { VANTAGE_HOME: home };
  // Refused by the executor (no scope for the operation), and by the operation itself
  // (the SELECT reads a table the caller's scopes do not open).
  const calls = [
    { args: ["dex.describe", "{}", "--scopes", "agent:read"], own: false },
    {
      args: ["agent.exec_query", '{"sql":"SELECT data FROM docs_chunks"}', "--scopes", "sql:read"],
      own: true,
    },
  ];
  try {
    for (const { args, own } of calls) {
      const run = await runVantage(["call", ...args, "--json"], { env });
      assert.equal(run.code, 3, run.stderr);
      const body = JSON.parse(run.stdout) as Json;
      assert.equal(kindIn(body), "forbidden");
      assert.equal("operation_error" in body, own);
    }
    const session = await connectStdio(["--scopes", "sql:read"], { home });
    try {
      const refused = await session.client.callTool({
        name: "execute",
        arguments: {
          operation_id: "agent.exec_query",
          arguments: { sql: "SELECT data FROM docs_chunks" },
        },
      });
      assert.equal(refused.isError, true);
      const own = textJson(refused).operation_error as Json;
      assert.equal(own.kind, "forbidden");
      assert.equal((own.details as Json).kind, "forbidden", "details.kind kept for older readers");
    } finally {
      await session.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
