/**
 * Reading a header or query parameter strictly: the value comes back with
 * the name it arrived under, and one over its length limit or holding a
 * control character is refused with a 400 that names that header or
 * parameter and says what it accepts. Headers and query strings are the
 * cheapest place for a client (or an attacker) to put garbage, and nothing
 * past this point should have to wonder about it.
 *
 * @module
 */
import { excerpt, hasControlCharacter } from "../core/limits.ts";
import { HttpError } from "./responses.ts";

/** Where a value may come from: a header (`X-Vantage-Cwd`) or a query parameter (`cwd`). */
export type ParamSource = { header: string } | { query: string };

/** A value with the name to report it under (`X-Vantage-Cwd`, `?cwd`). */
export interface NamedValue {
  /** The header as spelled in the documentation, or `?` and the parameter. */
  name: string;
  /** The value as sent. */
  value: string;
}

/**
 * The first of `sources` the request carries, with its name; undefined
 * when none is present.
 *
 * @example
 * ```ts ignore
 * readParam(request, url, { query: "cwd" }, { header: "X-Vantage-Cwd" });
 * // { name: "?cwd", value: "/work/app" }
 * ```
 */
export function readParam(
  request: Request,
  url: URL,
  ...sources: ParamSource[]
): NamedValue | undefined {
  for (const source of sources) {
    if ("header" in source) {
      const value = request.headers.get(source.header);
      if (value !== null) return { name: source.header, value };
    } else {
      const value = url.searchParams.get(source.query);
      if (value !== null) return { name: `?${source.query}`, value };
    }
  }
  return undefined;
}

/**
 * The trimmed value of `param`, or undefined when absent or blank. Throws a
 * 400 naming the parameter when it is longer than `limit` characters or
 * holds a control character; `accepted` says what it takes ("a folder
 * path").
 *
 * @example
 * ```ts ignore
 * boundedParam({ name: "?cwd", value: " /app " }, 4096, "a folder path"); // "/app"
 * ```
 */
export function boundedParam(
  param: NamedValue | undefined,
  limit: number,
  accepted: string,
): string | undefined {
  if (param === undefined) return undefined;
  const value = param.value.trim();
  if (value === "") return undefined;
  if (value.length > limit) {
    throw new HttpError(
      "invalid_arguments",
      `${param.name} is ${value.length} characters long; it takes ${accepted} of at most ${limit} characters`,
    );
  }
  if (hasControlCharacter(value)) {
    throw new HttpError(
      "invalid_arguments",
      `${param.name} ${
        excerpt(JSON.stringify(value))
      } holds a control character; it takes ${accepted}`,
    );
  }
  return value;
}
