/**
 * The scope vocabulary. Kept apart from the cassettes so a surface can check
 * a `--scopes` flag without loading a single operation.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";

/** Every scope the built-in operations use. */
export const KNOWN_SCOPES: readonly string[] = [
  "dex:read",
  "agent:read",
  "sql:read",
  "docs:read",
  "docs:write",
  "session:write",
  "net",
];

/** The scopes a local caller gets when none are given: everything but network access. */
export const DEFAULT_SCOPES: readonly string[] = KNOWN_SCOPES.filter((scope) => scope !== "net");

/**
 * Parses a comma-separated scope list, refusing unknown scopes and lists that
 * grant nothing. `*` and `prefix:*` wildcards are accepted when they cover at
 * least one known scope.
 *
 * @example
 * ```ts
 * import { parseScopes } from "./scopes.ts";
 * parseScopes("agent:read, docs:*"); // ["agent:read", "docs:*"]
 * ```
 */
export function parseScopes(text: string, known: readonly string[] = KNOWN_SCOPES): string[] {
  const scopes = text.split(",").map((scope) => scope.trim()).filter((scope) => scope !== "");
  if (scopes.length === 0) {
    throw new VantageError(
      "invalid_arguments",
      `--scopes '${text}' grants nothing; give one or more of: ${known.join(", ")}`,
    );
  }
  for (const scope of scopes) {
    const covers = scope === "*" ||
      (scope.endsWith(":*")
        ? known.some((k) => k.startsWith(scope.slice(0, -1)))
        : known.includes(scope));
    if (!covers) {
      throw new VantageError(
        "invalid_arguments",
        `unknown scope '${scope}'; known scopes: ${known.join(", ")} (or '*', 'docs:*', …)`,
        { details: { scope } },
      );
    }
  }
  return [...new Set(scopes)];
}
