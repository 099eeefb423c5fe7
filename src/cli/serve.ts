/**
 * `vantage serve`. The long-running server (hook endpoint, transcript
 * tailers, sensors, dashboard) is built in later work; until then the
 * command says so and starts nothing.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags } from "./command.ts";

/** The `serve` command. */
export const command: Command = {
  name: "serve",
  summary: "Run the server: hook endpoint, transcript tailing, sensors, dashboard",
  usage: `Usage: vantage serve [--host H] [--port P]

Runs Vantage's server on http://127.0.0.1:14300 (VANTAGE_PORT).
Not available in this version yet: use 'vantage mcp-serve' for the MCP server.`,
  run(args) {
    parseFlags("serve", args, { host: { type: "string" }, port: { type: "string" } });
    throw new VantageError(
      "unavailable",
      "the HTTP server is not part of this version yet; nothing was started ('vantage mcp-serve' serves MCP on stdio)",
    );
  },
};
