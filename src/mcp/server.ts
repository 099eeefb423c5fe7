/**
 * The MCP server over the catalog, transport-agnostic. It is built on the
 * SDK's low-level `Server` so that `initialize` can be answered before the
 * catalog is even loaded: the surface arrives as a promise that the tool
 * handlers await.
 *
 * @module
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { VantageError } from "../core/errors.ts";
import { getPrompt, listPrompts } from "./prompts.ts";
import type { McpSurface } from "./surface.ts";

/** Options for {@linkcode createMcpServer}. */
export interface McpServerOptions {
  /** Loads the surface to serve; called once, on first use, so start-up never waits for it. */
  surface: () => McpSurface | Promise<McpSurface>;
  /** Folder of `PROMPT-*.md` templates. */
  promptsDir: string;
  /** Version reported in `initialize`. */
  version: string;
}

const INSTRUCTIONS =
  "Vantage gives you memory and awareness: what you and other coding agents did in this project, anomalies (loops, repeated failures, stale views), build state, outside file changes, and stored documents. Use `search` to find an operation and `execute` to run it.";

/**
 * An MCP transport from the SDK (stdio, Streamable HTTP, in-memory),
 * described structurally so hosts need not import the SDK's types.
 */
export interface McpTransport {
  /** Starts the transport. */
  start(): Promise<void>;
  /** Sends one JSON-RPC message. */
  send(message: Record<string, unknown>, options?: unknown): Promise<void>;
  /** Closes the transport. */
  close(): Promise<void>;
}

/** The server as a host sees it: connect it to a transport, close it when done. */
export interface McpServerHandle {
  /** Starts serving over `transport`. */
  connect(transport: McpTransport): Promise<void>;
  /** Stops serving and closes the transport. */
  close(): Promise<void>;
  /** Called once the transport has closed. */
  onclose?: () => void;
}

/**
 * Creates an MCP server for one surface; connect it to any SDK transport.
 *
 * @example
 * ```ts ignore
 * const server = createMcpServer({ surface, promptsDir, version: "0.1.0" });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: McpServerOptions): McpServerHandle {
  const server = new Server(
    { name: "vantage", version: options.version },
    { capabilities: { tools: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  let loaded: Promise<McpSurface> | undefined;
  const surface = (): Promise<McpSurface> => loaded ??= Promise.resolve().then(options.surface);

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = (await surface()).tools();
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    return await (await surface()).call(name, args as Record<string, unknown> | undefined);
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => {
    try {
      return { prompts: listPrompts(options.promptsDir) };
    } catch (error) {
      throw asMcpError(error);
    }
  });

  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    try {
      return getPrompt(options.promptsDir, request.params.name, request.params.arguments ?? {});
    } catch (error) {
      throw asMcpError(error);
    }
  });

  // Load the catalog as soon as the handshake is done, while the client is still busy with it.
  server.oninitialized = () => {
    surface().catch(() => {});
  };
  return {
    connect: (transport) =>
      server.connect(transport as unknown as Parameters<Server["connect"]>[0]),
    close: () => server.close(),
    set onclose(handler: (() => void) | undefined) {
      server.onclose = handler;
    },
    get onclose() {
      return server.onclose;
    },
  };
}

function asMcpError(error: unknown): unknown {
  if (!(error instanceof VantageError)) return error;
  const code = error.kind === "invalid_arguments" || error.kind === "not_found"
    ? ErrorCode.InvalidParams
    : ErrorCode.InternalError;
  return new McpError(code, error.message);
}
