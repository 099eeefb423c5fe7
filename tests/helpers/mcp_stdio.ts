/**
 * Spawns `vantage mcp-serve` as a real child process under the shipped
 * permission set and connects the MCP SDK's own stdio client to it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";

/** Path of the CLI entry point. */
export const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

/** A connected client and what it needs to be torn down. */
export interface StdioSession {
  client: Client;
  home: string;
  stderr: () => string;
  close(): Promise<void>;
}

/** Starts mcp-serve with `args` in a fresh data home and connects a client. */
export async function connectStdio(
  args: string[] = [],
  options: { env?: Record<string, string>; home?: string; cwd?: string } = {},
): Promise<StdioSession> {
  const home = options.home ?? await Deno.makeTempDir({ prefix: "vantage-mcp-" });
  const env = { ...Deno.env.toObject(), VANTAGE_HOME: home, ...options.env };
  // The document roots the server may read and write, exactly as a user would grant them.
  const roots = (options.env?.VANTAGE_ROOTS ?? "").split(delimiter).filter((root) => root !== "");
  const flags = permissionFlags("mcp-serve", resolvePaths(home), roots);
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", ...flags, MAIN, "mcp-serve", ...args],
    env,
    stderr: "pipe",
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new Client({ name: "vantage-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    home,
    stderr: () => stderr,
    async close() {
      await client.close();
      if (options.home === undefined) await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** Parses the JSON text content of a tool result. */
export function textJson(result: unknown): Record<string, unknown> {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return JSON.parse(content[0].text);
}
