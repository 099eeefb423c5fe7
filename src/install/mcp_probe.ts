/**
 * Starts a registered MCP server the way an agent would and checks that it
 * answers `initialize`, within a time budget.
 *
 * @module
 */
import { VERSION } from "../core/version.ts";
import type { ServerEntry } from "./agent.ts";

/** What the probe saw. */
export interface ProbeResult {
  /** Whether the server answered `initialize` with a result. */
  ok: boolean;
  /** One line: the server's name and version, or what went wrong. */
  detail: string;
  /** Milliseconds from spawn to answer (or to giving up). */
  elapsedMs: number;
}

/**
 * Spawns `entry` with the current environment plus its own, sends one
 * `initialize` request on stdin, and waits for the answer on stdout for at
 * most `timeoutMs` (default 10 s). The server is stopped afterwards.
 *
 * @example
 * ```ts
 * import { probeMcpServer } from "./mcp_probe.ts";
 * const result = await probeMcpServer({ command: "vantage", args: ["mcp-serve"], env: {} });
 * result.ok; // true when it answered
 * ```
 */
export async function probeMcpServer(
  entry: ServerEntry,
  options: { timeoutMs?: number; cwd?: string } = {},
): Promise<ProbeResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(entry.command, {
      args: entry.args,
      env: { ...Deno.env.toObject(), ...entry.env },
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    return {
      ok: false,
      detail: `could not start ${entry.command}: ${message(error)}`,
      elapsedMs: 0,
    };
  }
  const stderr = collect(child.stderr);
  const request = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "vantage-doctor", version: VERSION },
    },
  };
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n")).catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const answer = readAnswer(child.stdout);
  let result: ProbeResult;
  try {
    const outcome = await Promise.race([answer, timeout]);
    if (outcome === "timeout") {
      result = {
        ok: false,
        detail: `no answer to initialize within ${timeoutMs / 1000} s${tail(await settle(stderr))}`,
        elapsedMs: elapsed(),
      };
    } else if (outcome.kind === "result") {
      result = { ok: true, detail: outcome.detail, elapsedMs: elapsed() };
    } else {
      result = {
        ok: false,
        detail: `${outcome.detail}${tail(await settle(stderr))}`,
        elapsedMs: elapsed(),
      };
    }
  } finally {
    clearTimeout(timer);
    await writer.close().catch(() => {});
    // A server exits when stdin closes; one that does not is stopped.
    const exited = await within(child.status.then(() => true), 2_000, false);
    if (!exited) {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await child.status.catch(() => {});
    }
    await stderr.catch(() => "");
  }
  return result;
}

type Answer = { kind: "result" | "error"; detail: string };

async function readAnswer(stream: ReadableStream<Uint8Array>): Promise<Answer> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { kind: "error", detail: "the server exited without answering initialize" };
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (line === "") continue;
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(line);
        } catch {
          return {
            kind: "error",
            detail: `the server printed a non-JSON line: ${line.slice(0, 120)}`,
          };
        }
        if (message.id !== 1) continue;
        if (message.result !== undefined) {
          const info = (message.result as { serverInfo?: { name?: string; version?: string } })
            .serverInfo;
          return {
            kind: "result",
            detail: `answered initialize as ${info?.name ?? "?"} ${info?.version ?? ""}`.trim(),
          };
        }
        return { kind: "error", detail: `initialize failed: ${JSON.stringify(message.error)}` };
      }
    }
  } finally {
    reader.releaseLock();
    await stream.cancel().catch(() => {});
  }
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > 8_000) text = text.slice(-4_000);
  }
  return text;
}

async function settle(stderr: Promise<string>): Promise<string> {
  return await within(stderr.catch(() => ""), 500, "");
}

function tail(stderr: string): string {
  const lines = stderr.trim().split("\n").filter((line) => line.trim() !== "");
  return lines.length === 0 ? "" : `; stderr: ${lines.slice(-3).join(" | ").slice(0, 400)}`;
}

/** `promise`'s value, or `fallback` after `ms`, without leaving a timer behind. */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((resolve) => {
        timer = setTimeout(() => resolve(fallback), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
