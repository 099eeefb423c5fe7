/**
 * `vantage mcp-serve`: the catalog over MCP on stdio. Stdout carries only
 * JSON-RPC frames; logs go to stderr. `initialize` is answered before the
 * catalog loads, and the process ends when stdin closes.
 *
 * @module
 */
import process from "node:process";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { resolvePaths } from "../core/config.ts";
import { createLogger } from "../core/log.ts";
import { VERSION } from "../core/version.ts";
import { createMcpServer } from "../mcp/server.ts";
import { parseSurfaceName, type SurfaceName } from "../mcp/surface.ts";
import { callerFromFlags } from "./caller.ts";
import { type Command, parseFlags } from "./command.ts";

/** The `mcp-serve` command. */
export const command: Command = {
  name: "mcp-serve",
  summary: "Serve the operation catalog over MCP on stdio",
  usage: `Usage: vantage mcp-serve [options]

Serves Vantage's operations to an agent over MCP (JSON-RPC on stdin/stdout).
Logs go to stderr. Exits when stdin closes.

Options:
  --surface NAME   dex (default: search + execute), composite (query, execute,
                   session), or full (one tool per operation)
  --scopes LIST    Scopes granted to the agent (comma-separated; default: all
                   local scopes: dex:read, agent:read, sql:read, docs:read,
                   docs:write, session:write)
  -h, --help       Show this help

Environment: VANTAGE_HOME (data home), VANTAGE_MCP_CALLER (the calling agent),
VANTAGE_PROMPTS (folder of PROMPT-*.md templates).`,
  async run(args) {
    const { values } = parseFlags("mcp-serve", args, {
      surface: { type: "string" },
      scopes: { type: "string" },
    });
    // Flags are checked before anything starts, so a bad one never half-starts a server.
    const surfaceName: SurfaceName = parseSurfaceName(
      typeof values.surface === "string" ? values.surface : "dex",
    );
    const caller = callerFromFlags(values.scopes);
    const paths = resolvePaths();
    const log = createLogger("mcp-serve");
    let closeServices = (): void => {};

    const server = createMcpServer({
      version: VERSION,
      promptsDir: paths.prompts,
      surface: async () => {
        // Loaded only once the client has been answered (deno.json's lazy-dynamic-imports keeps
        // Deno from loading them with this module, see registry.ts).
        const [
          { builtinCatalog },
          { buildSurface },
          { vantageServices },
          { VANTAGE_NAMING },
          { warmSearchFor },
          { warmingSurface },
        ] = await Promise.all([
          import("../ops/builtin.ts"),
          import("../mcp/surfaces.ts"),
          import("../ops/runtime.ts"),
          import("../mcp/operation_names.ts"),
          import("../ops/search_warm_up.ts"),
          import("../mcp/warming_surface.ts"),
        ]);
        const services = vantageServices(paths);
        let closing = false;
        closeServices = () => {
          closing = true;
          services.close();
        };
        const catalog = builtinCatalog({ naming: VANTAGE_NAMING });
        // The first search's one-time costs are paid while the client reads the tool list and its
        // model writes the first turn, not on the agent's first call.
        const warm = () =>
          warmSearchFor(catalog, services, caller).then(
            (warmed) => warmed !== undefined && log.debug("search warmed", { ...warmed }),
            (error) => {
              if (!closing) log.debug("search warm-up failed", { error: String(error) });
            },
          );
        return warmingSurface(
          buildSurface(surfaceName, catalog, caller, { services }),
          warm,
          () => closing,
        );
      },
    });

    const closed = new Promise<void>((resolve) => {
      process.stdin.once("end", () => resolve());
      process.stdin.once("close", () => resolve());
      server.onclose = () => resolve();
    });
    await server.connect(new StdioServerTransport());
    log.debug("ready", { surface: surfaceName, scopes: caller.scopes });
    await closed;
    await server.close().catch(() => {});
    closeServices();
    return 0;
  },
};
