/**
 * Who an HTTP request acts as: the scopes the server grants HTTP callers,
 * narrowed by an `X-Vantage-Scopes` header when the client asks for less;
 * the folder it works in (`?cwd=` or `X-Vantage-Cwd`), which the agent
 * operations use as "this project"; the calling agent, when named; and the
 * machine the client runs on (`X-Vantage-Host`), when named.
 * Each is bounded: an over-long or control-character value is a 400 naming
 * the header or parameter.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { NAME_MAX_CHARS, PATH_MAX_CHARS } from "../core/limits.ts";
import type { Caller } from "../ops/operation.ts";
import { scopeGranted } from "../ops/operation.ts";
import { KNOWN_SCOPES, parseScopes } from "../ops/scopes.ts";
import { boundedParam, readParam } from "./params.ts";
import { HttpError } from "./responses.ts";

/** The header a client narrows its scopes with. */
export const SCOPES_HEADER = "x-vantage-scopes";
/** The header naming the client's working folder. */
export const CWD_HEADER = "x-vantage-cwd";
/** The header naming the calling agent. */
export const AGENT_HEADER = "x-vantage-agent";

/** Longest scope list a client may send (every known scope spelled out fits many times). */
export const SCOPES_MAX_CHARS = 1024;

/**
 * Builds the caller of a request. A scope list in the header must be a
 * subset of `granted`: asking for more than the server grants is refused
 * with 403 rather than silently trimmed, so a client learns why an operation
 * is missing. `grantee` names whom the server grants `granted` in that
 * message (a team server's person gets their role's scopes).
 */
export function callerFromRequest(
  request: Request,
  url: URL,
  granted: readonly string[],
  grantee = "HTTP callers",
): Caller {
  let scopes = [...granted];
  const asked = request.headers.get(SCOPES_HEADER);
  if (asked !== null && asked.length > SCOPES_MAX_CHARS) {
    throw new HttpError(
      "invalid_arguments",
      `X-Vantage-Scopes is ${asked.length} characters long; it takes a comma-separated scope list of at most ${SCOPES_MAX_CHARS} characters`,
    );
  }
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
        }, which this server does not grant ${grantee} (granted: ${granted.join(", ")})`,
      );
    }
    scopes = wanted.filter((scope) => scopeGranted(granted, scope));
  }
  const caller: Caller = { scopes };
  const cwd = boundedParam(
    readParam(request, url, { query: "cwd" }, { header: "X-Vantage-Cwd" }),
    PATH_MAX_CHARS,
    "a folder path",
  );
  if (cwd !== undefined) caller.cwd = cwd;
  // An agent Vantage does not know is let through: it only loses "self" filtering.
  const agent = boundedParam(
    readParam(request, url, { header: "X-Vantage-Agent" }),
    NAME_MAX_CHARS,
    "an agent name",
  );
  if (agent !== undefined) caller.agent = agent;
  // The machine the client runs on, as it says (a team server records it with what it pushes).
  const host = boundedParam(
    readParam(request, url, { header: "X-Vantage-Host" }),
    NAME_MAX_CHARS,
    "a host name",
  );
  if (host !== undefined) caller.host = host;
  return caller;
}
