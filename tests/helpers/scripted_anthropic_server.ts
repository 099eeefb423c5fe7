/**
 * A local stand-in for the Anthropic Messages API that plays the model from a script, so the
 * real `claude` client can run whole sessions offline (hooks and transcripts included).
 *
 * Main-loop requests (those that carry a non-empty `tools` array) take the next turn of the
 * script; side requests (titles, summaries, quota probes: no `tools`) are answered with plain
 * text and do not advance the script. Every request body is recorded so a test can assert
 * exactly what the model was told (hook `additionalContext`, tool results, …).
 *
 * Ids are deterministic (`msg_script_001`, `req_script_001`, `toolu_script_001`) so fixtures
 * generated from a script are stable from run to run.
 *
 * @module
 */

import { type RecordedRequest as BaseRecordedRequest, recordRequest } from "./recorded_request.ts";

/** A content block the scripted model emits. */
export type ScriptBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string };

/** Usage figures reported for one scripted turn. */
export interface ScriptUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One model response of the main loop. */
export interface ScriptTurn {
  blocks: ScriptBlock[];
  /** Defaults to `tool_use` when a block is a tool use, else `end_turn`. */
  stop_reason?: "tool_use" | "end_turn" | "max_tokens";
  usage?: ScriptUsage;
}

/** A request the server received. */
export interface RecordedRequest extends BaseRecordedRequest {
  /** The `request-id` header sent back, when the request got a model answer. */
  request_id?: string;
}

/** A running scripted server. */
export interface ScriptedAnthropicServer {
  /** Base URL to put in `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Script turns not played yet. */
  remaining(): number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Options of {@link startScriptedAnthropicServer}. */
export interface ScriptedAnthropicOptions {
  /** Text of side-request answers (default `"Vantage fixture session"`). */
  sideText?: string;
  /** Model id reported in responses (default: the model named in the request). */
  model?: string;
  /**
   * Runs before main-loop turn `index` (0-based) is answered, with the request body: a test can
   * change the world between two model calls (edit a file under the agent, wait for a sensor).
   */
  beforeTurn?: (index: number, body: unknown) => void | Promise<void>;
  /**
   * Put after `msg_`, `req_` and `toolu_` in every id (default `script`/`side`, as above):
   * servers playing for several people give each person's calls ids of their own, as the
   * real API does.
   */
  idPrefix?: string;
}

const DEFAULT_USAGE: ScriptUsage = {
  input_tokens: 120,
  output_tokens: 30,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

function pad(n: number): string {
  return String(n).padStart(3, "0");
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function streamTurn(
  id: string,
  model: string,
  blocks: ScriptBlock[],
  stopReason: string,
  usage: ScriptUsage,
  nextToolId: () => string,
): string {
  const parts: string[] = [];
  parts.push(sse("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        output_tokens: 1,
      },
    },
  }));
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      parts.push(sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      }));
      parts.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      }));
    } else if (block.type === "thinking") {
      parts.push(sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      }));
      parts.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking: block.thinking },
      }));
      parts.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: "c2NyaXB0ZWQtc2lnbmF0dXJl" },
      }));
    } else {
      parts.push(sse("content_block_start", {
        type: "content_block_start",
        index,
        content_block: {
          type: "tool_use",
          id: block.id ?? nextToolId(),
          name: block.name,
          input: {},
        },
      }));
      parts.push(sse("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      }));
    }
    parts.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  parts.push(sse("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  }));
  parts.push(sse("message_stop", { type: "message_stop" }));
  return parts.join("");
}

function hasTools(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const tools = (body as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0;
}

function requestedModel(body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const model = (body as { model?: unknown }).model;
    if (typeof model === "string" && model !== "") return model;
  }
  return "claude-sonnet-4-5-20250929";
}

function wantsStream(body: unknown): boolean {
  return typeof body === "object" && body !== null &&
    (body as { stream?: unknown }).stream === true;
}

/**
 * Starts a scripted Messages API server on 127.0.0.1 (random port).
 *
 * @example
 * ```ts
 * const server = startScriptedAnthropicServer([
 *   { blocks: [{ type: "tool_use", name: "Bash", input: { command: "ls" } }] },
 *   { blocks: [{ type: "text", text: "Done." }] },
 * ]);
 * // run `claude -p …` with ANTHROPIC_BASE_URL=server.url, then:
 * await server.close();
 * ```
 */
export function startScriptedAnthropicServer(
  turns: ScriptTurn[],
  options: ScriptedAnthropicOptions = {},
): ScriptedAnthropicServer {
  const script = [...turns];
  const requests: RecordedRequest[] = [];
  let mainCount = 0;
  let sideCount = 0;
  let toolCount = 0;
  const main = options.idPrefix ?? "script";
  const side = options.idPrefix === undefined ? "side" : `${options.idPrefix}_side`;
  const nextToolId = (): string => `toolu_${main}_${pad(++toolCount)}`;

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const recorded: RecordedRequest = await recordRequest(request);
    const body = recorded.body;
    requests.push(recorded);

    if (request.method === "HEAD" || (request.method === "GET" && url.pathname === "/")) {
      return new Response(null, { status: 200 });
    }
    if (request.method === "POST" && url.pathname === "/v1/messages/count_tokens") {
      return Response.json({ input_tokens: 1000 });
    }
    if (request.method !== "POST" || url.pathname !== "/v1/messages") {
      return Response.json(
        { type: "error", error: { type: "not_found_error", message: `no route ${url.pathname}` } },
        { status: 404 },
      );
    }

    const model = options.model ?? requestedModel(body);
    let id: string;
    let requestId: string;
    let blocks: ScriptBlock[];
    let stopReason: string;
    let usage: ScriptUsage;
    if (hasTools(body)) {
      recorded.main = true;
      await options.beforeTurn?.(mainCount, body);
      mainCount++;
      id = `msg_${main}_${pad(mainCount)}`;
      requestId = `req_${main}_${pad(mainCount)}`;
      const turn = script.shift() ?? { blocks: [{ type: "text", text: "(script exhausted)" }] };
      blocks = turn.blocks;
      stopReason = turn.stop_reason ??
        (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn");
      usage = turn.usage ?? DEFAULT_USAGE;
    } else {
      sideCount++;
      id = `msg_${side}_${pad(sideCount)}`;
      requestId = `req_${side}_${pad(sideCount)}`;
      blocks = [{ type: "text", text: options.sideText ?? "Vantage fixture session" }];
      stopReason = "end_turn";
      usage = { input_tokens: 50, output_tokens: 5 };
    }
    recorded.request_id = requestId;

    if (!wantsStream(body)) {
      let toolIndex = toolCount;
      const content = blocks.map((block) => {
        if (block.type === "tool_use") {
          toolIndex++;
          return {
            type: "tool_use",
            id: block.id ?? `toolu_${main}_${pad(toolIndex)}`,
            name: block.name,
            input: block.input,
          };
        }
        if (block.type === "thinking") {
          return { type: "thinking", thinking: block.thinking, signature: "c2NyaXB0ZWQ=" };
        }
        return block;
      });
      toolCount = toolIndex;
      return Response.json({
        id,
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }, { headers: { "request-id": requestId } });
    }
    return new Response(streamTurn(id, model, blocks, stopReason, usage, nextToolId), {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "request-id": requestId,
      },
    });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    remaining: () => script.length,
    close: async () => {
      await server.shutdown();
    },
  };
}
