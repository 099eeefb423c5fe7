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
 *   encoding or content type OTLP does not define, 405 for another method,
 *   503 while the intake cannot take exports (stopping, or no worker left),
 *   which exporters retry; every error body a `google.rpc.Status`.
 *
 * The Host/Origin/token rules are those of `/api/*` (the route table's
 * middleware, the router protected like `/api`): off loopback a bearer token
 * is required (exporters send it with `OTEL_EXPORTER_OTLP_HEADERS`). An export
 * sent with a person's token is theirs, from the host `X-Vantage-Host` names
 * (the sessions it creates keep both, as a hook's do).
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { VantageError } from "../core/errors.ts";
import { excerpt, NAME_MAX_CHARS } from "../core/limits.ts";
import type { Logger } from "../core/log.ts";
import { OtlpBadData, type OtlpEncoding, type OtlpSender, type OtlpSignal } from "../agent/mod.ts";
import { requestPerson } from "./auth.ts";
import { boundedParam, readParam } from "./params.ts";
import { HttpError } from "./responses.ts";
import type { SubRouter } from "./router.ts";

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
  /**
   * Decodes, maps and stores one export as `sender`'s; throws `OtlpBadData` for a body that
   * is none.
   */
  take(
    signal: OtlpSignal,
    body: Uint8Array,
    encoding: OtlpEncoding,
    sender: OtlpSender,
  ): OtlpTaken | Promise<OtlpTaken>;
  /** Largest body, bytes (default {@linkcode OTLP_BODY_LIMIT}). */
  bodyLimit?: number;
}

/** The spellings of each signal's path: `/v1/<signal>`, `/v1/otlp/v1/<signal>`, `/v1/otlp/<signal>`. */
const SIGNAL_PATHS: ReadonlyArray<readonly [OtlpSignal, string]> = (
  ["traces", "metrics", "logs"] as const
).flatMap((signal) =>
  [`/v1/${signal}`, `/v1/otlp/v1/${signal}`, `/v1/otlp/${signal}`].flatMap((path) => [
    [signal, path] as const,
    [signal, `${path}/`] as const,
  ])
);

/** The encoding a Content-Type names, or undefined when OTLP defines none for it. */
function encodingOf(contentType: string | null): OtlpEncoding | undefined {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
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
 * The OTLP sub-router under `/v1`: one POST route per signal and spelling.
 * `protect(…)` it like `/api`: it writes to the store. Every refusal under
 * the prefix, the table's Host/Origin and token checks included, is
 * answered as a `google.rpc.Status` in the request's encoding (JSON when it
 * names none); `otlp` undefined means this server takes no telemetry (503).
 *
 * @example
 * ```ts ignore
 * const routers = [protect(otlpRouter(otlp, log)), …];
 * ```
 */
export function otlpRouter(otlp: OtlpDependencies | undefined, log?: Logger): SubRouter {
  return {
    prefix: "/v1",
    routes: SIGNAL_PATHS.map(([signal, path]) => ({
      path,
      methods: ["POST"],
      handle: ({ request }) => takeExport(request, signal, otlp),
    })),
    answerError: async ({ request }, error) => {
      const encoding = encodingOf(request.headers.get("content-type")) ?? "json";
      // The encoder (protobufjs and the OTLP schema) loads with the first OTLP request, not
      // with the server.
      const { statusBody } = await import("../agent/otlp/otlp_response.ts");
      if (error instanceof HttpError) {
        return answer(
          encoding,
          error.status,
          statusBody(encoding, 0, error.message),
          error.headers,
        );
      }
      if (error instanceof OtlpBadData) {
        return answer(encoding, 400, statusBody(encoding, 3, error.message));
      }
      if (error instanceof VantageError && error.kind === "unavailable") {
        // The intake is stopping or has no worker left: 503, which exporters retry later.
        return answer(encoding, 503, statusBody(encoding, 14, error.message));
      }
      log?.error("OTLP export failed", {
        path: excerpt(new URL(request.url).pathname, 200),
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      const message = error instanceof Error ? error.message : String(error);
      return answer(encoding, 500, statusBody(encoding, 13, excerpt(message, 500)));
    },
  };
}

/** Reads, stores and acknowledges one export (its method and the guard already checked). */
async function takeExport(
  request: Request,
  signal: OtlpSignal,
  otlp: OtlpDependencies | undefined,
): Promise<Response> {
  if (otlp === undefined) throw new HttpError("unavailable", "this server takes no telemetry");
  const declared = encodingOf(request.headers.get("content-type"));
  if (declared === undefined) {
    const type = request.headers.get("content-type");
    throw new HttpError(
      "invalid_arguments",
      `OTLP/HTTP bodies are application/x-protobuf or application/json; got ${
        type === null ? "no Content-Type" : excerpt(type)
      }`,
      415,
    );
  }
  const sender: OtlpSender = {};
  const host = boundedParam(
    readParam(request, new URL(request.url), { header: "X-Vantage-Host" }),
    NAME_MAX_CHARS,
    "a host name",
  );
  if (host !== undefined) sender.host = host;
  const person = requestPerson(request);
  if (person !== undefined) sender.person = person.name;
  const body = await readOtlpBody(request, otlp.bodyLimit ?? OTLP_BODY_LIMIT);
  const taken = await otlp.take(signal, body, declared, sender);
  const { exportResponseBody } = await import("../agent/otlp/otlp_response.ts");
  return answer(declared, 200, exportResponseBody(signal, declared, taken.rejected, taken.message));
}

/**
 * The request body, decompressed when it says gzip, refused with 413 past `limit` bytes
 * before or after decompression (read as it streams, so a small body that inflates to
 * gigabytes stops at the limit).
 */
async function readOtlpBody(request: Request, limit: number): Promise<Uint8Array> {
  const coding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (coding !== "identity" && coding !== "gzip" && coding !== "x-gzip") {
    throw new HttpError(
      "invalid_arguments",
      `Content-Encoding ${excerpt(coding)} is not accepted; send gzip or no encoding`,
      415,
    );
  }
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError("result_too_large", `the body is ${declared} bytes; the limit is ${limit}`);
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
      if (error instanceof HttpError) throw error;
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
      throw new HttpError("result_too_large", `${what} exceeds the limit of ${limit} bytes`);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}
