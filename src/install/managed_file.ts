/**
 * A file Vantage manages for an agent, and the four kinds there are: one JSON
 * entry at a key path, hook groups in a hooks file, one TOML table, and a
 * file Vantage owns whole (a skill, a hooks file of its own, a service unit).
 * Each knows how to add Vantage's part and how to take it out again.
 *
 * @module
 */
import { getJsonValue, newJsonDocument, removeJsonValue, setJsonValue } from "./json_edit.ts";
import { type HandlerTest, type HookGroup, setHookGroups } from "./json_hooks.ts";
import { type JsonFlavor, parseJsonDocument } from "./json_syntax.ts";
import { removeTomlTable, setTomlTable, tomlHas } from "./toml_edit.ts";

/** Says whether an object at a key path (now empty) was created by Vantage and may go. */
export type Prune = (path: readonly string[]) => boolean;

/** How a managed file is written. */
export type ManagedFormat = "json" | "json5" | "toml" | "owned";

/** One file Vantage adds its part to. */
export interface ManagedFile {
  /** Absolute path. */
  path: string;
  /** What Vantage keeps there, for messages ("MCP server", "hooks", "skill"). */
  purpose: string;
  /** How the file is written. */
  format: ManagedFormat;
  /** The file's content with Vantage's part in place (undefined: the file should not exist). */
  install(current: string | undefined, prune: Prune): string | undefined;
  /** The file's content without Vantage's part (undefined: delete the file). */
  remove(current: string, prune: Prune): string | undefined;
  /** Whether a key path exists in `text` (used to tell which objects Vantage created). */
  has(text: string, path: readonly string[]): boolean;
  /** Whether `text` holds nothing but an empty document. */
  isEmpty(text: string): boolean;
}

/**
 * A JSON (or JSON5) file where Vantage owns the value at `keyPath`, such as
 * `mcpServers.vantage` in `~/.claude.json`.
 *
 * @example
 * ```ts
 * import { jsonEntryFile } from "./managed_file.ts";
 * const file = jsonEntryFile("/h/.claude.json", "json", ["mcpServers", "vantage"], () => ({ type: "stdio" }), "MCP server");
 * file.install(undefined, () => false); // '{\n  "mcpServers": {\n    "vantage": {\n      "type": "stdio"\n    }\n  }\n}\n'
 * ```
 */
export function jsonEntryFile(
  path: string,
  flavor: JsonFlavor,
  keyPath: readonly string[],
  value: () => unknown,
  purpose: string,
): ManagedFile {
  return {
    path,
    purpose,
    format: flavor,
    install(current) {
      if (current === undefined) return newJsonDocument(keyPath, value());
      return setJsonValue(current, flavor, keyPath, value(), path);
    },
    remove(current, prune) {
      return removeJsonValue(current, flavor, keyPath, path, prune);
    },
    has: (text, key) => jsonHas(text, flavor, key, path),
    isEmpty: (text) => jsonIsEmpty(text, flavor, path),
  };
}

/**
 * A Claude-Code-shaped hooks file where Vantage keeps one matcher group per
 * event in `desired()` (an empty result removes them all).
 */
export function hooksFile(
  path: string,
  flavor: JsonFlavor,
  desired: () => Record<string, HookGroup>,
  isOurs: HandlerTest,
  purpose = "hooks",
): ManagedFile {
  return {
    path,
    purpose,
    format: flavor,
    install(current, prune) {
      return setHookGroups(current, flavor, path, desired(), isOurs, prune);
    },
    remove(current, prune) {
      return setHookGroups(current, flavor, path, {}, isOurs, prune);
    },
    has: (text, key) => jsonHas(text, flavor, key, path),
    isEmpty: (text) => jsonIsEmpty(text, flavor, path),
  };
}

/** A TOML file where Vantage owns one table (and its subtables). */
export function tomlTableFile(
  path: string,
  tablePath: readonly string[],
  block: () => string,
  purpose: string,
): ManagedFile {
  return {
    path,
    purpose,
    format: "toml",
    install(current) {
      return setTomlTable(current ?? "", path, tablePath, block());
    },
    remove(current) {
      return removeTomlTable(current, path, tablePath);
    },
    has: (text, key) => tomlHas(text, path, key),
    // Only blank lines left (a comment is the user's, and keeps the file).
    isEmpty: (text) => text.trim() === "",
  };
}

/**
 * One file holding several of Vantage's parts (Claude Code's `settings.json`:
 * hooks and telemetry settings): an install applies each part in turn, an
 * uninstall takes them out in the reverse order. The first part says how the
 * file is read (its format, `has`, `isEmpty`).
 */
export function layeredFile(first: ManagedFile, ...rest: ManagedFile[]): ManagedFile {
  const parts = [first, ...rest];
  return {
    ...first,
    install(current, prune) {
      let text = current;
      for (const part of parts) text = part.install(text, prune);
      return text;
    },
    remove(current, prune) {
      let text: string | undefined = current;
      for (const part of [...parts].reverse()) {
        if (text === undefined) break;
        text = part.remove(text, prune);
      }
      return text;
    },
  };
}

/**
 * A file Vantage owns whole. `content()` undefined means the file should not
 * exist. An uninstall deletes it only when `isOurs` recognises its text (a
 * file of the same name the user wrote stays). With `jsonCheck`, an existing
 * file that does not parse as JSON is refused rather than replaced.
 */
export function ownedFile(
  path: string,
  content: () => string | undefined,
  purpose: string,
  isOurs: (text: string) => boolean,
  jsonCheck = false,
): ManagedFile {
  return {
    path,
    purpose,
    format: "owned",
    install(current) {
      if (current !== undefined && jsonCheck) parseJsonDocument(current, "json", path);
      return content();
    },
    remove(current) {
      return isOurs(current) ? undefined : current;
    },
    has: () => true,
    isEmpty: () => false,
  };
}

/** Whether a JSON document has a value at `key`; true when it does not parse (then all is the user's). */
export function jsonHas(
  text: string,
  flavor: JsonFlavor,
  key: readonly string[],
  file: string,
): boolean {
  try {
    return getJsonValue(text, flavor, key, file) !== undefined;
  } catch {
    // An original that does not parse: treat every object as the user's, and keep it.
    return true;
  }
}

/** Whether a JSON document is nothing but `{}` (or blank). */
export function jsonIsEmpty(text: string, flavor: JsonFlavor, file: string): boolean {
  if (text.trim() === "") return true;
  try {
    const root = parseJsonDocument(text, flavor, file);
    return root.kind === "object" && root.members.length === 0 &&
      text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, "").trim() === "{}";
  } catch {
    return false;
  }
}
