/**
 * OTLP export requests for tests, built as an exporter builds them: spans and
 * log records with typed attributes in OTLP/JSON (hex ids, times as
 * nanosecond strings), re-encodable as binary protobuf, and posted to a
 * running `serve` like an exporter posts them.
 */
import assert from "node:assert/strict";
import { decodeExport } from "../../src/agent/otlp/otlp_decode.ts";
import { type OtlpSignal, signalTypes } from "../../src/agent/otlp/otlp_schema.ts";

/** An attribute value as a test writes it. */
export type AttributeValue = string | number | boolean | string[];

/** OTLP/JSON attributes from a plain object (integers as intValue, others as doubleValue). */
export function attributes(values: Record<string, AttributeValue>) {
  return Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function anyValue(value: AttributeValue): Record<string, unknown> {
  if (Array.isArray(value)) {
    return { arrayValue: { values: value.map((v) => ({ stringValue: v })) } };
  }
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  return { stringValue: value };
}

/** Nanoseconds since the epoch, as OTLP/JSON writes them. */
export function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}

let idCounter = 0;

/** A fresh, never all-zero hex id of `bytes` bytes. */
export function hexId(bytes: 8 | 16): string {
  idCounter++;
  return `${"5b".repeat(bytes - 4)}${idCounter.toString(16).padStart(8, "0")}`;
}

/** What a test says about one span. */
export interface SpanSpec {
  /** Its trace (default: a new one). */
  traceId?: string;
  /** Name. */
  name: string;
  /** End time, ms. */
  endMs: number;
  /** Duration, ms. */
  durationMs: number;
  /** Attributes. */
  attributes: Record<string, AttributeValue>;
  /** An error status with this message. */
  error?: string;
}

/** One OTLP/JSON span. */
export function span(spec: SpanSpec) {
  return {
    traceId: spec.traceId ?? hexId(16),
    spanId: hexId(8),
    name: spec.name,
    kind: 3,
    startTimeUnixNano: nanos(spec.endMs - spec.durationMs),
    endTimeUnixNano: nanos(spec.endMs),
    attributes: attributes(spec.attributes),
    ...(spec.error !== undefined ? { status: { code: 2, message: spec.error } } : {}),
  };
}

/** An ExportTraceServiceRequest holding `spans` under one resource. */
export function tracesRequest(
  spans: ReturnType<typeof span>[],
  resource: Record<string, AttributeValue>,
  scope = "genai-instrumentation",
) {
  return {
    resourceSpans: [{
      resource: { attributes: attributes(resource) },
      scopeSpans: [{ scope: { name: scope }, spans }],
    }],
  };
}

/** One OTLP/JSON log record (an agent event: its name in the body and `event.name`). */
export function logRecord(ms: number, body: string, values: Record<string, AttributeValue>) {
  return {
    timeUnixNano: nanos(ms),
    observedTimeUnixNano: nanos(ms),
    body: { stringValue: body },
    attributes: attributes(values),
  };
}

/** An ExportLogsServiceRequest holding `records` under one resource. */
export function logsRequest(
  records: ReturnType<typeof logRecord>[],
  resource: Record<string, AttributeValue>,
  scope = "com.anthropic.claude_code.events",
) {
  return {
    resourceLogs: [{
      resource: { attributes: attributes(resource) },
      scopeLogs: [{ scope: { name: scope }, logRecords: records }],
    }],
  };
}

/** The request as binary protobuf (through the JSON decoder, so hex ids become bytes). */
export function protobufOf(signal: OtlpSignal, request: unknown): Uint8Array {
  const type = signalTypes(signal).request;
  const message = decodeExport(signal, new TextEncoder().encode(JSON.stringify(request)), "json");
  return type.encode(type.fromObject(message as Record<string, unknown>)).finish();
}

/**
 * Posts one export to a running server, as protobuf or JSON, and checks it was taken whole
 * (200 and no rejected items).
 */
export async function postExport(
  baseUrl: string,
  signal: OtlpSignal,
  request: unknown,
  encoding: "protobuf" | "json" = "protobuf",
): Promise<void> {
  const body = encoding === "protobuf"
    ? protobufOf(signal, request)
    : new TextEncoder().encode(JSON.stringify(request));
  const response = await fetch(`${baseUrl}/v1/${signal}`, {
    method: "POST",
    headers: {
      "content-type": encoding === "protobuf" ? "application/x-protobuf" : "application/json",
    },
    body: body as Uint8Array<ArrayBuffer>,
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  assert.equal(response.status, 200, new TextDecoder().decode(bytes));
  if (encoding === "json") {
    const answer = JSON.parse(new TextDecoder().decode(bytes)) as {
      partialSuccess?: { rejectedSpans?: string; rejectedLogRecords?: string };
    };
    assert.equal(answer.partialSuccess, undefined, JSON.stringify(answer));
  } else {
    const type = signalTypes(signal).response;
    const answer = type.toObject(type.decode(bytes)) as { partialSuccess?: unknown };
    assert.equal(answer.partialSuccess, undefined, JSON.stringify(answer));
  }
}
