/**
 * The OTLP messages Vantage decodes and answers with, as protobufjs types
 * built from the official definitions (`vendor/opentelemetry-proto/`, turned into
 * `otlp_descriptor.json` by `scripts/make_otlp_descriptor.ts`). protobufjs
 * does the wire format; nothing here reads bytes by hand.
 *
 * @module
 */
import protobuf from "protobufjs/light.js";
import descriptor from "./otlp_descriptor.json" with { type: "json" };

/** The three signals an OTLP/HTTP exporter sends. */
export type OtlpSignal = "traces" | "metrics" | "logs";

/** The protobufjs message type, re-exported so callers name no protobufjs path. */
export type MessageType = protobuf.Type;

/** The types of one signal: its request, its response and its partial-success message. */
export interface SignalTypes {
  /** `Export<Signal>ServiceRequest`. */
  request: protobuf.Type;
  /** `Export<Signal>ServiceResponse`. */
  response: protobuf.Type;
  /** The field of the partial success that counts rejected items, in JSON spelling. */
  rejectedField: "rejectedSpans" | "rejectedDataPoints" | "rejectedLogRecords";
}

interface Schema {
  signals: Record<OtlpSignal, SignalTypes>;
  status: protobuf.Type;
}

let schema: Schema | undefined;

function load(): Schema {
  // 64-bit integers (nanosecond times, counts) decode as numbers rather than Long objects: a
  // span carries several, and a number is exact to the microsecond for times, which is all
  // Vantage keeps. protobufjs reads this setting when it is (re)configured.
  protobuf.util.Long = null as unknown as typeof protobuf.util.Long;
  protobuf.configure();
  const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
  const collector = "opentelemetry.proto.collector";
  const types = (signal: string, name: string, rejectedField: SignalTypes["rejectedField"]) => ({
    request: root.lookupType(`${collector}.${signal}.v1.Export${name}ServiceRequest`),
    response: root.lookupType(`${collector}.${signal}.v1.Export${name}ServiceResponse`),
    rejectedField,
  });
  return {
    signals: {
      traces: types("trace", "Trace", "rejectedSpans"),
      metrics: types("metrics", "Metrics", "rejectedDataPoints"),
      logs: types("logs", "Logs", "rejectedLogRecords"),
    },
    status: root.lookupType("google.rpc.Status"),
  };
}

/** The types of `signal` (the schema is built on first use). */
export function signalTypes(signal: OtlpSignal): SignalTypes {
  schema ??= load();
  return schema.signals[signal];
}

/** `google.rpc.Status`, the body of an OTLP/HTTP error answer. */
export function statusType(): protobuf.Type {
  schema ??= load();
  return schema.status;
}
