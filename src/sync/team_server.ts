/**
 * A team server as `vantage sync` reaches it: the catalog's HTTP route
 * (`POST /api/ops/<id>`) with the person's token and host, and what its
 * answers mean. A server that does not answer, or answers that it is busy
 * or unavailable, is asked again a few times with growing pauses; a
 * refusal (a revoked token, a missing scope, a batch it cannot take) is not
 * retried and is raised with the server's own words.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";

/** How to reach a team server. */
export interface TeamServerOptions {
  /** Its base URL (`https://team-host`). */
  url: string;
  /** The person's bearer token. */
  token: string;
  /** The machine this runs on (sent as `X-Vantage-Host`). */
  host?: string;
  /** Pauses before each retry, ms (default 0.5, 1, 2, 4 and 8 s). */
  retryDelaysMs?: readonly number[];
  /** Longest wait for one answer, ms (default 10 minutes). */
  timeoutMs?: number;
}

const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [500, 1_000, 2_000, 4_000, 8_000];

/** Statuses that say "not now" rather than "no". */
const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);

interface Envelope {
  result?: unknown;
  error?: { kind?: string; message?: string };
  operation_error?: { kind?: string; message?: string };
}

/**
 * Calls operations on a team server.
 *
 * @example
 * ```ts ignore
 * const server = new TeamServer({ url: "https://team.example", token, host: "ada-laptop" });
 * const hello = await server.call("sync.hello", new TextEncoder().encode("{}"));
 * ```
 */
export class TeamServer {
  readonly url: string;
  readonly #options: TeamServerOptions;

  constructor(options: TeamServerOptions) {
    this.url = options.url.replace(/\/+$/, "");
    this.#options = options;
  }

  /**
   * Runs `operationId` with `body` (its JSON arguments) and answers its result; raises a
   * `VantageError` naming what the server said, after retrying what may pass.
   */
  async call(
    operationId: string,
    body: Uint8Array<ArrayBuffer>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const delays = this.#options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    let last = "";
    for (let attempt = 0;; attempt++) {
      signal?.throwIfAborted();
      const outcome = await this.#once(operationId, body, signal);
      if (outcome.done) return outcome.result;
      last = outcome.reason;
      if (attempt >= delays.length) break;
      await pause(delays[attempt], signal);
    }
    throw new VantageError(
      "unavailable",
      `the team server ${this.url} did not take ${operationId} after ${
        delays.length + 1
      } tries: ${last}; run vantage sync again to go on from the last batch it acknowledged`,
      { details: { url: this.url, operation_id: operationId } },
    );
  }

  async #once(
    operationId: string,
    body: Uint8Array<ArrayBuffer>,
    signal?: AbortSignal,
  ): Promise<{ done: true; result: unknown } | { done: false; reason: string }> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      authorization: `Bearer ${this.#options.token}`,
    };
    if (this.#options.host !== undefined) headers["x-vantage-host"] = this.#options.host;
    const timeout = AbortSignal.timeout(this.#options.timeoutMs ?? 600_000);
    let response: Response;
    try {
      response = await fetch(`${this.url}/api/ops/${encodeURIComponent(operationId)}`, {
        method: "POST",
        headers,
        body,
        signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      signal?.throwIfAborted();
      if (error instanceof Deno.errors.NotCapable) {
        throw new VantageError(
          "forbidden",
          `this process may not connect to ${this.url}: set VANTAGE_TEAM_URL to it so Vantage's permission set allows its host (or run with --allow-net)`,
        );
      }
      return { done: false, reason: error instanceof Error ? error.message : String(error) };
    }
    const text = await response.text().catch(() => "");
    let envelope: Envelope | undefined;
    try {
      envelope = JSON.parse(text);
    } catch {
      envelope = undefined;
    }
    if (response.ok && envelope !== undefined && "result" in envelope) {
      return { done: true, result: envelope.result };
    }
    const problem = envelope?.error ?? envelope?.operation_error;
    const said = problem?.message ?? (text.slice(0, 200) || `HTTP ${response.status}`);
    if (TRANSIENT.has(response.status)) {
      return { done: false, reason: `HTTP ${response.status}: ${said}` };
    }
    if (response.status === 401) {
      throw new VantageError("forbidden", `the team server ${this.url} refused the token: ${said}`);
    }
    const kind = problem?.kind === "forbidden" ? "forbidden" : "operation_error";
    throw new VantageError(
      kind,
      `the team server ${this.url} refused ${operationId} (HTTP ${response.status}): ${said}`,
      { details: { status: response.status } },
    );
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
