/**
 * OTLP/HTTP answers, in the encoding the request used: an
 * `Export…ServiceResponse` (with `partial_success` only when items were
 * rejected) on success, a `google.rpc.Status` on failure.
 *
 * @module
 */
import type { OtlpEncoding } from "./otlp_decode.ts";
import { type OtlpSignal, signalTypes, statusType } from "./otlp_schema.ts";

/** The content type of an encoding. */
export function otlpContentType(encoding: OtlpEncoding): string {
  return encoding === "protobuf" ? "application/x-protobuf" : "application/json";
}

/** The body of a successful export: partial success when `rejected` > 0. */
export function exportResponseBody(
  signal: OtlpSignal,
  encoding: OtlpEncoding,
  rejected: number,
  message?: string,
): Uint8Array {
  const types = signalTypes(signal);
  const fields: Record<string, unknown> = {};
  if (rejected > 0) {
    fields.partialSuccess = { [types.rejectedField]: rejected, errorMessage: message ?? "" };
  }
  const response = types.response.fromObject(fields);
  if (encoding === "protobuf") return types.response.encode(response).finish();
  // int64 counts are strings in the protobuf JSON mapping.
  const object = types.response.toObject(response, { longs: String });
  return new TextEncoder().encode(JSON.stringify(object));
}

/** The body of a failed export: a `google.rpc.Status` naming what was wrong. */
export function statusBody(encoding: OtlpEncoding, code: number, message: string): Uint8Array {
  const type = statusType();
  const status = type.fromObject({ code, message });
  if (encoding === "protobuf") return type.encode(status).finish();
  return new TextEncoder().encode(JSON.stringify(type.toObject(status)));
}
