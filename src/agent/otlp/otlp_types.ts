/**
 * The parts of decoded OTLP messages Vantage reads, as protobufjs hands
 * them over (camelCase fields; 64-bit integers as `Long` objects or numbers;
 * bytes as `Uint8Array`; a oneof's set member named by its oneof field).
 * Only what the mapping reads is declared.
 *
 * @module
 */

/** A 64-bit integer as protobufjs decodes it. */
export type Int64 = number | { toNumber(): number } | string;

/** `common.v1.AnyValue`; `value` names the member that is set. */
export interface AnyValue {
  value?: string;
  stringValue?: string;
  boolValue?: boolean;
  intValue?: Int64;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: Uint8Array;
}

/** `common.v1.KeyValue`. */
export interface KeyValue {
  key: string;
  value?: AnyValue;
}

/** `resource.v1.Resource`. */
export interface Resource {
  attributes?: KeyValue[];
}

/** `common.v1.InstrumentationScope`. */
export interface Scope {
  name?: string;
  version?: string;
}

/** `trace.v1.Span`. */
export interface Span {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: Int64;
  endTimeUnixNano?: Int64;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
}

/** `collector.trace.v1.ExportTraceServiceRequest`. */
export interface TracesRequest {
  resourceSpans?: Array<{
    resource?: Resource;
    scopeSpans?: Array<{ scope?: Scope; spans?: Span[] }>;
  }>;
}

/** `logs.v1.LogRecord`. */
export interface LogRecord {
  timeUnixNano?: Int64;
  observedTimeUnixNano?: Int64;
  severityNumber?: number;
  body?: AnyValue;
  attributes?: KeyValue[];
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  eventName?: string;
}

/** `collector.logs.v1.ExportLogsServiceRequest`. */
export interface LogsRequest {
  resourceLogs?: Array<{
    resource?: Resource;
    scopeLogs?: Array<{ scope?: Scope; logRecords?: LogRecord[] }>;
  }>;
}

/** A number data point (gauge, sum). `value` names the member that is set. */
export interface NumberDataPoint {
  attributes?: KeyValue[];
  startTimeUnixNano?: Int64;
  timeUnixNano?: Int64;
  value?: string;
  asDouble?: number;
  asInt?: Int64;
}

/** A histogram, exponential histogram or summary data point. */
export interface DistributionDataPoint {
  attributes?: KeyValue[];
  startTimeUnixNano?: Int64;
  timeUnixNano?: Int64;
  count?: Int64;
  sum?: number;
  min?: number;
  max?: number;
}

/** `metrics.v1.Metric`; `data` names the member that is set. */
export interface Metric {
  name?: string;
  unit?: string;
  data?: string;
  gauge?: { dataPoints?: NumberDataPoint[] };
  sum?: {
    dataPoints?: NumberDataPoint[];
    aggregationTemporality?: number;
    isMonotonic?: boolean;
  };
  histogram?: { dataPoints?: DistributionDataPoint[]; aggregationTemporality?: number };
  exponentialHistogram?: {
    dataPoints?: DistributionDataPoint[];
    aggregationTemporality?: number;
  };
  summary?: { dataPoints?: DistributionDataPoint[] };
}

/** `collector.metrics.v1.ExportMetricsServiceRequest`. */
export interface MetricsRequest {
  resourceMetrics?: Array<{
    resource?: Resource;
    scopeMetrics?: Array<{ scope?: Scope; metrics?: Metric[] }>;
  }>;
}
