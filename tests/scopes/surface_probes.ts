/**
 * How each surface lists the operations a caller may run and how it runs
 * one, reduced to one shape so a single table of expectations covers them
 * all: MCP (`dex`, `composite`, `full`, over stdio or Streamable HTTP), the
 * HTTP routes and the CLI. Each probe is bound to one scope set.
 */
import { SERVE_SCOPES } from "../../src/ops/scopes.ts";
import type { Catalog } from "../../src/ops/catalog.ts";
import type { Operation } from "../../src/ops/operation.ts";
import type { StdioSession } from "../helpers/mcp_stdio.ts";
import { runVantage } from "../helpers/cli.ts";

/** An error as surfaces carry it: the executor's error, or an operation's own. */
export interface ErrorShape {
  kind?: string;
  dispatched?: boolean;
  message?: string;
  details?: Record<string, unknown>;
}

/** The executor's answer as one surface carried it back. */
export interface ExecutorAnswer {
  result?: unknown;
  error?: ErrorShape;
  operation_error?: { kind?: string; message?: string; details?: Record<string, unknown> };
}

/** One way of running an operation on a surface, and what came back. */
export interface Outcome {
  /** Which route: `execute`, `execute steps`, `POST /api/query`, … */
  route: string;
  /** The answer, normalised to the executor's shape. */
  answer: ExecutorAnswer;
  /** The surface's own failure signal: MCP isError, HTTP status, CLI exit code. */
  signal: { isError?: boolean; status?: number; exitCode?: number };
  /**
   * How this route refuses an operation the caller may not run: `forbidden`
   * when it names the operation and the executor refuses, `unknown_operation`
   * when the surface does not even let the caller name it.
   */
  refusesAs: "forbidden" | "unknown_operation";
  /** The raw text, for failure messages. */
  raw: string;
}

/** A surface bound to one caller. */
export interface SurfaceProbe {
  /** For messages: `mcp stdio full`, `http /api/ops`, `cli`, … */
  readonly name: string;
  /** Whether this surface can name `operation` at all (composite maps only some). */
  reaches(operation: Operation): boolean;
  /** Every listing the caller can look at, each as the operation ids it shows. */
  listings(): Promise<Record<string, string[]>>;
  /** Every way to look one operation up by name, each saying whether it found it. */
  lookups(operation: Operation): Promise<Record<string, boolean>>;
  /** Runs `operation` every way this surface offers. */
  run(operation: Operation, args: Record<string, unknown>): Promise<Outcome[]>;
}

/** What an MCP client needs to do: list tools and call one. */
export interface McpPort {
  listTools(): Promise<McpToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<McpCallResult>;
}

/** The parts of an MCP tool the probes read. */
export interface McpToolInfo {
  name: string;
  inputSchema?: Record<string, unknown>;
}

/** The parts of an MCP tool result the probes read. */
export interface McpCallResult {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

/** The MCP SDK client of a stdio session as a port. */
export function stdioPort(session: StdioSession): McpPort {
  return {
    async listTools() {
      return (await session.client.listTools()).tools as McpToolInfo[];
    },
    async callTool(name, args) {
      return await session.client.callTool({ name, arguments: args }) as McpCallResult;
    },
  };
}

/** Plain JSON-RPC POSTs to `/mcp?surface=…` (stateless), with the caller's scope header. */
export function httpMcpPort(baseUrl: string, surface: string, scopes: readonly string[]): McpPort {
  let id = 0;
  const rpc = async (method: string, params: Record<string, unknown>) => {
    const response = await fetch(`${baseUrl}/mcp?surface=${surface}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-vantage-scopes": scopes.join(","),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status}: ${text}`);
    const body = JSON.parse(text);
    if (body.error !== undefined) throw new Error(`${method}: JSON-RPC error ${text}`);
    return body.result;
  };
  return {
    async listTools() {
      return (await rpc("tools/list", {})).tools;
    },
    async callTool(name, args) {
      return await rpc("tools/call", { name, arguments: args });
    },
  };
}

function resultText(result: McpCallResult): string {
  return result.content?.find((part) => part.type === "text")?.text ?? "";
}

function parseText(result: McpCallResult): Record<string, unknown> {
  return JSON.parse(resultText(result));
}

/** The `dex` surface: `search` lists, `execute` runs (one operation, or steps). */
export function dexProbe(name: string, port: McpPort, catalog: Catalog): SurfaceProbe {
  const execute = async (args: Record<string, unknown>) => {
    const result = await port.callTool("execute", args);
    return { result, answer: (result.structuredContent ?? parseText(result)) as ExecutorAnswer };
  };
  return {
    name,
    reaches: () => true,
    async listings() {
      const tools = (await port.listTools()).map((tool) => tool.name).sort();
      if (tools.join() !== "execute,search") throw new Error(`dex tools are ${tools.join()}`);
      const search: string[] = [];
      for (const cassette of catalog.cassettes) {
        const result = await port.callTool("search", {
          query: "",
          cassette: cassette.name,
          limit: 50,
        });
        const body = result.structuredContent as {
          results?: Array<{ operation_id: string }>;
          truncated?: boolean;
        };
        if (result.isError === true || body.results === undefined) {
          throw new Error(`search in ${cassette.name} failed: ${resultText(result)}`);
        }
        if (body.truncated === true) throw new Error(`search in ${cassette.name} was truncated`);
        search.push(...body.results.map((r) => r.operation_id));
      }
      const views: Record<string, string[]> = { search };
      // describe and list_cassettes are themselves operations: they list only when visible.
      if (search.includes("dex.describe")) {
        const { answer } = await execute({ operation_id: "dex.describe", arguments: {} });
        const listed = (answer.result as { operations?: Array<{ operation_id: string }> })
          ?.operations;
        views["dex.describe"] = listed?.map((op) => op.operation_id) ?? [];
      }
      if (search.includes("dex.list_cassettes")) {
        const { answer } = await execute({ operation_id: "dex.list_cassettes", arguments: {} });
        const cassettes = (answer.result as { cassettes?: Array<{ operations: string[] }> })
          ?.cassettes ?? [];
        views["dex.list_cassettes"] = cassettes.flatMap((cassette) => cassette.operations);
      }
      return views;
    },
    async lookups(operation) {
      const found: Record<string, boolean> = {};
      const result = await port.callTool("search", { query: operation.title, limit: 50 });
      const body = result.structuredContent as { results?: Array<{ operation_id: string }> };
      found[`search "${operation.title}"`] = (body.results ?? []).some((r) =>
        r.operation_id === operation.id
      );
      const described = await execute({
        operation_id: "dex.describe",
        arguments: { target: operation.id },
      });
      // Without dex:read describe itself is refused, and finds nothing either.
      found["dex.describe target"] =
        (described.answer.result as { operation_id?: string } | undefined)?.operation_id ===
          operation.id;
      return found;
    },
    async run(operation, args) {
      const single = await execute({ operation_id: operation.id, arguments: args });
      const steps = await execute({ steps: [{ op: operation.id, params: args }] });
      // A pipeline answers with each step's response; the first is this operation's.
      const stepAnswer = ((steps.answer as { steps?: ExecutorAnswer[] }).steps ?? [])[0] ??
        steps.answer;
      return [
        {
          route: "execute",
          answer: single.answer,
          signal: { isError: single.result.isError === true },
          refusesAs: "forbidden",
          raw: resultText(single.result),
        },
        {
          route: "execute steps",
          answer: stepAnswer,
          signal: { isError: steps.result.isError === true },
          refusesAs: "forbidden",
          raw: resultText(steps.result),
        },
      ];
    },
  };
}

/** The `full` surface: one tool per operation the caller may run. */
export function fullProbe(name: string, port: McpPort, catalog: Catalog): SurfaceProbe {
  const toolOf = (op: Operation) => catalog.namesOf(op.id).tool;
  const byTool = new Map(catalog.operations().map((op) => [toolOf(op), op.id]));
  return {
    name,
    reaches: () => true,
    async listings() {
      const tools = await port.listTools();
      return { "tools/list": tools.map((tool) => byTool.get(tool.name) ?? `tool ${tool.name}`) };
    },
    lookups: () => Promise.resolve({}),
    async run(operation, args) {
      // A tool the caller was not shown is still called by name: the executor must refuse it.
      const result = await port.callTool(toolOf(operation), args);
      const answer: ExecutorAnswer = result.isError === true
        ? parseText(result) as ExecutorAnswer
        : { result: result.structuredContent ?? parseText(result) };
      return [{
        route: `tools/call ${toolOf(operation)}`,
        answer,
        signal: { isError: result.isError === true },
        refusesAs: "forbidden",
        raw: resultText(result),
      }];
    },
  };
}

/**
 * Whether the `composite` surface can name an operation: it has a composite
 * name, and a `query` step must be read-only.
 */
export function compositeReaches(catalog: Catalog, operation: Operation): boolean {
  const place = catalog.namesOf(operation.id).composite;
  return place !== undefined &&
    (place.tool !== "query" || operation.annotations.readOnlyHint === true);
}

/**
 * The `composite` surface: `query` steps, `execute` operations and `session`
 * actions by their YAMS names. It names only what the caller may run, so an
 * operation outside the caller's scopes is not found rather than refused.
 */
export function compositeProbe(name: string, port: McpPort, catalog: Catalog): SurfaceProbe {
  const reaches = (operation: Operation) => compositeReaches(catalog, operation);
  const placeOf = (operation: Operation) => catalog.namesOf(operation.id).composite!;
  const idOf = (tool: string, composite: string) =>
    catalog.operations().find((op) =>
      reaches(op) && placeOf(op).tool === tool && placeOf(op).name === composite
    )?.id ?? `${tool}:${composite}`;
  return {
    name,
    reaches,
    async listings() {
      const tools = await port.listTools();
      const named: string[] = [];
      for (const tool of tools) {
        if (tool.name === "mcp.echo") continue;
        const properties = tool.inputSchema?.properties as CompositeProperties | undefined;
        const list = tool.name === "query" ? properties?.steps : properties?.operations;
        const names = (tool.name === "session"
          ? properties?.action?.enum
          : list?.items?.properties?.op?.enum) ?? [];
        named.push(...names.map((n) =>
          idOf(tool.name, n)
        ));
      }
      const views: Record<string, string[]> = { "tools/list": named };
      if (named.includes("dex.describe")) {
        const result = await port.callTool("query", { steps: [{ op: "describe", params: {} }] });
        const listed = parseText(result).operations as Array<{ operation_id: string }> | undefined;
        // describe lists every operation the caller may run, composite-mapped or not.
        views["query describe"] = (listed ?? []).map((op) => op.operation_id)
          .filter((id) => reaches(catalog.get(id)!));
      }
      return views;
    },
    async lookups(operation) {
      const result = await port.callTool("query", {
        steps: [{ op: "describe", params: { target: placeOf(operation).name } }],
      });
      const body = parseText(result);
      // Without dex:read there is no describe step (unknown_operation): nothing is found.
      return {
        "query describe target": result.isError !== true && body.operation_id === operation.id,
      };
    },
    async run(operation, args) {
      const composite = placeOf(operation);
      const tool = composite.tool;
      const call = tool === "query"
        ? { steps: [{ op: composite.name, params: args }] }
        : tool === "execute"
        ? { operations: [{ op: composite.name, params: args }] }
        : { action: composite.name, params: args };
      const result = await port.callTool(tool, call);
      const body = parseText(result);
      let answer: ExecutorAnswer;
      if (tool === "execute") {
        const first = (body.results as Array<Record<string, unknown>> | undefined)?.[0] ?? {};
        answer = first.success === true ? { result: first } : fromCompositeError(first.error);
      } else if (result.isError === true) {
        answer = fromCompositeError(body.error);
      } else {
        answer = { result: body };
      }
      return [{
        route: `${tool} ${composite.name}`,
        answer,
        signal: { isError: result.isError === true },
        refusesAs: "unknown_operation",
        raw: resultText(result),
      }];
    },
  };
}

/** Where the composite tools' input schemas name the operations they take. */
interface CompositeProperties {
  steps?: { items?: { properties?: { op?: { enum?: string[] } } } };
  operations?: { items?: { properties?: { op?: { enum?: string[] } } } };
  action?: { enum?: string[] };
}

/**
 * Composite errors carry an operation's own failure as an error object (its
 * raised kind, `dispatched: true`, the kind also in `details.kind`); undo that.
 */
function fromCompositeError(error: unknown): ExecutorAnswer {
  const shape = (error ?? {}) as ErrorShape;
  const own = shape.kind === "operation_error" ||
    (shape.dispatched === true && shape.details?.kind === shape.kind);
  if (own) {
    return {
      operation_error: { kind: shape.kind, message: shape.message, details: shape.details },
    };
  }
  return { error: shape };
}

/** The scopes an HTTP caller asks for: what it wants of what `serve` grants. */
export function httpScopes(wanted: readonly string[]): string[] {
  return wanted.filter((scope) => SERVE_SCOPES.includes(scope));
}

/**
 * `GET /api/ops` lists; `POST /api/ops/<id>` runs, and so does the route an
 * operation has of its own (`/api/query` for exec_query).
 */
export function httpOpsProbe(baseUrl: string, scopes: readonly string[]): SurfaceProbe {
  const headers = { "content-type": "application/json", "x-vantage-scopes": scopes.join(",") };
  const post = async (path: string, args: Record<string, unknown>) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(args),
    });
    const raw = await response.text();
    return { status: response.status, raw, body: JSON.parse(raw) };
  };
  return {
    name: "http /api/ops",
    reaches: () => true,
    async listings() {
      const response = await fetch(`${baseUrl}/api/ops`, { headers });
      const body = await response.json();
      if (response.status !== 200) throw new Error(`GET /api/ops: ${JSON.stringify(body)}`);
      return {
        "GET /api/ops": (body.operations as Array<{ operation_id: string }>).map((op) =>
          op.operation_id
        ),
      };
    },
    async lookups(operation) {
      const url = `${baseUrl}/api/ops?q=${encodeURIComponent(operation.title)}`;
      const body = await (await fetch(url, { headers })).json();
      const listed = (body.operations ?? []) as Array<{ operation_id: string }>;
      return { "GET /api/ops?q=": listed.some((op) => op.operation_id === operation.id) };
    },
    async run(operation, args) {
      const outcomes: Outcome[] = [];
      const ops = await post(`/api/ops/${operation.id}`, args);
      outcomes.push({
        route: `POST /api/ops/${operation.id}`,
        answer: ops.body,
        signal: { status: ops.status },
        refusesAs: "forbidden",
        raw: ops.raw,
      });
      const own = HTTP_ROUTES[operation.id];
      if (own !== undefined) {
        const direct = await post(own, args);
        outcomes.push({
          route: `POST ${own}`,
          // The route answers with the result itself, or with {error}.
          answer: direct.status === 200 ? { result: direct.body } : direct.body,
          signal: { status: direct.status },
          refusesAs: "forbidden",
          raw: direct.raw,
        });
      }
      return outcomes;
    },
  };
}

/** Operations that have an HTTP route of their own besides `/api/ops/<id>`. */
export const HTTP_ROUTES: Readonly<Record<string, string>> = { "agent.exec_query": "/api/query" };

/** `vantage ops --json` lists; `vantage call <id> '<json>' --json` runs. */
export function cliProbe(
  scopes: readonly string[],
  env: Record<string, string>,
  flags: string[],
): SurfaceProbe {
  const scopeFlag = ["--scopes", scopes.join(",")];
  return {
    name: "cli",
    reaches: () => true,
    async listings() {
      const run = await runVantage(["ops", "--json", ...scopeFlag], { env, flags });
      if (run.code !== 0) throw new Error(`vantage ops: exit ${run.code}: ${run.stderr}`);
      const body = JSON.parse(run.stdout) as { results: Array<{ operation_id: string }> };
      return { "vantage ops": body.results.map((r) => r.operation_id) };
    },
    // Each lookup would be another process; the listing already shows what the CLI caller sees.
    lookups: () => Promise.resolve({}),
    async run(operation, args) {
      const run = await runVantage(
        ["call", operation.id, JSON.stringify(args), "--json", ...scopeFlag],
        { env, flags },
      );
      let answer: ExecutorAnswer;
      try {
        answer = JSON.parse(run.stdout);
      } catch {
        answer = { error: { message: `not JSON: ${run.stdout} ${run.stderr}` } };
      }
      return [{
        route: `vantage call ${operation.id}`,
        answer,
        signal: { exitCode: run.code },
        refusesAs: "forbidden",
        raw: run.stdout + run.stderr,
      }];
    },
  };
}
