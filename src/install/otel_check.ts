/**
 * `vantage doctor`'s telemetry check, for an agent whose config holds the
 * settings `vantage install --otel` writes (Claude Code, Codex, OpenClaw).
 *
 * Telemetry is opt-in, so an agent without any of them gets no check. With
 * them, each setting the install requires must hold the value an install
 * would write now: when `serve` moved (another `VANTAGE_URL` or port) or a
 * key was edited, the agent exports into the void without a word, and this
 * is where the user learns it. A setting of the user's that would send a
 * signal elsewhere fails too. Then one empty OTLP export, with the
 * credentials the settings carry, shows that `serve` takes what the agent
 * will send: a refused token is found here, not after a week of missing
 * figures. An empty export stores nothing.
 *
 * @module
 */
import type { AgentAdapter, TelemetrySettings } from "./agent.ts";
import type { DoctorCheck } from "./doctor_check.ts";
import type { InstallEnvironment } from "./environment.ts";
import { readTextIfExists } from "./file_io.ts";
import type { Setting, SettingsEditor } from "./settings_part.ts";
import { jsonSettingsEditor } from "./settings_file.ts";
import { tomlKeyEditor } from "./toml_keys.ts";

const NAME = "telemetry";

/**
 * The telemetry check of one agent, or undefined when it keeps no telemetry
 * settings or has none of Vantage's. `timeoutMs` bounds the test export.
 */
export async function checkTelemetrySettings(
  environment: InstallEnvironment,
  adapter: AgentAdapter,
  timeoutMs: number,
): Promise<DoctorCheck | undefined> {
  const settings = adapter.telemetrySettings?.(environment);
  if (settings === undefined) return undefined;
  const text = await readTextIfExists(settings.file);
  if (text === undefined || text.trim() === "") return undefined;
  const editor = settings.format === "toml"
    ? tomlKeyEditor(settings.file)
    : jsonSettingsEditor(settings.format, settings.file);
  let problem: string | undefined;
  try {
    const required = settings.plan.settings.filter((setting) => setting.mode === "require");
    const found = required.map((setting) => ({ setting, value: editor.get(text, setting.path) }));
    if (found.every(({ value }) => value === undefined)) return undefined;
    problem = settingsProblem(found, editor) ?? redirected(settings, text, editor);
  } catch (error) {
    // The config check reports a file that does not parse; this one need not say it twice.
    return {
      name: NAME,
      status: "fail",
      detail: error instanceof Error ? error.message : String(error),
      fix: "fix the file at that line, then run `vantage doctor` again",
    };
  }
  if (problem !== undefined) {
    return {
      name: NAME,
      status: "fail",
      detail:
        `${problem}, so the agent's telemetry does not reach serve at ${settings.target.endpoint}`,
      fix: `vantage install --adapter ${adapter.name} --otel (with VANTAGE_URL or VANTAGE_PORT ` +
        "set as serve listens)",
    };
  }
  const authorization = settings.sentHeader((path) => editor.get(text, path));
  return await tryExport(settings, authorization, adapter, timeoutMs);
}

/** The first required setting that is missing or holds another value, in words. */
function settingsProblem(
  found: ReadonlyArray<{ setting: Setting; value: unknown }>,
  editor: SettingsEditor,
): string | undefined {
  const wrong = found.filter(({ setting, value }) =>
    value === undefined || !editor.same(value, setting.value)
  );
  if (wrong.length === 0) return undefined;
  const [{ setting, value }] = wrong;
  const more = wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : "";
  return value === undefined
    ? `${editor.name(setting.path)} is missing${more}`
    : `${editor.name(setting.path)} is ${shown(setting.path, value)}, not ${
      shown(setting.path, setting.value)
    }${more}`;
}

/**
 * A setting of the user's that sends a signal elsewhere (or turns the exporter off), in
 * words. Guards on headers are left out: with Vantage's token written they are Vantage's.
 */
function redirected(
  settings: TelemetrySettings,
  text: string,
  editor: SettingsEditor,
): string | undefined {
  for (const guard of settings.plan.guards ?? []) {
    if (/headers$/i.test(guard.path[guard.path.length - 1])) continue;
    const value = editor.get(text, guard.path);
    if (value !== undefined && guard.refuses(value)) {
      return `${editor.name(guard.path)} is ${shown(guard.path, value)}, ${guard.why}`;
    }
  }
  return undefined;
}

/** Sends `serve` an empty log export with the header the agent sends. */
async function tryExport(
  settings: TelemetrySettings,
  authorization: string | undefined,
  adapter: AgentAdapter,
  timeoutMs: number,
): Promise<DoctorCheck> {
  const { endpoint } = settings.target;
  const url = `${endpoint}/v1/logs`;
  const where = `exports to ${endpoint} (${settings.file})`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(authorization === undefined ? {} : { authorization }),
      },
      body: JSON.stringify({ resourceLogs: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
  } catch {
    // The server check warns that serve is not running; an export can only be tried with it.
    return {
      name: NAME,
      status: "ok",
      detail: `${where}; serve is not running, so no export was tried`,
    };
  }
  if (response.ok) {
    return { name: NAME, status: "ok", detail: `${where}, and serve took a test export` };
  }
  if (response.status === 401 || response.status === 403) {
    return {
      name: NAME,
      status: "fail",
      detail: `serve refuses the agent's exports to ${url} (HTTP ${response.status}): ` +
        (authorization === undefined
          ? "the settings carry no token"
          : "the settings' token is not serve's"),
      fix: `VANTAGE_TOKEN=<serve's token> vantage install --adapter ${adapter.name} --otel`,
    };
  }
  return {
    name: NAME,
    status: "warn",
    detail: `${url} answered a test export with HTTP ${response.status}`,
    fix: "check `vantage serve`'s log; is another program using that port?",
  };
}

/** A setting's value for a message; headers (they carry a token) are never shown. */
function shown(path: readonly string[], value: unknown): string {
  if (path.some((key) => /headers/i.test(key))) return "set (its value not shown)";
  const text = typeof value === "string"
    ? `'${value}'`
    : JSON.stringify(value, (key, inner) => /headers/i.test(key) ? "(not shown)" : inner);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}
