/**
 * One line of an OpenTelemetry JSON-lines file as the OTLP/JSON export
 * request it stands for, so a file export goes through the same decoding
 * and mapping as an export sent to `/v1/…`. Two line shapes are read:
 *
 * - GitHub Copilot CLI's file exporter (`COPILOT_OTEL_FILE_EXPORTER_PATH`,
 *   checked with 1.0.102): one item per line, `{"type":"span",…}` or
 *   `{"type":"metric",…}`, laid out like OpenTelemetry JS's readable
 *   records: ids in hex, times as `[seconds, nanoseconds]`, attributes as a
 *   plain object, the span kind numbered from INTERNAL = 0 (OTLP counts from
 *   UNSPECIFIED = 0), each item with its `resource` and
 *   `instrumentationScope`. A metric names no type: a number is a
 *   cumulative monotonic sum (Copilot's are counters), `buckets` a
 *   histogram, `scale` an exponential histogram.
 * - An OTLP/JSON export request per line (`resourceSpans`,
 *   `resourceMetrics` or `resourceLogs`), as the OpenTelemetry Collector's
 *   file exporter writes.
 *
 * @module
 */
import { OtlpBadData } from "./otlp_errors.ts";
import type { OtlpSignal } from "./otlp_schema.ts";

/** What one line holds. */
export type OtelFileLine =
  | {
    /** A signal's export request. */
    kind: "export";
    /** The signal. */
    signal: OtlpSignal;
    /** The request in OTLP/JSON form (hex ids), for `decodeExport`. */
    request: Record<string, unknown>;
  }
  | {
    /** A record of a type this reader does not know (Copilot's lines are typed). */
    kind: "unknown";
    /** Its `type`. */
    type: string;
  };

type Json = Record<string, unknown>;

/**
 * Reads one line. Throws {@linkcode OtlpBadData} for a line that is not a
 * JSON object or whose item is not one of the shapes above.
 *
 * @example
 * ```ts
 * import { readOtelFileLine } from "./otlp_file_lines.ts";
 * const line = readOtelFileLine('{"type":"metric","name":"n","dataPoints":[{"value":2}]}');
 * line.kind === "export" && line.signal; // "metrics"
 * ```
 */
export function readOtelFileLine(text: string): OtelFileLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new OtlpBadData(`not JSON: ${error instanceof Error ? error.message : error}`);
  }
  if (!isObject(parsed)) throw new OtlpBadData("a line must be a JSON object");
  if (Array.isArray(parsed.resourceSpans)) return exportOf("traces", parsed);
  if (Array.isArray(parsed.resourceMetrics)) return exportOf("metrics", parsed);
  if (Array.isArray(parsed.resourceLogs)) return exportOf("logs", parsed);
  const type = typeof parsed.type === "string" ? parsed.type : "";
  if (type === "span") {
    return exportOf("traces", {
      resourceSpans: [{
        resource: resourceOf(parsed.resource),
        scopeSpans: [{ scope: scopeOf(parsed.instrumentationScope), spans: [spanOf(parsed)] }],
      }],
    });
  }
  if (type === "metric") {
    return exportOf("metrics", {
      resourceMetrics: [{
        resource: resourceOf(parsed.resource),
        scopeMetrics: [{
          scope: scopeOf(parsed.instrumentationScope),
          metrics: [metricOf(parsed)],
        }],
      }],
    });
  }
  return { kind: "unknown", type: type === "" ? "(none)" : type };
}

function exportOf(signal: OtlpSignal, request: Json): OtelFileLine {
  return { kind: "export", signal, request };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function objects(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** `[seconds, nanoseconds]` (or nanoseconds as a number or digits) as OTLP's decimal nanoseconds. */
function nanos(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) &&
    Number.isSafeInteger(value[1]) && value[0] >= 0 && value[1] >= 0
  ) {
    return (BigInt(value[0]) * 1_000_000_000n + BigInt(value[1])).toString();
  }
  if (typeof value === "string" && /^\d+$/.test(value)) return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
  throw new OtlpBadData(`${field} is not a time ([seconds, nanoseconds] or nanoseconds)`);
}

/** A plain value as an OTLP `AnyValue` (null stands for no value). */
function anyValue(value: unknown, depth = 0): Json | null {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { stringValue: String(value) };
    return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  if (depth > 8) return null;
  if (Array.isArray(value)) {
    return {
      arrayValue: {
        values: value.map((item) => anyValue(item, depth + 1) ?? {}),
      },
    };
  }
  if (isObject(value)) return { kvlistValue: { values: keyValues(value, depth + 1) } };
  return null;
}

/** A plain attribute object as OTLP's key-value list (absent values left out). */
function keyValues(value: unknown, depth = 0): Json[] {
  if (!isObject(value)) return [];
  const list: Json[] = [];
  for (const [key, item] of Object.entries(value)) {
    const converted = anyValue(item, depth);
    if (converted !== null) list.push({ key, value: converted });
  }
  return list;
}

function resourceOf(value: unknown): Json {
  return { attributes: keyValues(isObject(value) ? value.attributes : undefined) };
}

function scopeOf(value: unknown): Json {
  if (!isObject(value)) return {};
  const scope: Json = {};
  if (typeof value.name === "string") scope.name = value.name;
  if (typeof value.version === "string") scope.version = value.version;
  return scope;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function spanOf(item: Json): Json {
  const span: Json = {
    traceId: item.traceId,
    spanId: item.spanId,
    name: typeof item.name === "string" ? item.name : "",
    attributes: keyValues(item.attributes),
  };
  const parent = text(item.parentSpanId) ??
    (isObject(item.parentSpanContext) ? text(item.parentSpanContext.spanId) : undefined);
  if (parent !== undefined) span.parentSpanId = parent;
  // OpenTelemetry JS numbers kinds from INTERNAL = 0; OTLP from UNSPECIFIED = 0.
  if (typeof item.kind === "number" && Number.isInteger(item.kind) && item.kind >= 0) {
    span.kind = item.kind + 1;
  }
  const start = nanos(item.startTime ?? item.startTimeUnixNano, "a span's startTime");
  const end = nanos(item.endTime ?? item.endTimeUnixNano, "a span's endTime");
  if (start !== undefined) span.startTimeUnixNano = start;
  if (end !== undefined) span.endTimeUnixNano = end;
  if (isObject(item.status)) {
    const status: Json = {};
    if (typeof item.status.code === "number") status.code = item.status.code;
    if (text(item.status.message) !== undefined) status.message = item.status.message;
    span.status = status;
  }
  span.events = objects(item.events).map((event) => {
    const out: Json = {
      name: typeof event.name === "string" ? event.name : "",
      attributes: keyValues(event.attributes),
    };
    const time = nanos(event.time ?? event.timeUnixNano, "a span event's time");
    if (time !== undefined) out.timeUnixNano = time;
    return out;
  });
  return span;
}

/** OpenTelemetry JS's data point types. */
const POINT_TYPES: Readonly<Record<number, string>> = {
  0: "histogram",
  1: "exponentialHistogram",
  2: "gauge",
  3: "sum",
};

function metricOf(item: Json): Json {
  const name = typeof item.name === "string" ? item.name : "";
  const points = objects(item.dataPoints);
  const first = points[0]?.value;
  const declared = typeof item.dataPointType === "number"
    ? POINT_TYPES[item.dataPointType]
    : undefined;
  const data = declared ??
    (isObject(first) ? ("scale" in first ? "exponentialHistogram" : "histogram") : "sum");
  // OpenTelemetry JS numbers temporalities from DELTA = 0; OTLP from UNSPECIFIED = 0.
  const temporality = typeof item.aggregationTemporality === "number"
    ? item.aggregationTemporality + 1
    : 2;
  const converted = points.map((point) => pointOf(point, data, name));
  const metric: Json = { name };
  if (typeof item.description === "string") metric.description = item.description;
  if (typeof item.unit === "string") metric.unit = item.unit;
  if (data === "gauge") metric.gauge = { dataPoints: converted };
  else if (data === "sum") {
    metric.sum = {
      dataPoints: converted,
      aggregationTemporality: temporality,
      isMonotonic: typeof item.isMonotonic === "boolean" ? item.isMonotonic : true,
    };
  } else metric[data] = { dataPoints: converted, aggregationTemporality: temporality };
  return metric;
}

function pointOf(point: Json, data: string, name: string): Json {
  const out: Json = { attributes: keyValues(point.attributes) };
  const start = nanos(point.startTime ?? point.startTimeUnixNano, `a point's startTime (${name})`);
  const end = nanos(point.endTime ?? point.timeUnixNano, `a point's endTime (${name})`);
  if (start !== undefined) out.startTimeUnixNano = start;
  if (end !== undefined) out.timeUnixNano = end;
  const value = point.value;
  if (data === "sum" || data === "gauge") {
    if (typeof value !== "number") {
      throw new OtlpBadData(`a ${data} point of ${name} has no number value`);
    }
    if (Number.isSafeInteger(value)) out.asInt = String(value);
    else out.asDouble = value;
    return out;
  }
  if (!isObject(value)) throw new OtlpBadData(`a ${data} point of ${name} has no distribution`);
  for (const field of ["count", "sum", "min", "max"]) {
    if (typeof value[field] === "number") out[field] = value[field];
  }
  if (data === "histogram") {
    const buckets = isObject(value.buckets) ? value.buckets : {};
    if (Array.isArray(buckets.counts)) out.bucketCounts = buckets.counts.map(String);
    if (Array.isArray(buckets.boundaries)) out.explicitBounds = buckets.boundaries;
  } else {
    for (const field of ["scale", "zeroCount"]) {
      if (typeof value[field] === "number") out[field] = value[field];
    }
    for (const side of ["positive", "negative"]) {
      const buckets = value[side];
      if (isObject(buckets)) {
        out[side] = {
          offset: typeof buckets.offset === "number" ? buckets.offset : 0,
          bucketCounts: Array.isArray(buckets.bucketCounts) ? buckets.bucketCounts.map(String) : [],
        };
      }
    }
  }
  return out;
}
