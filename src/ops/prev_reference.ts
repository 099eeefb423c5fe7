/**
 * `$prev` references in pipeline parameters, with the YAMS rules: a string
 * parameter that is exactly `$prev`, `$prev.field`, `$prev.field[N]` or
 * `$prev.field[N].sub` is replaced by that part of the previous step's
 * result, or by `null` when it does not resolve.
 *
 * @module
 */

const REFERENCE = /^\$prev((?:\.[A-Za-z_$][\w$-]*|\[\d+\])*)$/;
const SEGMENT = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]/g;

/**
 * Resolves one reference string against `previous`; returns `undefined` when
 * `text` is not a reference at all (so it is kept as written).
 *
 * @example
 * ```ts
 * import { resolveReference } from "./prev_reference.ts";
 * resolveReference("$prev.results[0].hash", { results: [{ hash: "ab" }] }); // "ab"
 * resolveReference("$prev.missing", {}); // null
 * ```
 */
export function resolveReference(text: string, previous: unknown): unknown {
  const match = REFERENCE.exec(text);
  if (match === null) return undefined;
  let current: unknown = previous;
  for (const segment of match[1].matchAll(SEGMENT)) {
    if (current === null || typeof current !== "object") return null;
    if (segment[1] !== undefined) {
      if (Array.isArray(current) || !Object.hasOwn(current, segment[1])) return null;
      current = (current as Record<string, unknown>)[segment[1]];
    } else {
      const index = Number(segment[2]);
      if (!Array.isArray(current) || index >= current.length) return null;
      current = current[index];
    }
  }
  return current === undefined ? null : current;
}

/**
 * Replaces every reference string inside `params` (at any depth) with what
 * it resolves to; other values are copied unchanged.
 */
export function resolveReferences(params: unknown, previous: unknown): unknown {
  if (typeof params === "string") {
    const resolved = resolveReference(params, previous);
    return resolved === undefined ? params : resolved;
  }
  if (Array.isArray(params)) return params.map((item) => resolveReferences(item, previous));
  if (params !== null && typeof params === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(params)) {
      copy[key] = resolveReferences(value, previous);
    }
    return copy;
  }
  return params;
}
