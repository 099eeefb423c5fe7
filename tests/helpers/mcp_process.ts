/**
 * `vantage mcp-serve` as a plain child process spoken to in newline-delimited
 * JSON-RPC, for tests that need its pid (to kill it with SIGKILL in the
 * middle of a write) rather than the SDK client's comfort.
 */
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import type { AgentHome } from "./agent_home.ts";
import { MAIN } from "./mcp_stdio.ts";

/** A running `mcp-serve` child. */
export interface McpProcess {
  /** Its pid. */
  pid: number;
  /** Calls one tool; resolves with the parsed JSON text of its result, or rejects. */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Everything it logged. */
  stderr(): string;
  /** Closes stdin and waits for the exit. */
  close(): Promise<void>;
  /** Kills it with `signal` and waits for the exit. */
  kill(signal: Deno.Signal): Promise<void>;
}

/** Starts `mcp-serve --surface full` on `home`'s data home and completes `initialize`. */
export async function startMcpProcess(home: AgentHome, roots: string[]): Promise<McpProcess> {
  const flags = permissionFlags(
    "mcp-serve",
    { ...resolvePaths(home.dataHome), userHome: home.home },
    roots,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "mcp-serve", "--surface", "full"],
    env: { ...home.env, VANTAGE_ROOTS: roots.join(":") },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const pending = new Map<number, (message: Record<string, unknown>) => void>();
  let log = "";
  let exited = false;
  const failAll = (why: string) => {
    for (const resolve of pending.values()) resolve({ error: { message: why } });
    pending.clear();
  };
  (async () => {
    for await (const chunk of child.stderr) log += new TextDecoder().decode(chunk);
  })().catch(() => {});
  (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line === "") continue;
        const message = JSON.parse(line) as Record<string, unknown>;
        const id = message.id as number | undefined;
        if (id !== undefined && pending.has(id)) {
          pending.get(id)!(message);
          pending.delete(id);
        }
      }
    }
  })().catch(() => {}).finally(() => {
    exited = true;
    failAll("mcp-serve exited");
  });
  let nextId = 1;
  const request = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
    if (exited) throw new Error("mcp-serve has exited");
    const id = nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => pending.set(id, resolve));
    await writer.write(
      encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"),
    );
    const message = await answer;
    if (message.error !== undefined) {
      throw new Error(`${method} failed: ${JSON.stringify(message.error)}`);
    }
    return message.result as Record<string, unknown>;
  };
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "vantage-stress", version: "1.0.0" },
  });
  await writer.write(
    encoder.encode(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"),
  );
  return {
    pid: child.pid,
    stderr: () => log,
    async callTool(name, args) {
      const result = await request("tools/call", { name, arguments: args });
      const content = result.content as Array<{ type: string; text: string }>;
      if (result.isError === true) throw new Error(`${name}: ${content?.[0]?.text}`);
      return JSON.parse(content[0].text);
    },
    async close() {
      await writer.close().catch(() => {});
      await child.status;
    },
    async kill(signal) {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
      await writer.close().catch(() => {});
      await child.status;
    },
  };
}
