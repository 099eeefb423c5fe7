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
 * The `$schema` keyword is left out to keep tool lists small.
 *
 * @example
 * ```ts
 * import { z } from "zod";
import type { Schema } from "./operation.ts";
 * import { toJsonSchema } from "./json_schema.ts";
 * toJsonSchema(z.object({ q: z.string() }), "input").type; // "object"
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
  }) as JsonSchema;
  delete converted.$schema;
  entry[io] = converted;
  return converted;
}
