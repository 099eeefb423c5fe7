/**
 * Reading decoded OTLP values: attribute lists into plain objects, 64-bit
 * integers into numbers, nanosecond times into milliseconds, ids into hex.
 *
 * @module
 */
import type { AnyValue, Int64, KeyValue } from "./otlp_types.ts";

/** An attribute value as Vantage keeps it. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue };

/** Attributes by key. */
export type Attributes = Record<string, AttributeValue>;

/** A 64-bit integer as a number (exact up to 2^53, close beyond). */
export function int64(value: Int64 | null | undefined): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number") return value;
  if (typeof value === "string") return Number(value);
  return value.toNumber();
}

/** Nanoseconds since the epoch as milliseconds (0 when unset). */
export function nanosToMs(value: Int64 | null | undefined): number {
  return int64(value) / 1e6;
}

const HEX_DIGITS = "0123456789abcdef";
/** Character codes of the hex digits of each byte value (high, low). */
const HEX_CODES = Uint16Array.from(
  { length: 512 },
  (_, i) => HEX_DIGITS.charCodeAt(i & 1 ? (i >> 1) & 15 : i >> 5),
);
/** Room for the digits of an id (trace ids are 16 bytes), reused. */
const DIGITS = new Uint16Array(64);

/** Bytes as lower-case hex ("" for none). */
export function hex(bytes: Uint8Array | null | undefined): string {
  if (bytes === undefined || bytes === null) return "";
  if (bytes.length > DIGITS.length / 2) {
    let text = "";
    for (const byte of bytes) text += HEX_DIGITS[byte >> 4] + HEX_DIGITS[byte & 15];
    return text;
  }
  // One flat string at once, not a chain of two-character pieces.
  for (let i = 0; i < bytes.length; i++) {
    DIGITS[2 * i] = HEX_CODES[2 * bytes[i]];
    DIGITS[2 * i + 1] = HEX_CODES[2 * bytes[i] + 1];
  }
  return String.fromCharCode.apply(
    null,
    DIGITS.subarray(0, 2 * bytes.length) as unknown as number[],
  );
}

/** The members of AnyValue's oneof. */
const ANY_VALUE_MEMBERS = [
  "stringValue",
  "boolValue",
  "intValue",
  "doubleValue",
  "arrayValue",
  "kvlistValue",
  "bytesValue",
] as const;

/**
 * Which member of an AnyValue is set. protobufjs answers through a getter that lists the
 * message's own keys on every call; the one own member that is set is found without that,
 * and the getter decides only when there is not exactly one.
 */
function memberOf(value: AnyValue): string | undefined {
  let found: string | undefined;
  for (const member of ANY_VALUE_MEMBERS) {
    if (!Object.hasOwn(value, member)) continue;
    const set = value[member];
    if (set === undefined || set === null) continue;
    if (found !== undefined) return value.value;
    found = member;
  }
  return found ?? value.value;
}

/** One AnyValue as a plain value (bytes become hex; nesting is kept). */
export function anyValue(value: AnyValue | null | undefined, depth = 0): AttributeValue {
  if (value === undefined || value === null) return null;
  switch (memberOf(value)) {
    case "stringValue":
      return value.stringValue ?? "";
    case "boolValue":
      return value.boolValue ?? false;
    case "intValue":
      return int64(value.intValue);
    case "doubleValue":
      return value.doubleValue ?? 0;
    case "bytesValue":
      return hex(value.bytesValue);
    case "arrayValue":
      if (depth > 8) return null;
      return (value.arrayValue?.values ?? []).map((v) => anyValue(v, depth + 1));
    case "kvlistValue":
      if (depth > 8) return null;
      return attributes(value.kvlistValue?.values, depth + 1);
    default:
      return null;
  }
}

/** An attribute list as an object (a repeated key keeps its last value). */
export function attributes(list: KeyValue[] | null | undefined, depth = 0): Attributes {
  const out: Attributes = {};
  if (list === undefined || list === null) return out;
  for (const kv of list) out[kv.key] = anyValue(kv.value, depth);
  return out;
}

/** A string attribute (numbers are written out; empty strings count as absent). */
export function attrString(attrs: Attributes, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = attrs[key];
    if (typeof value === "string" && value !== "") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

/** A numeric attribute; agents send some numbers as strings (Claude Code's `duration_ms`). */
export function attrNumber(attrs: Attributes, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = attrs[key];
    if (typeof value === "number" && Number.isFinite(value)) return value;
    if (typeof value === "string" && value.trim() !== "") {
      const parsed = Number(value);
      if (Number.isFinite(parsed)) return parsed;
    }
  }
  return undefined;
}

/** A boolean attribute; `"true"` / `"false"` strings count. */
export function attrBoolean(attrs: Attributes, ...keys: string[]): boolean | undefined {
  for (const key of keys) {
    const value = attrs[key];
    if (typeof value === "boolean") return value;
    if (value === "true") return true;
    if (value === "false") return false;
  }
  return undefined;
}

/** A non-negative whole count attribute. */
export function attrCount(attrs: Attributes, ...keys: string[]): number | undefined {
  const value = attrNumber(attrs, ...keys);
  return value === undefined || value < 0 ? undefined : Math.round(value);
}
