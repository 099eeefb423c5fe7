/**
 * The one HTTP error type and JSON response helpers: every failure is a
 * JSON body `{error: {kind, dispatched, message}}` with a status that fits.
 *
 * @module
 */
import { concatBytes } from "../core/bytes.ts";
import { type ErrorKind, httpStatusFor } from "../core/errors.ts";
import { excerpt } from "../core/limits.ts";

/** An HTTP failure with a status and the Vantage error object. */
export class HttpError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** Error kind. */
  readonly kind: ErrorKind;
  /** Extra response headers (`Allow`, `WWW-Authenticate`). */
  readonly headers: Record<string, string>;

  /** Creates an HTTP error; the status defaults from the kind. */
  constructor(
    kind: ErrorKind,
    message: string,
    status?: number,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.kind = kind;
    this.status = status ?? httpStatusFor(kind);
    this.headers = headers;
  }
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** The JSON response of an {@linkcode HttpError}. */
export function errorResponse(error: HttpError): Response {
  return json(
    { error: { kind: error.kind, dispatched: false, message: error.message } },
    error.status,
    error.headers,
  );
}

/** Reads a request body as text, refusing more than `limit` bytes with 413. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(
      "invalid_arguments",
      `request body is ${declared} bytes; the limit is ${limit}`,
      413,
    );
  }
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new HttpError(
        "invalid_arguments",
        `request body exceeds the limit of ${limit} bytes`,
        413,
      );
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}

/** Refuses a body that does not declare JSON with 415. */
export function requireJson(request: Request): void {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type.trim())) {
    throw new HttpError(
      "invalid_arguments",
      `expected a JSON body (content-type: application/json); got ${
        type === "" ? "none" : excerpt(type)
      }`,
      415,
    );
  }
}

/**
 * Reads a JSON object body: 415 when it is not declared JSON, 413 past
 * `limit` bytes, 400 when it does not parse or is not an object. An empty
 * body reads as `{}`.
 */
export async function readJsonObject(
  request: Request,
  limit: number,
): Promise<Record<string, unknown>> {
  requireJson(request);
  const text = await readBodyText(request, limit);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(
      "invalid_arguments",
      `the body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HttpError("invalid_arguments", "the body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
