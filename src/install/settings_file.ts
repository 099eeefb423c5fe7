/**
 * A file where Vantage keeps settings key by key beside the user's (see
 * `settings_part.ts`), as a {@linkcode ManagedFile}: JSON or JSON5 key paths
 * (Claude Code's `env`, OpenClaw's `diagnostics.otel`) or keys of a TOML
 * table (Codex's `[otel]`). Turned off, an install takes out what an earlier
 * one added, as an uninstall does.
 *
 * @module
 */
import { getJsonValue, removeJsonValue, sameJson, setJsonValue } from "./json_edit.ts";
import type { JsonFlavor } from "./json_syntax.ts";
import { jsonHas, jsonIsEmpty, type ManagedFile } from "./managed_file.ts";
import {
  applySettings,
  removeSettings,
  type SettingsEditor,
  type SettingsPlan,
} from "./settings_part.ts";
import { tomlHas } from "./toml_edit.ts";
import { tomlKeyEditor } from "./toml_keys.ts";

/** The editor of key paths in a JSON or JSON5 file. */
export function jsonSettingsEditor(flavor: JsonFlavor, file: string): SettingsEditor {
  return {
    get: (text, path) => getJsonValue(text, flavor, path, file),
    set: (text, path, value) => setJsonValue(text, flavor, path, value, file),
    remove: (text, path, prune) => removeJsonValue(text, flavor, path, file, prune),
    name: (path) => path.join("."),
    same: (a, b) => sameJson(a, b),
  };
}

/**
 * Vantage's settings in `path` (format `json`, `json5` or `toml`), present
 * while `enabled`. `plan` is asked for when needed, with `removing` true
 * when only what an install wrote must be recognised (it must not fail for
 * want of what only writing needs, such as a token).
 */
export function settingsFile(
  path: string,
  format: JsonFlavor | "toml",
  purpose: string,
  plan: (removing: boolean) => SettingsPlan,
  enabled: boolean,
): ManagedFile {
  const editor = format === "toml" ? tomlKeyEditor(path) : jsonSettingsEditor(format, path);
  const remove = (current: string, prune: Parameters<ManagedFile["remove"]>[1]) =>
    removeSettings(current, plan(true), editor, prune);
  return {
    path,
    purpose,
    format,
    install(current, prune) {
      if (!enabled) return current === undefined ? undefined : remove(current, prune);
      return applySettings(current ?? "", path, plan(false), editor, prune);
    },
    remove,
    has: (text, key) =>
      format === "toml" ? tomlHas(text, path, key) : jsonHas(text, format, key, path),
    isEmpty: (text) => format === "toml" ? text.trim() === "" : jsonIsEmpty(text, format, path),
  };
}
