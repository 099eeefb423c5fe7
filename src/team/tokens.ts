/**
 * Person tokens: 32 random bytes, base64url, behind a prefix that says what
 * they are (`vtp_`, "Vantage team person"), so one pasted into the wrong
 * place is recognisable and a secret scanner can find it. Only the SHA-256
 * of a token is stored.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** What every person token starts with. */
export const PERSON_TOKEN_PREFIX = "vtp_";

/** Random bytes in a token. */
const TOKEN_BYTES = 32;

/** A person token's exact shape: the prefix and 43 base64url characters (32 bytes). */
const TOKEN_PATTERN = /^vtp_[A-Za-z0-9_-]{43}$/;

/**
 * A new person token.
 *
 * @example
 * ```ts
 * import { issuePersonToken } from "./tokens.ts";
 * issuePersonToken().startsWith("vtp_"); // true
 * ```
 */
export function issuePersonToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const base64url = btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return PERSON_TOKEN_PREFIX + base64url;
}

/**
 * Whether `text` has a person token's shape (it may still be unknown or revoked).
 *
 * @example
 * ```ts
 * import { isPersonToken } from "./tokens.ts";
 * isPersonToken("vtp_" + "A".repeat(43)); // true
 * isPersonToken("0123abcd"); // false
 * ```
 */
export function isPersonToken(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}

/**
 * The hex SHA-256 of a token: what the store keeps and looks tokens up by.
 *
 * @example
 * ```ts
 * import { personTokenHash } from "./tokens.ts";
 * personTokenHash("vtp_x").length; // 64
 * ```
 */
export function personTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
