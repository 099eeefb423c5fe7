/**
 * The command table. Each command module is imported only when it runs, so
 * the hook (run on every agent tool call) loads almost nothing and
 * `vantage mcp-serve` pays nothing for the dashboard or the installer.
 *
 * The imports are literal, so `deno check` follows them and `deno compile`
 * embeds every command. Deno would still fetch and parse every module they
 * reach before `main.ts` runs, were it not for `"unstable":
 * ["lazy-dynamic-imports"]` in deno.json: with it a literal `import()` loads
 * its module only when called (measured: `vantage version` 52 ms, against
 * 92 ms with the whole graph loaded up front), and like any import loaded at
 * run time it needs read access to the module (see `programRoot`).
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
  /** Left out of the command list: Vantage runs it itself. */
  hidden?: boolean;
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
    name: "uninstall",
    summary: "Remove Vantage from an agent (MCP server, hooks, skill)",
    load: async () => (await import("./uninstall.ts")).command,
  },
  {
    name: "doctor",
    summary:
      "Check each agent's Vantage setup and the server (--store: the store); say what to fix",
    load: async () => (await import("./doctor.ts")).command,
  },
  {
    name: "repair",
    summary: "Rebuild what can be rebuilt in a damaged store; say what cannot",
    load: async () => (await import("./repair.ts")).command,
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
    name: "pricing",
    summary: "Print the model price table, its sources and the override file in force",
    load: async () => (await import("./pricing.ts")).command,
  },
  {
    name: "build",
    summary: "Run a build or test command and record its result",
    load: async () => (await import("./build.ts")).command,
  },
  {
    name: "project",
    summary: "Index a project's structure now: vantage project refresh [DIR]",
    load: async () => (await import("./project.ts")).command,
  },
  {
    name: "team",
    summary: "Manage a team server's people: add-user NAME [--admin], revoke NAME, list",
    load: async () => (await import("./team.ts")).command,
  },
  {
    name: "sync",
    summary: "Push this data home's history and documents to a team server (--to URL)",
    load: async () => (await import("./sync.ts")).command,
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
  {
    name: "add",
    summary: "Store files, folders or stdin in document memory",
    load: async () => (await import("./add.ts")).command,
  },
  {
    name: "search",
    summary: "Search stored documents (hybrid, keyword, semantic, fuzzy)",
    load: async () => (await import("./search.ts")).command,
  },
  {
    name: "grep",
    summary: "Search the text of stored documents for a regular expression",
    load: async () => (await import("./grep.ts")).command,
  },
  {
    name: "get",
    summary: "Print, save or describe one stored document",
    load: async () => (await import("./get.ts")).command,
  },
  {
    name: "ls",
    summary: "List stored documents",
    load: async () => (await import("./ls.ts")).command,
  },
  {
    name: "restore",
    summary: "Restore a collection or snapshot to a folder",
    load: async () => (await import("./restore.ts")).command,
  },
  {
    name: "rm",
    summary: "Delete stored documents by name, glob or hash",
    load: async () => (await import("./rm.ts")).command,
  },
  {
    name: "query-worker",
    summary: "Run read-only SQL queries for another Vantage process (internal)",
    load: async () => (await import("./query_worker.ts")).command,
    hidden: true,
  },
];
