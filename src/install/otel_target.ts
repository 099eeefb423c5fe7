/**
 * Where `vantage install --otel` points an agent's telemetry: the running
 * `serve`, found the way the hook finds it (`VANTAGE_URL`, else
 * `http://127.0.0.1:<VANTAGE_PORT|14300>`), and the bearer token it needs
 * when that address is not loopback (`VANTAGE_TOKEN`, else the token `serve`
 * generated into the data home). On loopback no token is written: `serve`
 * does not ask for one there, and a token copied into an agent's settings
 * would be one more place it can leak from.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PORT } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import type { InstallEnvironment } from "./environment.ts";

/** The OTLP/HTTP endpoint an agent exports to. */
export interface OtelTarget {
  /** The base URL (`…/v1/traces` and the others are below it), without a trailing slash. */
  endpoint: string;
  /** `Bearer <token>` when the endpoint is not loopback. */
  authorization?: string;
}

/**
 * The endpoint and credentials for an install's environment. Throws when the
 * endpoint is not loopback and no token is known, unless `lenient` (an
 * uninstall, which only needs to recognise what an install wrote: without
 * the token, everything but the headers).
 *
 * @example
 * ```ts ignore
 * otelTarget(environment).endpoint; // "http://127.0.0.1:14300"
 * ```
 */
export function otelTarget(environment: InstallEnvironment, lenient = false): OtelTarget {
  const endpoint = otelEndpoint(environment);
  if (isLoopbackUrl(endpoint)) return { endpoint };
  const token = environment.variables.VANTAGE_TOKEN ?? storedToken(environment.dataHome);
  if (token === undefined || token === "") {
    if (lenient) return { endpoint };
    throw new VantageError(
      "invalid_arguments",
      `${endpoint} is not a loopback address, so serve wants its bearer token there, and none ` +
        `is known: set VANTAGE_TOKEN, or start serve once with this data home so it writes ` +
        `${join(environment.dataHome, "token")}, and run install --otel again`,
    );
  }
  return { endpoint, authorization: `Bearer ${token}` };
}

/** The base URL of `serve` for an install: `VANTAGE_URL`, else loopback and the port. */
export function otelEndpoint(environment: InstallEnvironment): string {
  const explicit = environment.variables.VANTAGE_URL;
  if (explicit !== undefined && explicit.trim() !== "") return explicit.trim().replace(/\/+$/, "");
  const raw = environment.variables.VANTAGE_PORT;
  const port = raw === undefined ? DEFAULT_PORT : Number(raw);
  const valid = Number.isInteger(port) && port > 0 && port < 65536;
  return `http://127.0.0.1:${valid ? port : DEFAULT_PORT}`;
}

/** Whether a URL's host is this machine only (127.0.0.0/8, `localhost`, `::1`). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host === "[::1]" || host === "::1" ||
    /^127\.\d+\.\d+\.\d+$/.test(host);
}

function storedToken(dataHome: string): string | undefined {
  try {
    return readFileSync(join(dataHome, "token"), "utf8").trim();
  } catch {
    return undefined;
  }
}
