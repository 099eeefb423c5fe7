/**
 * Operations as an agent first meets them: one line saying what it does, a
 * one-line signature with every argument's type, bounds and default, and
 * the names of the result's top-level fields. It is what the `dex` search
 * returns per hit; whole schemas cost ten to twenty times as much and stay
 * behind `describe`. Everything here is read from the JSON Schemas, so it
 * cannot say more or less than the executor enforces.
 *
 * @module
 */
import type { JsonSchema } from "./json_schema.ts";

/** One compact search hit. */
export interface CompactHit {
  /** The operation's id, what `execute` takes. */
  operation_id: string;
  /** The first sentence of its description. */
  description: string;
  /** `(arg: type = default, opt?: type, …)`: the arguments, beside the id. */
  signature: string;
  /** The result's top-level field names, `, `-separated; `?` marks one that may be absent. */
  returns: string;
}

/** The longest one-line description a hit carries, in characters. */
const LINE_MAX = 100;

/**
 * The signature of an operation's arguments, `(…)` (the id stands beside it
 * in a hit, so it is not repeated). `?` marks an optional argument and
 * `= v` the default of one (which makes it optional too); integers in a
 * range read `1..10`, with one bound `int ≥ 1`; enums read `a|b|c`. A flag
 * shows `= true` only: off is its default otherwise, which keeps the many
 * `= false` out of every hit.
 *
 * @example
 * ```ts
 * import { signatureOf } from "./signature.ts";
 * signatureOf({
 *   type: "object",
 *   properties: {
 *     query: { type: "string" },
 *     limit: { type: "integer", minimum: 1, maximum: 10, default: 5 },
 *   },
 *   required: ["query"],
 * }); // "(query: string, limit: 1..10 = 5)"
 * ```
 */
export function signatureOf(input: JsonSchema): string {
  const properties = objectOf(input.properties);
  const required = new Set(Array.isArray(input.required) ? input.required as string[] : []);
  const parts = Object.entries(properties).map(([name, value]) => {
    const property = objectOf(value);
    const shown = defaultText(property);
    // A default already says the argument may be left out.
    const optional = required.has(name) || shown !== undefined ? "" : "?";
    return `${name}${optional}: ${typeText(property)}${shown === undefined ? "" : ` = ${shown}`}`;
  });
  return `(${parts.join(", ")})`;
}

/**
 * The top-level fields of a result schema, `?` after one that is not
 * required (absent when it does not apply).
 *
 * @example
 * ```ts
 * import { resultFields } from "./signature.ts";
 * resultFields({ type: "object", properties: { count: {}, note: {} }, required: ["count"] });
 * // ["count", "note?"]
 * ```
 */
export function resultFields(output: JsonSchema): string[] {
  const required = new Set(Array.isArray(output.required) ? output.required as string[] : []);
  return Object.keys(objectOf(output.properties)).map((name) =>
    required.has(name) ? name : `${name}?`
  );
}

/**
 * The first sentence of a description, cut at {@linkcode LINE_MAX}
 * characters: what a list of candidates needs to choose between them.
 *
 * @example
 * ```ts
 * import { firstLine } from "./signature.ts";
 * firstLine("Latest build result. Stale failures are flagged."); // "Latest build result."
 * ```
 */
export function firstLine(description: string): string {
  const flat = description.replace(/\s+/g, " ").trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? flat : flat.slice(0, end + 1);
  const chars = [...sentence];
  if (chars.length <= LINE_MAX) return sentence;
  // Too long: end at the last clause that fits, else at the last word.
  const head = chars.slice(0, LINE_MAX - 1).join("");
  const clause = Math.max(head.lastIndexOf(": "), head.lastIndexOf("; "), head.lastIndexOf(", "));
  const cut = clause >= LINE_MAX / 2 ? clause : head.lastIndexOf(" ");
  return (cut > 0 ? head.slice(0, cut) : head) + "…";
}

/** A compact hit from an operation's id, description and schemas. */
export function compactHit(
  operationId: string,
  description: string,
  input: JsonSchema,
  output: JsonSchema,
): CompactHit {
  return {
    operation_id: operationId,
    description: firstLine(description),
    signature: signatureOf(input),
    returns: resultFields(output).join(", "),
  };
}

/** A hit as one readable call line plus its description, for a tool's text block. */
export function hitText(hit: CompactHit): string {
  return `${hit.operation_id}${hit.signature} → {${hit.returns}}\n  ${hit.description}`;
}

function typeText(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join("|");
  if ("const" in schema) return literal(schema.const);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) {
    return [...new Set(variants.map((variant) => typeText(objectOf(variant))))].join("|");
  }
  if (Array.isArray(schema.type)) {
    return schema.type.map((type) => typeText({ ...schema, type })).join("|");
  }
  switch (schema.type) {
    case "integer":
      return numberText("int", schema, true);
    case "number":
      return numberText("number", schema, false);
    case "boolean":
      return "bool";
    case "string":
      return "string";
    case "null":
      return "null";
    case "array": {
      const items = typeText(objectOf(schema.items));
      return items.includes("|") ? `(${items})[]` : `${items}[]`;
    }
    case "object":
      return "object";
    default:
      return "any";
  }
}

/** `1..10`, `int ≥ 1`, `number 0..1`, or the bare type. */
function numberText(name: string, schema: JsonSchema, rangeAlone: boolean): string {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) {
    return rangeAlone ? `${min}..${max}` : `${name} ${min}..${max}`;
  }
  if (min !== undefined) return `${name} ≥ ${min}`;
  if (max !== undefined) return `${name} ≤ ${max}`;
  return name;
}

/** The default as shown, or undefined for none (and for a flag that is off unless set). */
function defaultText(schema: JsonSchema): string | undefined {
  if (!("default" in schema)) return undefined;
  if (schema.type === "boolean" && schema.default === false) return undefined;
  return literal(schema.default);
}

/** A value as a signature shows it: plain words bare, anything else as JSON. */
function literal(value: unknown): string {
  if (typeof value === "string" && /^[\w.:/*-]+$/.test(value)) return value;
  return JSON.stringify(value);
}

function objectOf(value: unknown): JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as JsonSchema
    : {};
}
