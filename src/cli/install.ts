/**
 * `vantage install`. Registering Vantage with each agent is built in later
 * work; until then the command says so and changes nothing.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags } from "./command.ts";

/** The `install` command. */
export const command: Command = {
  name: "install",
  summary: "Register Vantage with an agent (MCP server, hooks, skill)",
  usage: `Usage: vantage install --adapter claude-code|codex|copilot-cli|openclaw

Registers Vantage's MCP server and hooks with an agent.
Not available in this version yet: nothing is written.`,
  run(args) {
    parseFlags("install", args, {
      adapter: { type: "string" },
      project: { type: "string" },
      surface: { type: "string" },
      scopes: { type: "string" },
      "dry-run": { type: "boolean" },
      "no-hooks": { type: "boolean" },
      autostart: { type: "boolean" },
    });
    throw new VantageError(
      "unavailable",
      "installing into agents is not part of this version yet; no file was changed",
    );
  },
};
