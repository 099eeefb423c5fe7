/**
 * Whether the value assigned to a secret-looking name is a secret, or something a program or
 * a document says in that place: a type (`password: string`), a variable or call
 * (`token = getToken()`, `api_key=api_key`), a template (`${TOKEN}`, `{{ secret }}`), a
 * placeholder (`<your-token>`, `****`, `YOUR_API_KEY`), a path or a URL.
 *
 * These rules trade a little recall for few false positives: a bare lowercase word with no
 * digit after a lowercase name (`password: letmein`) is left alone, since code and prose are
 * full of those; quoted values, digits, symbols and environment-style names count.
 *
 * @module
 */

// Words that stand where a secret would, but are not one.
const NOT_SECRETS = new Set([
  "null",
  "none",
  "nil",
  "true",
  "false",
  "undefined",
  "string",
  "str",
  "number",
  "int",
  "integer",
  "boolean",
  "bool",
  "bytes",
  "any",
  "unknown",
  "object",
  "optional",
  "required",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "tokens",
  "key",
  "apikey",
  "api_key",
  "credential",
  "credentials",
  "include",
  "omit",
  "same-origin",
  "redacted",
  "hidden",
  "masked",
  "empty",
  "default",
  "env",
  "environ",
  "prompt",
  "stdin",
  "value",
  "pass",
  "user",
  "username",
]);

// Fake values in tests and docs name what they stand for: `secret-token`, `test-key`,
// `super-secret-value`. Generated secrets do not spell these words without a digit.
const SECRET_WORD_IN_VALUE = /password|passwd|secret|token|key|cred/i;

/** How a value was written. */
export interface ValueContext {
  /** The name it is assigned to (`DB_PASSWORD`, `api_key`). */
  name: string;
  /** Whether it stood in quotes. */
  quoted: boolean;
  /** Whether the name looks like an environment variable (`OPENAI_API_KEY`). */
  envName: boolean;
}

/** Whether `value` looks like a template, placeholder, path or URL rather than a secret. */
export function isPlaceholder(value: string): boolean {
  if (value.length < 4) return true;
  const first = value[0];
  if (first === "$" || first === "%" || first === "{" || first === "<" || first === "*") {
    return true;
  }
  if (value.startsWith("[REDACTED")) return true;
  // Templates, also cut short where a bare value stops at `{` (`sk-proj-${key}`).
  if (/\$\{|\{\{|%\(|<%|\$\(|\$$/.test(value)) return true;
  if (/^(.)\1*$/.test(value)) return true;
  const lower = value.toLowerCase();
  if (NOT_SECRETS.has(lower)) return true;
  if (/^(?:your|my)[-_ ]?(?:api|secret|token|key|pass)/i.test(value)) return true;
  if (/example|placeholder|xxxx|\.\.\.|…/i.test(value)) return true;
  if (/^(?:\/|~\/|\.\.?\/|[A-Za-z]:[\\/])/.test(value)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return true;
  return false;
}

/**
 * Whether a value assigned to a secret name is a secret.
 *
 * @example
 * ```ts
 * looksLikeSecretValue("hunter2222", { name: "password", quoted: false, envName: false }); // true
 * looksLikeSecretValue("string", { name: "password", quoted: false, envName: false }); // false
 * ```
 */
export function looksLikeSecretValue(value: string, context: ValueContext): boolean {
  if (value.length < 6 || isPlaceholder(value)) return false;
  if (!/\d/.test(value) && SECRET_WORD_IN_VALUE.test(value)) return false;
  const lower = value.toLowerCase();
  const name = context.name.toLowerCase().replace(/^[-_.$@]+/, "");
  if (lower === name || name.endsWith(lower)) return false;
  if (context.quoted) {
    // A quoted string with spaces is a message ("Password is required"), not a secret.
    return !/\s/.test(value);
  }
  // Code, not a literal: calls, indexing, member access, numbers.
  if (/[([]/.test(value)) return false;
  if (/^\d{1,11}(?:\.\d+)?$/.test(value)) return false;
  const hasDigit = /\d/.test(value);
  if (!hasDigit && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  if (hasDigit || context.envName) return true;
  // No digit, lowercase name: a word (`secret: sauce`, `token=access`) unless it is long and
  // mixed like a generated key.
  return value.length >= 16 && /[A-Z]/.test(value) && /[a-z]/.test(value) ||
    value.length >= 12 && /[-_+/=!@#%^~]/.test(value) && !/^[a-z]+(?:[-_][a-z]+)*$/i.test(value);
}

/**
 * Whether a value with no telling name (after `Bearer`, in a flag, under a `*_KEY` constant)
 * looks generated: digits, or long and mixed case.
 */
export function looksGenerated(value: string): boolean {
  if (value.length < 6 || isPlaceholder(value)) return false;
  if (!/\d/.test(value) && SECRET_WORD_IN_VALUE.test(value)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) && !/\d/.test(value)) return false;
  return /\d/.test(value) || (value.length >= 16 && /[A-Z]/.test(value) && /[a-z]/.test(value));
}
