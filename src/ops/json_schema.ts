/**
 * JSON Schema 2020-12 derived from the operations' zod schemas: the only
 * schema source, so the MCP tool lists, HTTP catalog and `describe` never
 * drift from what the executor validates.
 *
 * @module
 */
import { z } from "zod";
import type { Schema } from "./operation.ts";

/** A JSON Schema document as a plain JSON object. */
export type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<Schema, { input?: JsonSchema; output?: JsonSchema }>();

/**
 * Converts a zod schema to JSON Schema 2020-12, for its input side (what a
 * caller may send, defaults optional) or output side (what comes back).
 * The `$schema` keyword is left out to keep tool lists small, and so are the
 * ±(2^53 − 1) bounds zod gives every `.int()`: they state no real limit,
 * only JavaScript's safe-integer range, and cost a model ~14 tokens a field.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { toJsonSchema } from "./json_schema.ts";
 * toJsonSchema(z.object({ n: z.number().int() }), "input").properties;
 * // { n: { type: "integer" } }
 * ```
 */
export function toJsonSchema(schema: Schema, io: "input" | "output"): JsonSchema {
  let entry = cache.get(schema);
  if (entry === undefined) {
    entry = {};
    cache.set(schema, entry);
  }
  const cached = entry[io];
  if (cached !== undefined) return cached;
  const converted = z.toJSONSchema(schema as unknown as z.ZodType, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: ({ jsonSchema }) => dropSafeIntegerBounds(jsonSchema as JsonSchema),
  }) as JsonSchema;
  delete converted.$schema;
  entry[io] = converted;
  return converted;
}

/** Removes the bounds that only restate the safe-integer range. */
function dropSafeIntegerBounds(node: JsonSchema): void {
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
}

/**
 * A result schema cut to what a tool list needs: the top-level fields with
 * their types (and enums), which is what a client validates against and a
 * model glances at. Nested objects and array items keep only their type;
 * descriptions and bounds go. Every value the whole schema accepts still
 * passes, so a client that validates results is never stricter than the
 * executor. The whole schema stays available through `describe`.
 *
 * @example
 * ```ts
 * import { slimSchema } from "./json_schema.ts";
 * slimSchema({
 *   type: "object",
 *   properties: { rows: { type: "array", items: { type: "object", properties: {} } } },
 *   required: ["rows"],
 * });
 * // { type: "object", properties: { rows: { type: "array", items: { type: "object" } } },
 * //   required: ["rows"] }
 * ```
 */
export function slimSchema(schema: JsonSchema): JsonSchema {
  const slim: JsonSchema = {};
  if (schema.type !== undefined) slim.type = schema.type;
  const properties = schema.properties;
  if (properties !== null && typeof properties === "object") {
    slim.properties = Object.fromEntries(
      Object.entries(properties as Record<string, JsonSchema>).map((
        [name, property],
      ) => [name, typeOnly(property, 1)]),
    );
  }
  if (Array.isArray(schema.required)) slim.required = schema.required;
  // Every declared field is listed, so a closed object stays closed; a catch-all stays open.
  if (schema.additionalProperties === false) slim.additionalProperties = false;
  return slim;
}

/** A node's type, enum or union, with `depth` more levels of array items kept. */
function typeOnly(node: JsonSchema, depth: number): JsonSchema {
  if (node === null || typeof node !== "object") return {};
  const kept: JsonSchema = {};
  for (const union of ["anyOf", "oneOf"] as const) {
    const variants = node[union];
    if (Array.isArray(variants)) {
      kept[union] = variants.map((variant) => typeOnly(variant as JsonSchema, depth));
    }
  }
  if (node.type !== undefined) kept.type = node.type;
  if (Array.isArray(node.enum)) kept.enum = node.enum;
  if ("const" in node) kept.const = node.const;
  if (node.type === "array" && depth > 0 && node.items !== null && typeof node.items === "object") {
    kept.items = typeOnly(node.items as JsonSchema, depth - 1);
  }
  return kept;
}
