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
  "sync:write",
  "admin",
  "net",
];

/**
 * The scopes a local caller gets when none are given: everything but network access, `admin`
 * and `sync:write`. Managing a team server's people and pushing one's history to it are asked
 * for by name (`vantage team` does; a person's token holds `sync:write`), so an agent's MCP
 * process neither holds them nor lists those operations.
 */
export const DEFAULT_SCOPES: readonly string[] = KNOWN_SCOPES.filter((scope) =>
  scope !== "net" && scope !== "admin" && scope !== "sync:write"
);

/**
 * What a person's token grants on a team server, by role: a member reads everything, writes
 * (their own data: operations refuse another person's) and pushes their own history
 * (`vantage sync`); an admin also manages people.
 */
export const ROLE_SCOPES: Readonly<Record<"member" | "admin", readonly string[]>> = {
  member: [...DEFAULT_SCOPES, "sync:write"],
  admin: [...DEFAULT_SCOPES, "sync:write", "admin"],
};

/**
 * What `serve` grants its owner (its own token, or no token on loopback): an admin's scopes,
 * since whoever holds the server's token owns its data home.
 */
export const SERVE_SCOPES: readonly string[] = ROLE_SCOPES.admin;

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
