/**
 * Integer arguments that clamp. TMA1's tools take an out-of-range count
 * ("limit: 50" where 10 is the most) as the nearest bound rather than
 * refusing it, and Vantage keeps that. The bounds still belong in the
 * schema, where a model reads them, not only in words: so the value is
 * clamped first (zod's `overwrite`, which keeps the type) and then checked
 * against the same bounds, which always pass. The JSON Schema says
 * `minimum`/`maximum`; a caller that sends more gets the most, not an error.
 *
 * @module
 */
import { z } from "zod";

/**
 * An integer argument clamped into `[min, max]`; add `.default(n)` and
 * `.describe(…)` as usual. Non-integers are still refused.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { clampedInt } from "./clamped.ts";
 * const limit = clampedInt(1, 10).default(5);
 * limit.parse(50); // 10
 * limit.parse(undefined); // 5
 * z.toJSONSchema(limit).maximum; // 10
 * ```
 */
export function clampedInt(min: number, max: number): z.ZodNumber {
  return z.number().int().overwrite((value) => Math.min(max, Math.max(min, value))).min(min)
    .max(max);
}
