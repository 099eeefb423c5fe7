/**
 * OTLP/HTTP intake: `POST /v1/traces`, `/v1/metrics` and `/v1/logs` (also
 * under `/v1/otlp/`, so an exporter whose endpoint is `…/v1/otlp` finds them
 * too), binary protobuf or JSON by Content-Type, gzip or not by
 * Content-Encoding, answered as the OTLP specification says:
 *
 * - 200 with an `Export…ServiceResponse` in the request's encoding, its
 *   `partial_success` set only when items were rejected;
 * - 400 when the body is not an export request (nothing of it is stored),
 *   413 past the size limit (before and after decompression), 415 for an
 *   encoding or content type OTLP does not define, 405 for another method;
 *   every error body a `google.rpc.Status`.
 *
 * The Host/Origin/token rules are those of `/api/*`: off loopback a bearer
 * token is required (exporters send it with `OTEL_EXPORTER_OTLP_HEADERS`).
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { excerpt } from "../core/limits.ts";
import type { Logger } from "../core/log.ts";
import { OtlpBadData, type OtlpEncoding, type OtlpSignal } from "../agent/mod.ts";
import { HttpError } from "./responses.ts";

/** The largest body accepted, before and after decompression, by default: 16 MiB. */
export const OTLP_BODY_LIMIT = 16 * 1024 * 1024;

/** What an accepted export reports back. */
export interface OtlpTaken {
  /** Items rejected. */
  rejected: number;
  /** Why. */
  message?: string;
}

/** What the OTLP routes delegate to. */
export interface OtlpDependencies {
  /** Decodes, maps and stores one export; throws `OtlpBadData` for a body that is none. */
  take(
    signal: OtlpSignal,
    body: Uint8Array,
    encoding: OtlpEncoding,
  ): OtlpTaken | Promise<OtlpTaken>;
  /** Largest body, bytes (default {@linkcode OTLP_BODY_LIMIT}). */
  bodyLimit?: number;
}

const SIGNALS: Readonly<Record<string, OtlpSignal>> = {
  traces: "traces",
  metrics: "metrics",
  logs: "logs",
};

/**
 * The signal an OTLP path carries, or undefined for any other path: `/v1/<signal>`,
 * `/v1/otlp/v1/<signal>` or `/v1/otlp/<signal>`.
 */
export function otlpSignalOf(path: string): OtlpSignal | undefined {
  const match = /^\/v1\/(?:otlp\/(?:v1\/)?)?(traces|metrics|logs)\/?$/.exec(path);
  return match === null ? undefined : SIGNALS[match[1]];
}

/** The encoding a Content-Type names, or undefined when OTLP defines none for it. */
function encodingOf(contentType: string | null): OtlpEncoding | undefined {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
}

class OtlpFailure extends Error {
  constructor(readonly status: number, message: string, readonly headers: HeadersInit = {}) {
    super(message);
  }
}

function answer(
  encoding: OtlpEncoding,
  status: number,
  body: Uint8Array,
  headers: HeadersInit = {},
): Response {
  const type = encoding === "protobuf" ? "application/x-protobuf" : "application/json";
  return new Response(body as Uint8Array<ArrayBuffer>, {
    status,
    headers: { "content-type": type, ...headers },
  });
}

/**
 * Answers one OTLP request. `guard` applies the Host/Origin/token rules (it throws an
 * `HttpError`); `deps` is undefined when this server takes no telemetry (503).
 */
export async function handleOtlp(
  request: Request,
  signal: OtlpSignal,
  guard: () => void,
  deps: OtlpDependencies | undefined,
  log?: Logger,
): Promise<Response> {
  // Errors are answered in the request's encoding when it names one, else in JSON.
  const declared = encodingOf(request.headers.get("content-type"));
  const encoding = declared ?? "json";
  // The encoder (protobufjs and the OTLP schema) loads with the first OTLP request, not with
  // the server.
  const { exportResponseBody, statusBody } = await import("../agent/otlp/otlp_response.ts");
  try {
    try {
      guard();
    } catch (error) {
      if (error instanceof HttpError) {
        throw new OtlpFailure(error.status, error.message, error.headers);
      }
      throw error;
    }
    if (request.method !== "POST") {
      throw new OtlpFailure(405, `use POST to export ${signal}; got ${request.method}`, {
        allow: "POST",
      });
    }
    if (deps === undefined) throw new OtlpFailure(503, "this server takes no telemetry");
    if (declared === undefined) {
      const type = request.headers.get("content-type");
      throw new OtlpFailure(
        415,
        `OTLP/HTTP bodies are application/x-protobuf or application/json; got ${
          type === null ? "no Content-Type" : excerpt(type)
        }`,
      );
    }
    const limit = deps.bodyLimit ?? OTLP_BODY_LIMIT;
    const body = await readOtlpBody(request, limit);
    const taken = await deps.take(signal, body, declared);
    return answer(
      declared,
      200,
      exportResponseBody(signal, declared, taken.rejected, taken.message),
    );
  } catch (error) {
    if (error instanceof OtlpFailure) {
      return answer(encoding, error.status, statusBody(encoding, 0, error.message), error.headers);
    }
    if (error instanceof OtlpBadData) {
      return answer(encoding, 400, statusBody(encoding, 3, error.message));
    }
    log?.error("OTLP export failed", {
      signal,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    const message = error instanceof Error ? error.message : String(error);
    return answer(encoding, 500, statusBody(encoding, 13, excerpt(message, 500)));
  }
}

/**
 * The request body, decompressed when it says gzip, refused with 413 past `limit` bytes
 * before or after decompression (read as it streams, so a small body that inflates to
 * gigabytes stops at the limit).
 */
async function readOtlpBody(request: Request, limit: number): Promise<Uint8Array> {
  const coding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (coding !== "identity" && coding !== "gzip" && coding !== "x-gzip") {
    throw new OtlpFailure(
      415,
      `Content-Encoding ${excerpt(coding)} is not accepted; send gzip or no encoding`,
    );
  }
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    throw new OtlpFailure(413, `the body is ${declared} bytes; the limit is ${limit}`);
  }
  if (request.body === null) return new Uint8Array();
  let stream: ReadableStream<Uint8Array> = request.body;
  if (coding !== "identity") {
    const raw = await readLimited(stream, limit, "the compressed body");
    stream = new Blob([raw as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new DecompressionStream("gzip"),
    );
    try {
      return await readLimited(stream, limit, "the decompressed body");
    } catch (error) {
      if (error instanceof OtlpFailure) throw error;
      throw new OtlpBadData(
        `the body is not valid gzip: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return await readLimited(stream, limit, "the body");
}

async function readLimited(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  what: string,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new OtlpFailure(413, `${what} exceeds the limit of ${limit} bytes`);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}
