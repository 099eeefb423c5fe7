/**
 * One span or log event on its way to the agent mappers: already tied to
 * its agent and session, with its attributes read.
 *
 * @module
 */
import type { TelemetryBatch, TelemetryOrigin } from "../../model/telemetry_records.ts";
import type { Attributes } from "./otlp_values.ts";

/** What spans and events share. */
interface MappedRecord {
  /** The batch the mapped records go into. */
  batch: TelemetryBatch;
  /** Agent. */
  agent: string;
  /** Session. */
  sessionId: string;
  /** When it happened (a span: its end), ms. */
  ts: number;
  /** The record's attributes. */
  attrs: Attributes;
  /** Who ran it where. */
  origin: TelemetryOrigin;
}

/** A span. */
export interface SpanRecord extends MappedRecord {
  /** Span name. */
  name: string;
  /** Hex. */
  traceId: string;
  /** Hex. */
  spanId: string;
  /** Start, ms. */
  startMs: number;
  /** Duration, ms. */
  durationMs: number;
  /** OTLP status code (2 = error). */
  statusCode: number;
  /** Status message. */
  statusMessage?: string;
}

/** A log event. */
export interface EventRecord extends MappedRecord {
  /** Event name without the agent's prefix (`api_request`). */
  name: string;
  /** A key unique within the session (`event.sequence`, or the time). */
  key: string;
}
