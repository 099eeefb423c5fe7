/**
 * SHA-256 content addresses. Documents and chunks are identified by the lowercase hex SHA-256 of
 * their bytes, so equal content is stored once and any copy can be verified.
 *
 * @module
 */

import { createHash, type Hash } from "node:crypto";

/** Length of a full content hash in hex characters. */
export const CONTENT_HASH_LENGTH = 64;

/** Shortest hash prefix accepted when a caller abbreviates a content hash. */
export const MIN_HASH_PREFIX_LENGTH = 8;

/**
 * Returns the lowercase hex SHA-256 of `data`; strings are hashed as UTF-8.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./content_hash.ts";
 *
 * sha256Hex("abc"); // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * ```
 */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Incremental SHA-256 for content that arrives in pieces (a file hashed while it is chunked).
 * After {@linkcode ContentHasher.digestHex} the hasher is spent and further calls throw.
 *
 * @example
 * ```ts
 * import { ContentHasher } from "./content_hash.ts";
 *
 * const hasher = new ContentHasher();
 * hasher.update("a").update("bc");
 * hasher.digestHex(); // same as sha256Hex("abc")
 * ```
 */
export class ContentHasher {
  #hash: Hash = createHash("sha256");
  #bytes = 0;
  #done = false;

  /** Number of bytes hashed so far (strings count as their UTF-8 length). */
  get byteLength(): number {
    return this.#bytes;
  }

  /** Adds the next piece of content; returns `this` so calls can be chained. */
  update(data: Uint8Array | string): this {
    if (this.#done) throw new Error("ContentHasher.update called after digestHex()");
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    this.#hash.update(bytes);
    this.#bytes += bytes.length;
    return this;
  }

  /** Finishes hashing and returns the lowercase hex digest. */
  digestHex(): string {
    if (this.#done) throw new Error("ContentHasher.digestHex called twice");
    this.#done = true;
    return this.#hash.digest("hex");
  }
}

/**
 * True when `value` is a full lowercase hex SHA-256 (64 characters).
 *
 * @example
 * ```ts
 * import { isContentHash, sha256Hex } from "./content_hash.ts";
 *
 * isContentHash(sha256Hex("x")); // true
 * isContentHash("abc"); // false
 * ```
 */
export function isContentHash(value: string): boolean {
  return value.length === CONTENT_HASH_LENGTH && /^[0-9a-f]+$/.test(value);
}

/**
 * True when `value` can abbreviate a content hash: 8 to 64 hex characters. Upper case is
 * accepted because people paste hashes from many tools; compare after lowercasing.
 *
 * @example
 * ```ts
 * import { isHashPrefix } from "./content_hash.ts";
 *
 * isHashPrefix("BA7816BF"); // true
 * isHashPrefix("ba78"); // false: too short to be unambiguous in practice
 * ```
 */
export function isHashPrefix(value: string): boolean {
  return value.length >= MIN_HASH_PREFIX_LENGTH && value.length <= CONTENT_HASH_LENGTH &&
    /^[0-9a-fA-F]+$/.test(value);
}
