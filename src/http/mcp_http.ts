/**
 * `/mcp`: the catalog over MCP Streamable HTTP. Stateless: every POST gets
 * a fresh server and transport bound to that request's caller and surface,
 * answered as plain JSON, so nothing outlives the request and a shutdown
 * never waits on a forgotten stream. A GET (the optional server-to-client
 * stream) and a DELETE (session end) have nothing to offer without
 * sessions and are answered 405, as the specification allows.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createMcpServer } from "../mcp/server.ts";
import { buildSurface } from "../mcp/surfaces.ts";
import { SURFACE_NAMES, type SurfaceName } from "../mcp/surface.ts";
import { excerpt } from "../core/limits.ts";
import { VERSION } from "../core/version.ts";
import type { Caller } from "../ops/operation.ts";
import type { OpsAccess } from "./context.ts";
import { availableOps, OPS_BODY_LIMIT, opsCaller, type OpsContext } from "./ops_routes.ts";
import { HttpError, readBodyText } from "./responses.ts";
import type { SubRouter } from "./router.ts";

/** What `/mcp` serves. */
export interface McpHttpContext extends OpsContext {
  /** Folder of `PROMPT-*.md` templates. */
  promptsDir: string;
  /** Version reported in `initialize`. */
  version: string;
  /** Largest request body, bytes. */
  bodyLimit: number;
}

/**
 * The `/mcp` sub-router over `ops`: any method reaches {@linkcode handleMcp},
 * which answers what is not a POST with its own 405.
 *
 * @example
 * ```ts ignore
 * routeTable({ routers: [mcpRouter({ catalog, services })] });
 * ```
 */
export function mcpRouter(ops: OpsAccess | undefined): SubRouter {
  return {
    prefix: "/mcp",
    routes: [{
      path: "/mcp",
      handle: async (context) => {
        const access = availableOps(ops);
        return await handleMcp(
          {
            catalog: access.catalog,
            services: access.services,
            promptsDir: access.promptsDir ?? "",
            version: VERSION,
            bodyLimit: access.bodyLimit ?? OPS_BODY_LIMIT,
          },
          context.request,
          opsCaller(access, context),
          surfaceOf(context.url),
        );
      },
    }],
  };
}

/** The surface named by `?surface=` (default `dex`); 400 naming the choices for an unknown name. */
export function surfaceOf(url: URL): SurfaceName {
  const name = url.searchParams.get("surface");
  if (name === null || name === "") return "dex";
  if ((SURFACE_NAMES as readonly string[]).includes(name)) return name as SurfaceName;
  throw new HttpError(
    "invalid_arguments",
    `?surface=${excerpt(name)} is not a surface; choose one of: ${SURFACE_NAMES.join(", ")}`,
  );
}

/** Handles one `/mcp` request for `caller`. */
export async function handleMcp(
  context: McpHttpContext,
  request: Request,
  caller: Caller,
  surface: SurfaceName,
): Promise<Response> {
  if (request.method !== "POST") {
    throw new HttpError(
      "invalid_arguments",
      `this MCP endpoint is stateless: use POST for JSON-RPC messages (got ${request.method})`,
      405,
      { allow: "POST" },
    );
  }
  // Read under the size limit here; the transport then parses and answers JSON-RPC errors itself.
  const text = await readBodyText(request, context.bodyLimit);
  const bounded = new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: text,
  });
  const server = createMcpServer({
    surface: () => buildSurface(surface, context.catalog, caller, { services: context.services }),
    promptsDir: context.promptsDir,
    version: context.version,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(bounded);
  } finally {
    // The JSON answer is complete once handleRequest returns; nothing else will use this pair.
    await server.close().catch(() => {});
  }
}
