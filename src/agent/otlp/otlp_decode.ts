/**
 * Decodes an OTLP/HTTP request body, binary protobuf or JSON, into the
 * signal's `Export…ServiceRequest` message with protobufjs. A body that is
 * not one is a {@linkcode OtlpBadData} naming what was wrong; nothing of it
 * may be stored.
 *
 * JSON follows the OTLP deviations from the protobuf JSON mapping: trace and
 * span ids are hex (not base64) and are turned into bytes here before
 * protobufjs reads the object; fields with unknown names are ignored.
 *
 * @module
 */
import { excerpt } from "../../core/limits.ts";
import { OtlpBadData } from "./otlp_errors.ts";
import { type OtlpSignal, signalTypes } from "./otlp_schema.ts";
import type { LogsRequest, MetricsRequest, TracesRequest } from "./otlp_types.ts";

/** How a body is encoded. */
export type OtlpEncoding = "protobuf" | "json";

export { OtlpBadData };

/** A decoded export request of any signal. */
export type ExportRequest = TracesRequest | MetricsRequest | LogsRequest;

/**
 * Decodes `body` as the `signal`'s export request.
 *
 * @example
 * ```ts ignore
 * const request = decodeExport("traces", bytes, "protobuf") as TracesRequest;
 * ```
 */
export function decodeExport(
  signal: OtlpSignal,
  body: Uint8Array,
  encoding: OtlpEncoding,
): ExportRequest {
  const type = signalTypes(signal).request;
  if (encoding === "protobuf") {
    try {
      return type.decode(body) as unknown as ExportRequest;
    } catch (error) {
      throw new OtlpBadData(
        `the body is not a protobuf ${type.name}: ${messageOf(error)} (a truncated or ` +
          `corrupted body, or one sent with the wrong Content-Type)`,
      );
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new OtlpBadData("the JSON body is not valid UTF-8");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OtlpBadData(`the body is not JSON: ${messageOf(error)}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new OtlpBadData(`the JSON body must be an object (a ${type.name})`);
  }
  idsToBytes(signal, parsed as Record<string, unknown>);
  try {
    return type.fromObject(parsed as Record<string, unknown>) as unknown as ExportRequest;
  } catch (error) {
    throw new OtlpBadData(`the JSON body is not a ${type.name}: ${messageOf(error)}`);
  }
}

function messageOf(error: unknown): string {
  return excerpt(error instanceof Error ? error.message : String(error), 300);
}

/** Lists under `key` of `value`, or nothing when it is not a list of objects. */
function objects(value: unknown, key: string): Record<string, unknown>[] {
  if (typeof value !== "object" || value === null) return [];
  const list = (value as Record<string, unknown>)[key];
  if (!Array.isArray(list)) return [];
  return list.filter((item): item is Record<string, unknown> =>
    typeof item === "object" && item !== null
  );
}

/** Replaces the hex id fields of `record` by their bytes, in place. */
function hexFields(
  record: Record<string, unknown>,
  fields: readonly string[],
  where: string,
): void {
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== "string") continue;
    if (value.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(value)) {
      throw new OtlpBadData(
        `${where}.${field} ${excerpt(value)} is not hex (OTLP/JSON writes trace and span ids ` +
          `as hex strings)`,
      );
    }
    const bytes = new Uint8Array(value.length / 2);
    for (let i = 0; i < bytes.length; i++) {
      bytes[i] = parseInt(value.slice(i * 2, i * 2 + 2), 16);
    }
    record[field] = bytes;
  }
}

const IDS = ["traceId", "spanId"] as const;
const SPAN_IDS = ["traceId", "spanId", "parentSpanId"] as const;

/** Every hex id field of a JSON export request, turned into bytes. */
function idsToBytes(signal: OtlpSignal, body: Record<string, unknown>): void {
  if (signal === "traces") {
    for (const rs of objects(body, "resourceSpans")) {
      for (const ss of objects(rs, "scopeSpans")) {
        for (const span of objects(ss, "spans")) {
          hexFields(span, SPAN_IDS, "span");
          for (const link of objects(span, "links")) hexFields(link, IDS, "span.links[]");
        }
      }
    }
  } else if (signal === "logs") {
    for (const rl of objects(body, "resourceLogs")) {
      for (const sl of objects(rl, "scopeLogs")) {
        for (const record of objects(sl, "logRecords")) hexFields(record, IDS, "logRecord");
      }
    }
  } else {
    for (const rm of objects(body, "resourceMetrics")) {
      for (const sm of objects(rm, "scopeMetrics")) {
        for (const metric of objects(sm, "metrics")) {
          for (const kind of ["gauge", "sum", "histogram", "exponentialHistogram"]) {
            const data = metric[kind];
            for (const point of objects(data, "dataPoints")) {
              for (const exemplar of objects(point, "exemplars")) {
                hexFields(exemplar, IDS, `metric.${kind}.dataPoints[].exemplars[]`);
              }
            }
          }
        }
      }
    }
  }
}
