/**
 * The caller a CLI or stdio MCP process acts as: the scopes from `--scopes`
 * (default: every local scope) and the agent named by `VANTAGE_MCP_CALLER`.
 *
 * @module
 */
import { readEnv } from "../core/config.ts";
import type { Caller } from "../ops/operation.ts";
import { DEFAULT_SCOPES, parseScopes } from "../ops/scopes.ts";

/** Builds the caller from a `--scopes` value. */
export function callerFromFlags(scopes: string | boolean | undefined): Caller {
  const caller: Caller = {
    scopes: typeof scopes === "string" ? parseScopes(scopes) : [...DEFAULT_SCOPES],
  };
  const agent = readEnv("VANTAGE_MCP_CALLER");
  if (agent !== undefined) caller.agent = agent;
  return caller;
}
