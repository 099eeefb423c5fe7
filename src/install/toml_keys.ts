/**
 * Single keys of a TOML table the user owns (Codex's `[otel]`), edited one
 * line at a time: a key Vantage adds is one `key = value` line after the
 * table's last key (or a new `[table]` at the end of the file when there is
 * none), and taking it out removes exactly that line, so every other byte
 * (the user's keys, comments, layout) stays as it was.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { Prune } from "./managed_file.ts";
import { sameJson } from "./json_edit.ts";
import type { SettingsEditor, SettingValue } from "./settings_part.ts";
import {
  appendBlock,
  readTomlTable,
  refuseInlineDefinitions,
  removeTomlTable,
  renderTomlKeyValue,
} from "./toml_edit.ts";
import { parseTomlDocument, type TomlStatement } from "./toml_syntax.ts";

/**
 * The editor of keys `[table] key` in the TOML file `file`; a key path is
 * the table's path followed by the key.
 *
 * @example
 * ```ts
 * import { tomlKeyEditor } from "./toml_keys.ts";
 * const editor = tomlKeyEditor("config.toml");
 * editor.set('model = "x"\n', ["otel", "exporter"], "none");
 * // 'model = "x"\n\n[otel]\nexporter = "none"\n'
 * ```
 */
export function tomlKeyEditor(file: string): SettingsEditor {
  return {
    get: (text, path) => getTomlKey(text, file, path),
    set: (text, path, value) => setTomlKey(text, file, path, value),
    remove: (text, path, prune) => removeTomlKey(text, file, path, prune),
    name: (path) => `[${path.slice(0, -1).join(".")}] ${path[path.length - 1]}`,
    same: (a, b) => sameJson(a, b),
  };
}

function getTomlKey(text: string, file: string, path: readonly string[]): unknown {
  if (text.trim() === "") return undefined;
  const table = readTomlTable(text, file, path.slice(0, -1));
  const key = path[path.length - 1];
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

function setTomlKey(
  text: string,
  file: string,
  path: readonly string[],
  value: SettingValue,
): string {
  const table = path.slice(0, -1);
  const key = path[path.length - 1];
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const line = renderTomlKeyValue(key, value);
  const { statements } = parseTomlDocument(text, file);
  refuseInlineDefinitions(statements, table, file);
  const own = keyStatement(statements, table, key);
  if (own !== undefined) {
    return text.slice(0, own.start) + line + eol + text.slice(own.end);
  }
  if (getTomlKey(text, file, path) !== undefined) {
    throw new VantageError(
      "conflict",
      `${file}: [${table.join(".")}] ${key} is written as a table or with dotted keys; Vantage ` +
        `only changes it as one '${key} = …' line: remove it and run the command again`,
      { details: { file, key: `[${table.join(".")}] ${key}` } },
    );
  }
  const header = statements.find((s) => s.kind === "table" && samePath(s.path, table));
  if (header === undefined) {
    return appendBlock(text, `[${table.join(".")}]${eol}${line}${eol}`);
  }
  let offset = header.end;
  for (const statement of statements) {
    if (statement.kind === "keyvalue" && samePath(statement.table, table)) offset = statement.end;
  }
  const before = text.slice(0, offset);
  // The last line of a file without a final newline: the new line goes after a line break and
  // the file still ends without one (so removing the line gives the same bytes back).
  if (before !== "" && !before.endsWith("\n")) return before + eol + line + text.slice(offset);
  return before + line + eol + text.slice(offset);
}

function removeTomlKey(text: string, file: string, path: readonly string[], prune: Prune): string {
  const table = path.slice(0, -1);
  const key = path[path.length - 1];
  const { statements } = parseTomlDocument(text, file);
  const own = keyStatement(statements, table, key);
  if (own === undefined) return text;
  let start = own.start;
  if (own.end === text.length && !text.endsWith("\n") && start > 0) {
    // The file's last line, without a final newline: the line break before it goes with it.
    start -= text.slice(0, start).endsWith("\r\n") ? 2 : 1;
  }
  const result = text.slice(0, start) + text.slice(own.end);
  if (!prune(table)) return result;
  // The table was Vantage's: once nothing is left in it, its header goes too.
  const left = parseTomlDocument(result, file).statements;
  const inside = left.some((s) =>
    (s.kind === "keyvalue" && startsWith(s.table, table)) ||
    (s.kind !== "keyvalue" && startsWith(s.path, table) && s.path.length > table.length)
  );
  return inside ? result : removeTomlTable(result, file, table);
}

/** The one-line `key = …` statement of `[table]`, if the key is written so. */
function keyStatement(
  statements: readonly TomlStatement[],
  table: readonly string[],
  key: string,
): TomlStatement | undefined {
  return statements.find((s) =>
    s.kind === "keyvalue" && samePath(s.table, table) && s.path.length === 1 && s.path[0] === key
  );
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, index) => key === b[index]);
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return path.length >= prefix.length && prefix.every((key, index) => path[index] === key);
}
