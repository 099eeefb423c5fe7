/**
 * The time window the dashboard's read operations share: a lookback in
 * minutes and an optional end some minutes ago, clamped so no query scans
 * more than the retention the store keeps.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { clamp } from "./common.ts";

/** The longest lookback any dashboard read accepts: 400 days, in minutes. */
export const MAX_LOOKBACK_MIN = 400 * 24 * 60;

/** A resolved window, ms. */
export interface TimeWindow {
  /** Start (inclusive), ms. */
  since: number;
  /** End (exclusive), ms; open-ended (MAX_SAFE_INTEGER) when the window ends now. */
  until: number;
  /** The lookback used, minutes. */
  since_min: number;
}

/**
 * Schema of `since_min`: clamped into 1 minute … 400 days. Undescribed: the name, default and
 * bounds say it, and the full surface's schema budget has no room for saying it again.
 */
export function sinceMinSchema(defaultMin: number): z.ZodDefault<z.ZodNumber> {
  return clampedInt(1, MAX_LOOKBACK_MIN).default(defaultMin);
}

/** Schema of `until_min`: a negative end is refused, one past the longest lookback clamped. */
export const untilMinSchema: z.ZodDefault<z.ZodNumber> = z.number().int().min(0)
  .overwrite((value) => Math.min(value, MAX_LOOKBACK_MIN)).max(MAX_LOOKBACK_MIN).default(0)
  .describe("Minutes ago; 0 = now");

/** The window's end as an ISO time (now when open-ended). */
export function windowEnd(window: TimeWindow, now: number): string {
  return new Date(Math.min(window.until, now)).toISOString();
}

/** Resolves `since_min` / `until_min` against `now`. */
export function resolveWindow(
  now: number,
  sinceMin: number | undefined,
  untilMin: number | undefined,
  defaultMin: number,
): TimeWindow {
  const lookback = clamp(sinceMin, 1, MAX_LOOKBACK_MIN, defaultMin);
  const back = clamp(untilMin, 0, MAX_LOOKBACK_MIN, 0);
  const since = now - lookback * 60_000;
  // A window ending now stays open: clocks of agents and server differ by a little.
  const until = back === 0 ? Number.MAX_SAFE_INTEGER : Math.max(since, now - back * 60_000);
  return { since, until, since_min: lookback };
}
