/**
 * The command table. Each command module is imported only when it runs, so
 * `vantage mcp-serve` pays nothing for the dashboard or the installer.
 *
 * @module
 */
import type { Command } from "./command.ts";

/**
 * Imports one command module. The specifier is computed on purpose: Deno
 * loads every literal `import("…")` target up front when a program starts,
 * which would make the hook (run on every agent tool call) load the whole
 * catalog, the MCP SDK and zod before doing anything.
 */
async function loadCommand(module: string): Promise<Command> {
  const loaded = await import(new URL(`./${module}.ts`, import.meta.url).href) as {
    command: Command;
  };
  return loaded.command;
}

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
    load: () => loadCommand("serve"),
  },
  {
    name: "mcp-serve",
    summary: "Serve the operation catalog over MCP on stdio",
    load: () => loadCommand("mcp_serve"),
  },
  {
    name: "install",
    summary: "Register Vantage with an agent (MCP server, hooks, skill)",
    load: () => loadCommand("install"),
  },
  {
    name: "uninstall",
    summary: "Remove Vantage from an agent (MCP server, hooks, skill)",
    load: () => loadCommand("uninstall"),
  },
  {
    name: "doctor",
    summary:
      "Check each agent's Vantage setup and the server (--store: the store); say what to fix",
    load: () => loadCommand("doctor"),
  },
  {
    name: "repair",
    summary: "Rebuild what can be rebuilt in a damaged store; say what cannot",
    load: () => loadCommand("repair"),
  },
  {
    name: "hook",
    summary: "Receive one agent hook payload on stdin (called by the agent)",
    load: () => loadCommand("hook"),
  },
  {
    name: "ingest",
    summary: "Import existing agent session history (backfill)",
    load: () => loadCommand("ingest"),
  },
  {
    name: "pricing",
    summary: "Print the model price table, its sources and the override file in force",
    load: () => loadCommand("pricing"),
  },
  {
    name: "build",
    summary: "Run a build or test command and record its result",
    load: () => loadCommand("build"),
  },
  {
    name: "project",
    summary: "Index a project's structure now: vantage project refresh [DIR]",
    load: () => loadCommand("project"),
  },
  {
    name: "call",
    summary: "Run one operation: vantage call <operation_id> '<json>'",
    load: () => loadCommand("call"),
  },
  {
    name: "ops",
    summary: "List or search the operations you may run",
    load: () => loadCommand("ops"),
  },
  {
    name: "version",
    summary: "Print the version",
    load: () => loadCommand("version"),
  },
  {
    name: "add",
    summary: "Store files, folders or stdin in document memory",
    load: () => loadCommand("add"),
  },
  {
    name: "search",
    summary: "Search stored documents (hybrid, keyword, semantic, fuzzy)",
    load: () => loadCommand("search"),
  },
  {
    name: "grep",
    summary: "Search the text of stored documents for a regular expression",
    load: () => loadCommand("grep"),
  },
  {
    name: "get",
    summary: "Print, save or describe one stored document",
    load: () => loadCommand("get"),
  },
  {
    name: "ls",
    summary: "List stored documents",
    load: () => loadCommand("ls"),
  },
  {
    name: "restore",
    summary: "Restore a collection or snapshot to a folder",
    load: () => loadCommand("restore"),
  },
  {
    name: "rm",
    summary: "Delete stored documents by name, glob or hash",
    load: () => loadCommand("rm"),
  },
  {
    name: "query-worker",
    summary: "Run read-only SQL queries for another Vantage process (internal)",
    load: () => loadCommand("query_worker"),
    hidden: true,
  },
];
