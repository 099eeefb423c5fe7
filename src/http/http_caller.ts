/**
 * Who an HTTP request acts as: the scopes the server grants HTTP callers,
 * narrowed by an `X-Vantage-Scopes` header when the client asks for less;
 * the folder it works in (`?cwd=` or `X-Vantage-Cwd`), which the agent
 * operations use as "this project"; and the calling agent, when named.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { Caller } from "../ops/operation.ts";
import { scopeGranted } from "../ops/operation.ts";
import { KNOWN_SCOPES, parseScopes } from "../ops/scopes.ts";
import { HttpError } from "./responses.ts";

/** The header a client narrows its scopes with. */
export const SCOPES_HEADER = "x-vantage-scopes";
/** The header naming the client's working folder. */
export const CWD_HEADER = "x-vantage-cwd";
/** The header naming the calling agent. */
export const AGENT_HEADER = "x-vantage-agent";

/**
 * Builds the caller of a request. A scope list in the header must be a
 * subset of `granted`: asking for more than the server grants is refused
 * with 403 rather than silently trimmed, so a client learns why an operation
 * is missing.
 */
export function callerFromRequest(request: Request, url: URL, granted: readonly string[]): Caller {
  let scopes = [...granted];
  const asked = request.headers.get(SCOPES_HEADER);
  if (asked !== null) {
    let parsed: string[];
    try {
      parsed = parseScopes(asked);
    } catch (error) {
      throw new HttpError(
        "invalid_arguments",
        `${SCOPES_HEADER}: ${error instanceof VantageError ? error.message : String(error)}`,
      );
    }
    // Wildcards expand to the known scopes they cover; each must be one the server grants.
    const wanted = KNOWN_SCOPES.filter((scope) => scopeGranted(parsed, scope));
    const explicit = parsed.filter((scope) => !scope.includes("*"));
    const refused = explicit.filter((scope) => !scopeGranted(granted, scope));
    if (refused.length > 0) {
      throw new HttpError(
        "forbidden",
        `${SCOPES_HEADER} asks for ${
          refused.join(", ")
        }, which this server does not grant HTTP callers (granted: ${granted.join(", ")})`,
      );
    }
    scopes = wanted.filter((scope) => scopeGranted(granted, scope));
  }
  const caller: Caller = { scopes };
  const cwd = url.searchParams.get("cwd") ?? request.headers.get(CWD_HEADER);
  if (cwd !== null && cwd.trim() !== "") caller.cwd = cwd.trim();
  const agent = request.headers.get(AGENT_HEADER);
  if (agent !== null && agent.trim() !== "") caller.agent = agent.trim();
  return caller;
}
