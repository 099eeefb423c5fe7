/**
 * Fetching an artifact by URL for storage, with an optional `sha256:<hex>`
 * checksum the bytes must match. Only http and https are fetched, only hosts
 * this process may reach (Deno's net permission), and only up to a size cap.
 *
 * @module
 */
import { posix } from "node:path";
import { concatBytes } from "../core/bytes.ts";
import { VantageError } from "../core/errors.ts";
import { sha256Hex } from "./content_hash.ts";
import { mayConnect } from "./path_access.ts";

/** Largest download accepted by default: 256 MiB. */
export const MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024;

/** What was fetched. */
export interface Downloaded {
  /** The bytes. */
  bytes: Uint8Array;
  /** A file name for it (from Content-Disposition or the URL). */
  name: string;
  /** The URL after redirects. */
  url: string;
  /** The Content-Type header, if any. */
  content_type: string | null;
  /** Whether a checksum was given and matched. */
  verified: boolean;
}

/** Options of {@linkcode downloadArtifact}. */
export interface DownloadOptions {
  /** `sha256:<64 hex>` the bytes must hash to. */
  checksum?: string;
  /** Byte cap. */
  maxBytes?: number;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/**
 * Downloads `url`.
 *
 * @example
 * ```ts ignore
 * const artifact = await downloadArtifact("http://127.0.0.1:8000/data.csv", {
 *   checksum: "sha256:…",
 * });
 * ```
 */
export async function downloadArtifact(
  url: string,
  options: DownloadOptions = {},
): Promise<Downloaded> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new VantageError("invalid_arguments", `'${url}' is not a URL`, { details: { url } });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new VantageError(
      "invalid_arguments",
      `only http and https URLs can be downloaded; got ${parsed.protocol}`,
      { details: { url } },
    );
  }
  const expected = parseChecksum(options.checksum);
  if (!mayConnect(parsed.host) && !mayConnect(parsed.hostname)) {
    throw new VantageError(
      "forbidden",
      `network access to ${parsed.host} was refused: this process may not connect there ` +
        `(run with --allow-net for that host)`,
      { details: { url, host: parsed.host } },
    );
  }
  let response: Response;
  try {
    response = await fetch(parsed, { redirect: "follow", signal: options.signal });
  } catch (error) {
    throw new VantageError(
      "unavailable",
      `downloading ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
      { details: { url } },
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new VantageError("unavailable", `downloading ${url} returned HTTP ${response.status}`, {
      details: { url, status: response.status },
    });
  }
  const bytes = await readCapped(response, options.maxBytes ?? MAX_DOWNLOAD_BYTES, url);
  let verified = false;
  if (expected !== undefined) {
    const actual = sha256Hex(bytes);
    if (actual !== expected) {
      throw new VantageError(
        "conflict",
        `checksum mismatch for ${url}: expected sha256:${expected}, got sha256:${actual}; nothing was stored`,
        { details: { url, expected, actual } },
      );
    }
    verified = true;
  }
  return {
    bytes,
    name: fileNameFor(response, response.url || url),
    url: response.url || url,
    content_type: response.headers.get("content-type"),
    verified,
  };
}

/** Parses `sha256:<hex>` (or bare hex); undefined when no checksum was given. */
export function parseChecksum(checksum: string | undefined): string | undefined {
  if (checksum === undefined || checksum === "") return undefined;
  const match = /^(?:sha256:)?([0-9a-fA-F]{64})$/.exec(checksum.trim());
  if (match === null) {
    throw new VantageError(
      "invalid_arguments",
      `checksum '${checksum}' must be sha256:<64 hex characters>`,
      { details: { checksum } },
    );
  }
  return match[1].toLowerCase();
}

async function readCapped(response: Response, cap: number, url: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > cap) {
    await response.body?.cancel();
    throw new VantageError("invalid_arguments", `${url} is ${declared} bytes; the limit is ${cap}`);
  }
  const pieces: Uint8Array[] = [];
  let total = 0;
  if (response.body !== null) {
    for await (const piece of response.body) {
      total += piece.length;
      if (total > cap) {
        throw new VantageError("invalid_arguments", `${url} is larger than the ${cap}-byte limit`);
      }
      pieces.push(piece);
    }
  }
  return concatBytes(pieces, total);
}

function fileNameFor(response: Response, url: string): string {
  const disposition = response.headers.get("content-disposition") ?? "";
  const quoted = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  if (quoted !== null) {
    const name = posix.basename(decodeURIComponent(quoted[1]).replaceAll("\\", "/"));
    if (name !== "" && name !== "." && name !== "..") return name;
  }
  const parsed = new URL(url);
  const last = posix.basename(decodeURIComponent(parsed.pathname));
  return last !== "" && last !== "/" ? last : parsed.hostname;
}
