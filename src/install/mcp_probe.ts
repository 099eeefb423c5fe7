/**
 * Starts a registered MCP server the way an agent would and checks that it
 * answers `initialize` (and, when asked, `tools/list`, which loads the whole
 * catalog), within a time budget.
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
  /** Milliseconds from spawn to the `initialize` answer (or to giving up). */
  elapsedMs: number;
  /** With `listTools`: milliseconds from spawn to the `tools/list` answer. */
  listedMs?: number;
  /** With `listTools`: how many tools it listed. */
  tools?: number;
  /** The last lines the server wrote on stderr (trimmed; "" when none). */
  stderr: string;
}

/** How {@linkcode probeMcpServer} probes. */
export interface ProbeOptions {
  /** Time budget for the answers (default 10 s). */
  timeoutMs?: number;
  /** Working folder of the server. */
  cwd?: string;
  /** Also ask for `tools/list` after `initialize` (the catalog loads then). */
  listTools?: boolean;
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
  options: ProbeOptions = {},
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
      stderr: "",
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
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n")).catch(() => {});
  await send(request);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const messages = new Messages(child.stdout);
  let result: ProbeResult;
  try {
    const outcome = await Promise.race([messages.answer(1, initialized), timeout]);
    if (outcome === "timeout") {
      const lines = await settle(stderr);
      result = {
        ok: false,
        detail: `no answer to initialize within ${timeoutMs / 1000} s${tail(lines)}`,
        elapsedMs: elapsed(),
        stderr: lastLines(lines),
      };
    } else if (outcome.kind === "result") {
      result = { ok: true, detail: outcome.detail, elapsedMs: elapsed(), stderr: "" };
      if (options.listTools) {
        await send({ jsonrpc: "2.0", method: "notifications/initialized" });
        await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        const listed = await Promise.race([messages.answer(2, listedTools), timeout]);
        if (listed === "timeout" || listed.kind === "error") {
          const lines = await settle(stderr);
          result = {
            ok: false,
            detail: (listed === "timeout"
              ? `answered initialize, then no answer to tools/list within ${timeoutMs / 1000} s`
              : listed.detail) + tail(lines),
            elapsedMs: result.elapsedMs,
            stderr: lastLines(lines),
          };
        } else {
          result.listedMs = elapsed();
          result.tools = listed.count;
        }
      }
    } else {
      const lines = await settle(stderr);
      result = {
        ok: false,
        detail: `${outcome.detail}${tail(lines)}`,
        elapsedMs: elapsed(),
        stderr: lastLines(lines),
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
    messages.close();
  }
  if (result.ok) result.stderr = lastLines(await stderr.catch(() => ""));
  return result;
}

type Answer = { kind: "result" | "error"; detail: string; count?: number };

/** The `initialize` answer, in one line. */
function initialized(message: Record<string, unknown>): Answer {
  if (message.result === undefined) {
    return { kind: "error", detail: `initialize failed: ${JSON.stringify(message.error)}` };
  }
  const info = (message.result as { serverInfo?: { name?: string; version?: string } })
    .serverInfo;
  return {
    kind: "result",
    detail: `answered initialize as ${info?.name ?? "?"} ${info?.version ?? ""}`.trim(),
  };
}

/** The `tools/list` answer: how many tools. */
function listedTools(message: Record<string, unknown>): Answer {
  const tools = (message.result as { tools?: unknown[] } | undefined)?.tools;
  if (!Array.isArray(tools)) {
    return { kind: "error", detail: `tools/list failed: ${JSON.stringify(message.error)}` };
  }
  return { kind: "result", detail: `listed ${tools.length} tools`, count: tools.length };
}

/** JSON-RPC lines read from a server's stdout. */
class Messages {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #stream: ReadableStream<Uint8Array>;
  #buffer = "";
  #decoder = new TextDecoder();

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#stream = stream;
    this.#reader = stream.getReader();
  }

  /** Reads until the answer to request `id`, which `read` turns into a result. */
  async answer(id: number, read: (message: Record<string, unknown>) => Answer): Promise<Answer> {
    for (;;) {
      let newline = this.#buffer.indexOf("\n");
      while (newline !== -1) {
        const line = this.#buffer.slice(0, newline).trim();
        this.#buffer = this.#buffer.slice(newline + 1);
        newline = this.#buffer.indexOf("\n");
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
        if (message.id === id) return read(message);
      }
      const { value, done } = await this.#reader.read();
      if (done) {
        return {
          kind: "error",
          detail: id === 1
            ? "the server exited without answering initialize"
            : "the server exited without answering tools/list",
        };
      }
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Stops reading. */
  close(): void {
    try {
      this.#reader.releaseLock();
    } catch {
      // A read still pending on a stream that never ended: cancelling below ends it.
    }
    this.#stream.cancel().catch(() => {});
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
  const lines = lastLines(stderr);
  return lines === "" ? "" : `; stderr: ${lines.split("\n").join(" | ").slice(0, 400)}`;
}

/** The last three non-empty lines of a server's stderr, without terminal colours. */
function lastLines(stderr: string): string {
  // deno-lint-ignore no-control-regex
  const plain = stderr.replace(/\x1b\[[0-9;]*m/g, "");
  return plain.trim().split("\n").filter((line) => line.trim() !== "").slice(-3).join("\n");
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
