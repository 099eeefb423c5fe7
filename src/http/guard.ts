/**
 * Checks every request's Host and Origin (against DNS rebinding: a page on
 * another site resolving its name to 127.0.0.1 must not reach the API) and,
 * when the server listens beyond loopback, its bearer token.
 *
 * @module
 */
import { excerpt } from "../core/limits.ts";
import { HttpError } from "./responses.ts";

/** What the guard allows. */
export interface GuardOptions {
  /** The address the server is bound to. */
  bindHost: string;
  /** The port it listens on. */
  port: number;
  /** The bearer token; required off loopback, always accepted. */
  token?: string;
  /** Further host names that may be used to reach the server. */
  extraHosts?: readonly string[];
}

/** What a 401 tells the client to send. */
const CHALLENGE = { "www-authenticate": 'Bearer realm="vantage"' };

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Whether an address is loopback only. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith("[")) return hostHeader.slice(0, hostHeader.indexOf("]") + 1);
  const colon = hostHeader.lastIndexOf(":");
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

/**
 * Throws an {@linkcode HttpError} when the request's Host or Origin is not
 * one of ours, or when a token is required and missing or wrong.
 */
export function guardRequest(request: Request, options: GuardOptions, needsToken: boolean): void {
  const allowed = new Set([...LOOPBACK_NAMES, ...(options.extraHosts ?? [])]);
  if (!isLoopback(options.bindHost)) allowed.add(options.bindHost);
  const hostHeader = request.headers.get("host");
  if (hostHeader !== null) {
    const name = hostName(hostHeader.toLowerCase());
    // Bound to every interface, any name may reach us; the token is what guards that case.
    const wildcard = options.bindHost === "0.0.0.0" || options.bindHost === "::";
    if (!wildcard && !allowed.has(name)) {
      throw new HttpError("forbidden", `host ${excerpt(hostHeader)} is not allowed`, 403);
    }
  }
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== "null") {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname;
    } catch {
      throw new HttpError("forbidden", `origin ${excerpt(origin)} is not allowed`, 403);
    }
    const bracketed = originHost.includes(":") ? `[${originHost}]` : originHost;
    if (!allowed.has(originHost) && !allowed.has(bracketed)) {
      throw new HttpError("forbidden", `origin ${excerpt(origin)} is not allowed`, 403);
    }
  }
  const authorization = request.headers.get("authorization");
  if (authorization !== null && options.token !== undefined) {
    if (authorization !== `Bearer ${options.token}`) {
      throw new HttpError("forbidden", "the bearer token is not valid", 401, CHALLENGE);
    }
    return;
  }
  if (needsToken && !isLoopback(options.bindHost)) {
    throw new HttpError(
      "forbidden",
      "a bearer token is required (Authorization: Bearer <token>)",
      401,
      CHALLENGE,
    );
  }
}
