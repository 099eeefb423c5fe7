/**
 * The command table. Each command module is imported only when it runs, so
 * `vantage mcp-serve` pays nothing for the dashboard or the installer.
 *
 * @module
 */
import type { Command } from "./command.ts";

/** A command's name, summary and loader. */
export interface CommandEntry {
  /** The word after `vantage`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Imports the command module. */
  load(): Promise<Command>;
}

/** Every command, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "serve",
    summary: "Run the server: hook endpoint, transcript tailing, sensors, dashboard",
    load: async () => (await import("./serve.ts")).command,
  },
  {
    name: "mcp-serve",
    summary: "Serve the operation catalog over MCP on stdio",
    load: async () => (await import("./mcp_serve.ts")).command,
  },
  {
    name: "install",
    summary: "Register Vantage with an agent (MCP server, hooks, skill)",
    load: async () => (await import("./install.ts")).command,
  },
  {
    name: "hook",
    summary: "Receive one agent hook payload on stdin (called by the agent)",
    load: async () => (await import("./hook.ts")).command,
  },
  {
    name: "ingest",
    summary: "Import existing agent session history (backfill)",
    load: async () => (await import("./ingest.ts")).command,
  },
  {
    name: "call",
    summary: "Run one operation: vantage call <operation_id> '<json>'",
    load: async () => (await import("./call.ts")).command,
  },
  {
    name: "ops",
    summary: "List or search the operations you may run",
    load: async () => (await import("./ops.ts")).command,
  },
  {
    name: "version",
    summary: "Print the version",
    load: async () => (await import("./version.ts")).command,
  },
];
