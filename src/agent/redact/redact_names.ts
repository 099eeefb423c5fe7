/**
 * Which names hold secrets: `DB_PASSWORD`, `api_key`, `X-Api-Key`, `clientSecret`,
 * `aws_secret_access_key`, `AccountKey`, `sig`. Used for object keys in JSON payloads and for
 * the names in `NAME=value`, `name: value` and `--name value` text.
 *
 * The secret word must end the name, so `max_tokens`, `token_count`, `password_hint` and
 * `tokenizer` are ordinary names.
 *
 * @module
 */

/** The marker kinds a secret name maps to (`key`: the weak `*_KEY` kind, see below). */
export type SecretNameKind =
  | "password"
  | "api_key"
  | "token"
  | "secret"
  | "authorization"
  | "cookie"
  | "key";

/** The words a secret name ends with (in any case); the prefilter looks for them. */
export const SECRET_WORDS: readonly string[] = [
  "password",
  "passwd",
  "passphrase",
  "pwd",
  "secret",
  "token",
  "key",
  "credential",
  "credentials",
  "authorization",
  "auth",
  "signature",
  "sig",
  "cookie",
];

// What may stand before `key` for the name to hold a secret: `apiKey`, `secret_key`,
// `AccountKey`, `Ocp-Apim-Subscription-Key`. A bare `key` (cache keys, React keys, sort keys)
// is not one.
const KEY_OWNERS = [
  "api",
  "access",
  "secret",
  "private",
  "account",
  "signing",
  "encryption",
  "decryption",
  "master",
  "app",
  "auth",
  "client",
  "service",
  "admin",
  "subscription",
  "hmac",
  "jwt",
];

// `*_KEY` environment variables hold secrets unless they name one of these public things.
const PUBLIC_KEY_OWNERS = new Set([
  "public",
  "publishable",
  "primary",
  "foreign",
  "sort",
  "cache",
  "partition",
  "idempotency",
  "routing",
  "lookup",
  "hash",
  "shard",
  "row",
  "ssh",
  "gpg",
  "kms",
  "license",
  "site",
  "map",
]);

/** `DB_PASSWORD`, `OPENAI_API_KEY`: an environment variable's shape. */
export function isEnvStyle(name: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(name) && name.length > 1;
}

/**
 * The kind of secret a name holds, or undefined when its value is not a secret. `key` is the
 * weak kind: an `*_KEY` environment-style name, which in code is as often a constant's name
 * (`CACHE_KEY = "user"`), so its value must look generated.
 *
 * @example
 * ```ts
 * secretNameKind("DB_PASSWORD"); // "password"
 * secretNameKind("max_tokens"); // undefined
 * ```
 */
export function secretNameKind(name: string): SecretNameKind | undefined {
  const trimmed = name.replace(/^[-_.$@]+/, "");
  const lower = trimmed.toLowerCase();
  const compact = lower.replace(/[^a-z0-9]/g, "");
  if (compact === "") return undefined;
  if (compact.endsWith("authorization")) return "authorization";
  if (compact.endsWith("cookie")) return "cookie";
  if (/(?:password|passwd|passphrase)$/.test(compact)) return "password";
  if (compact.endsWith("pwd")) {
    return compact === "pwd" || compact === "oldpwd" ? undefined : "password";
  }
  if (compact.endsWith("secret")) return "secret";
  if (compact.endsWith("token")) return "token";
  if (/credentials?$/.test(compact)) return "secret";
  // A presigned URL's signature grants access; other signatures (a thinking block's, a
  // commit's) are not secrets.
  if (/(?:amz|goog)signature$/.test(compact) || compact === "sig") return "secret";
  if (compact.endsWith("auth")) return authAtBoundary(trimmed) ? "secret" : undefined;
  if (compact.endsWith("key")) {
    const owner = compact.slice(0, -3);
    if (owner.endsWith("api")) return "api_key";
    if (KEY_OWNERS.some((word) => owner.endsWith(word))) return "secret";
    if (isEnvStyle(trimmed) && /_KEY$/.test(trimmed)) {
      const parts = lower.split("_");
      const before = parts[parts.length - 2] ?? "";
      return before === "" || PUBLIC_KEY_OWNERS.has(before) ? undefined : "key";
    }
  }
  return undefined;
}

// `auth`, `_auth`, `basic_auth`, `basicAuth`, `HTTP_AUTH` — but not `oauth` or `author`.
function authAtBoundary(name: string): boolean {
  if (name.length === 4) return true;
  const before = name[name.length - 5];
  const first = name[name.length - 4];
  if (before === "_" || before === "-" || before === ".") return true;
  return first === "A" && before >= "a" && before <= "z";
}
