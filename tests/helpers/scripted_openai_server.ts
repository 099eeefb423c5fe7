/**
 * A local stand-in for the OpenAI Responses API that plays the model from a script, so the
 * real `codex` client can run whole sessions offline.
 *
 * Requests that carry a non-empty `tools` array take the next turn of the script; other
 * requests (titles, summaries) get a short text answer without advancing it. Every request
 * body is recorded so tests can assert what the model was told. Ids are deterministic.
 *
 * @module
 */

import { type RecordedRequest, recordRequest } from "./recorded_request.ts";

/** One output item of a scripted response. */
export type ResponseItem =
  | { type: "message"; text: string }
  | { type: "function_call"; name: string; arguments: Record<string, unknown>; call_id?: string }
  | { type: "reasoning"; summary: string };

/** Usage reported for one scripted response. */
export interface ResponseUsage {
  input_tokens: number;
  cached_input_tokens?: number;
  output_tokens: number;
  reasoning_tokens?: number;
}

/** One model response. */
export interface ResponseTurn {
  items: ResponseItem[];
  usage?: ResponseUsage;
}

/** A request the server received. */
export type RecordedOpenAIRequest = RecordedRequest;

/** A running scripted server. */
export interface ScriptedOpenAIServer {
  /** Base URL including `/v1`, for `base_url` in Codex's `config.toml`. */
  readonly url: string;
  readonly requests: RecordedOpenAIRequest[];
  remaining(): number;
  close(): Promise<void>;
}

const DEFAULT_USAGE: ResponseUsage = { input_tokens: 100, output_tokens: 20 };

function pad(n: number): string {
  return String(n).padStart(3, "0");
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function hasTools(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const tools = (body as { tools?: unknown }).tools;
  return Array.isArray(tools) && tools.length > 0;
}

function modelOf(body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const model = (body as { model?: unknown }).model;
    if (typeof model === "string" && model !== "") return model;
  }
  return "gpt-5";
}

/**
 * Starts a scripted Responses API server on 127.0.0.1 (random port).
 *
 * @example
 * ```ts
 * const server = startScriptedOpenAIServer([
 *   { items: [{ type: "function_call", name: "exec_command", arguments: { cmd: "ls" } }] },
 *   { items: [{ type: "message", text: "Done." }] },
 * ]);
 * // base_url = server.url in ~/.codex/config.toml, run `codex exec …`, then:
 * await server.close();
 * ```
 */
export function startScriptedOpenAIServer(turns: ResponseTurn[]): ScriptedOpenAIServer {
  const script = [...turns];
  const requests: RecordedOpenAIRequest[] = [];
  let responseCount = 0;
  let itemCount = 0;
  let callCount = 0;

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const recorded: RecordedOpenAIRequest = await recordRequest(request);
    const body = recorded.body;
    requests.push(recorded);

    if (request.method === "GET" && url.pathname === "/v1/models") {
      return Response.json({ object: "list", data: [] });
    }
    if (request.method !== "POST" || url.pathname !== "/v1/responses") {
      return Response.json({ error: { message: `no route ${url.pathname}` } }, { status: 404 });
    }

    let turn: ResponseTurn;
    if (hasTools(body)) {
      recorded.main = true;
      turn = script.shift() ?? { items: [{ type: "message", text: "(script exhausted)" }] };
    } else {
      turn = { items: [{ type: "message", text: "Vantage fixture session" }] };
    }
    responseCount++;
    const responseId = `resp_script_${pad(responseCount)}`;
    const model = modelOf(body);
    const usage = turn.usage ?? DEFAULT_USAGE;

    const output = turn.items.map((item) => {
      itemCount++;
      if (item.type === "message") {
        return {
          type: "message",
          id: `msg_script_${pad(itemCount)}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: item.text, annotations: [] }],
        };
      }
      if (item.type === "reasoning") {
        return {
          type: "reasoning",
          id: `rs_script_${pad(itemCount)}`,
          summary: [{ type: "summary_text", text: item.summary }],
        };
      }
      return {
        type: "function_call",
        id: `fc_script_${pad(itemCount)}`,
        status: "completed",
        name: item.name,
        arguments: JSON.stringify(item.arguments),
        call_id: item.call_id ?? `call_script_${pad(++callCount)}`,
      };
    });

    const parts: string[] = [];
    const base = { id: responseId, object: "response", created_at: 1767323045, model };
    parts.push(sse("response.created", {
      type: "response.created",
      response: { ...base, status: "in_progress", output: [] },
    }));
    output.forEach((item, index) => {
      parts.push(sse("response.output_item.done", {
        type: "response.output_item.done",
        output_index: index,
        item,
      }));
    });
    const cached = usage.cached_input_tokens ?? 0;
    const reasoning = usage.reasoning_tokens ?? 0;
    parts.push(sse("response.completed", {
      type: "response.completed",
      response: {
        ...base,
        status: "completed",
        output,
        usage: {
          input_tokens: usage.input_tokens,
          input_tokens_details: { cached_tokens: cached },
          output_tokens: usage.output_tokens,
          output_tokens_details: { reasoning_tokens: reasoning },
          total_tokens: usage.input_tokens + usage.output_tokens,
        },
      },
    }));
    return new Response(parts.join(""), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}/v1`,
    requests,
    remaining: () => script.length,
    close: async () => {
      await server.shutdown();
    },
  };
}
