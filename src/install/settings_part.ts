/**
 * Settings Vantage adds beside the user's own, key by key, in a file it
 * shares with them: Claude Code's `env` entries, OpenClaw's
 * `diagnostics.otel`, Codex's `[otel]` keys. The user's settings are never
 * overwritten in silence. A key Vantage needs (`require`) that the user set
 * to something else stops the install with a message naming it; a key that
 * only tunes (`default`, an export interval) keeps the user's value. A key
 * the user set to exactly Vantage's value stays theirs. What an uninstall
 * takes out is only what Vantage added: a key absent from the file before
 * Vantage first changed it and still holding Vantage's value.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { excerpt } from "../core/limits.ts";
import type { Prune } from "./managed_file.ts";

/** A value Vantage writes as a setting (JSON or TOML). */
export type SettingValue =
  | string
  | number
  | boolean
  | SettingValue[]
  | { [key: string]: SettingValue };

/** One setting Vantage wants in a file. */
export interface Setting {
  /** Its key path in the file. */
  path: readonly string[];
  /** Its value. */
  value: SettingValue;
  /**
   * `require`: a different value of the user's stops the install (the telemetry would not reach
   * Vantage); `default`: the user's value is kept.
   */
  mode: "require" | "default";
}

/** A setting Vantage does not write but that, when the user has it, stops the install. */
export interface SettingGuard {
  /** Its key path in the file. */
  path: readonly string[];
  /** Whether the user's value stops the install (the key is present). */
  refuses: (value: unknown) => boolean;
  /** Why, as the end of a sentence naming the key. */
  why: string;
}

/** What Vantage wants in a file: its settings and the guards checked first. */
export interface SettingsPlan {
  /** The settings, in the order they are written. */
  settings: Setting[];
  /** Settings of the user's that stop the install. */
  guards?: SettingGuard[];
}

/** The edits a file format offers to {@linkcode applySettings} and {@linkcode removeSettings}. */
export interface SettingsEditor {
  /** The value at a key path, undefined when absent. */
  get(text: string, path: readonly string[]): unknown;
  /** The text with `path` set to `value` (created or replaced). */
  set(text: string, path: readonly string[], value: SettingValue): string;
  /** The text without the key at `path`, parents Vantage created pruned when left empty. */
  remove(text: string, path: readonly string[], prune: Prune): string;
  /** How a key path is named in messages (`env.OTEL_EXPORTER_OTLP_ENDPOINT`, `[otel] exporter`). */
  name(path: readonly string[]): string;
  /** Whether two values are the same setting. */
  same(a: unknown, b: SettingValue): boolean;
}

/**
 * Puts `plan`'s settings into `text`, keeping the user's own as described
 * above; returns `text` itself when everything is already in place. Throws
 * a `conflict` naming the key when the user's settings stand in the way.
 */
export function applySettings(
  text: string,
  file: string,
  plan: SettingsPlan,
  editor: SettingsEditor,
  prune: Prune,
): string {
  for (const guard of plan.guards ?? []) {
    const value = editor.get(text, guard.path);
    // A key an earlier install of Vantage's wrote is not the user's setting.
    if (value !== undefined && guard.refuses(value) && !prune(guard.path)) {
      throw new VantageError(
        "conflict",
        `${file}: ${editor.name(guard.path)} is set (${shown(guard.path, value)}), ${guard.why}; ` +
          "Vantage does not change your telemetry settings: remove it and run the install " +
          "again, or install without --otel",
        { details: { file, key: editor.name(guard.path) } },
      );
    }
  }
  let result = text;
  for (const setting of plan.settings) {
    const current = editor.get(result, setting.path);
    if (current === undefined) {
      result = editor.set(result, setting.path, setting.value);
      continue;
    }
    if (editor.same(current, setting.value)) continue;
    // Vantage's own from an earlier install (the port changed since): it may be updated.
    if (prune(setting.path)) {
      result = editor.set(result, setting.path, setting.value);
      continue;
    }
    if (setting.mode === "default") continue;
    throw new VantageError(
      "conflict",
      `${file}: ${editor.name(setting.path)} is already set (${
        shown(setting.path, current)
      }), and Vantage would set it to ${shown(setting.path, setting.value)}; ` +
        "Vantage does not change your telemetry settings: remove the key (or set it so yourself) " +
        "and run the install again, or install without --otel",
      { details: { file, key: editor.name(setting.path) } },
    );
  }
  return result;
}

/**
 * Takes out of `text` the settings of `plan` Vantage added (absent from the
 * original, as `prune` tells, and still holding Vantage's value), last first.
 */
export function removeSettings(
  text: string,
  plan: SettingsPlan,
  editor: SettingsEditor,
  prune: Prune,
): string {
  let result = text;
  for (const setting of [...plan.settings].reverse()) {
    const current = editor.get(result, setting.path);
    if (current === undefined || !prune(setting.path)) continue;
    if (!editor.same(current, setting.value)) continue;
    result = editor.remove(result, setting.path, prune);
  }
  return result;
}

/** A value for a message: secrets (headers, tokens) are never printed. */
function shown(path: readonly string[], value: unknown): string {
  if (path.some((key) => /header|token|authori[sz]ation|secret|key$/i.test(key))) {
    return "value not shown";
  }
  return typeof value === "string"
    ? excerpt(value, 120)
    : excerpt(JSON.stringify(value) ?? String(value), 120);
}
