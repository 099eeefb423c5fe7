/**
 * The telemetry settings `vantage install --otel` writes for each agent,
 * all pointing at `serve`'s OTLP/HTTP intake with binary protobuf:
 *
 * - Claude Code: the `env` block of `settings.json` (Claude Code exports
 *   those variables to itself at start): telemetry on, OTLP logs, metrics
 *   and traces (with `CLAUDE_CODE_ENHANCED_TELEMETRY_BETA`, whose spans carry
 *   time to first token), export every 5 s (logs, traces) and 10 s
 *   (metrics) instead of the SDK's 60 s for metrics.
 * - Codex: `exporter`, `trace_exporter` and `metrics_exporter` in `[otel]` of
 *   `config.toml`, each with its whole `/v1/<signal>` URL (Codex appends no
 *   path) and `protocol = "binary"` (Codex's spelling).
 * - OpenClaw: the `diagnostics-otel` plugin's entry and `diagnostics.otel`
 *   (traces, metrics and logs to the endpoint; OpenClaw appends the paths).
 *
 * @module
 */
import type { JsonFlavor } from "./json_syntax.ts";
import type { TelemetrySettings } from "./agent.ts";
import type { InstallEnvironment } from "./environment.ts";
import { type OtelTarget, otelTarget } from "./otel_target.ts";
import type { SettingGuard, SettingsPlan } from "./settings_part.ts";

/** Per-signal overrides that would send a signal elsewhere: the user's stop the install. */
const SIGNAL_OVERRIDES = ["LOGS", "METRICS", "TRACES"].flatMap((signal) =>
  ["ENDPOINT", "PROTOCOL", "HEADERS"].map((what) => `OTEL_EXPORTER_OTLP_${signal}_${what}`)
);

/** Claude Code's `settings.json` `env` entries. */
export function claudeCodeOtelPlan(target: OtelTarget): SettingsPlan {
  const env = (name: string) => ["env", name] as const;
  const guards: SettingGuard[] = SIGNAL_OVERRIDES.map((name) => ({
    path: env(name),
    refuses: () => true,
    why: "which would send that signal somewhere other than Vantage",
  }));
  if (target.authorization === undefined) {
    guards.push({
      path: env("OTEL_EXPORTER_OTLP_HEADERS"),
      refuses: () => true,
      why: "headers meant for another collector, which Vantage would receive",
    });
  }
  return {
    guards,
    settings: [
      { path: env("CLAUDE_CODE_ENABLE_TELEMETRY"), value: "1", mode: "require" },
      { path: env("OTEL_LOGS_EXPORTER"), value: "otlp", mode: "require" },
      { path: env("OTEL_METRICS_EXPORTER"), value: "otlp", mode: "require" },
      { path: env("OTEL_TRACES_EXPORTER"), value: "otlp", mode: "default" },
      { path: env("CLAUDE_CODE_ENHANCED_TELEMETRY_BETA"), value: "1", mode: "default" },
      { path: env("OTEL_EXPORTER_OTLP_PROTOCOL"), value: "http/protobuf", mode: "require" },
      { path: env("OTEL_EXPORTER_OTLP_ENDPOINT"), value: target.endpoint, mode: "require" },
      ...(target.authorization === undefined ? [] : [{
        path: env("OTEL_EXPORTER_OTLP_HEADERS"),
        value: `Authorization=${target.authorization}`,
        mode: "require" as const,
      }]),
      { path: env("OTEL_LOGS_EXPORT_INTERVAL"), value: "5000", mode: "default" },
      { path: env("OTEL_METRIC_EXPORT_INTERVAL"), value: "10000", mode: "default" },
      { path: env("OTEL_TRACES_EXPORT_INTERVAL"), value: "5000", mode: "default" },
    ],
  };
}

/** Codex's `[otel]` keys. */
export function codexOtelPlan(target: OtelTarget): SettingsPlan {
  const exporter = (signal: string) => ({
    "otlp-http": {
      endpoint: `${target.endpoint}/v1/${signal}`,
      protocol: "binary",
      ...(target.authorization === undefined
        ? {}
        : { headers: { Authorization: target.authorization } }),
    },
  });
  return {
    settings: [
      { path: ["otel", "exporter"], value: exporter("logs"), mode: "require" },
      { path: ["otel", "trace_exporter"], value: exporter("traces"), mode: "require" },
      { path: ["otel", "metrics_exporter"], value: exporter("metrics"), mode: "require" },
    ],
  };
}

/** OpenClaw's `diagnostics-otel` plugin entry and `diagnostics.otel`. */
export function openclawOtelPlan(target: OtelTarget): SettingsPlan {
  const otel = (key: string) => ["diagnostics", "otel", key] as const;
  return {
    guards: [
      {
        path: ["diagnostics", "enabled"],
        refuses: (value) => value === false,
        why: "and diagnostics-otel exports nothing while diagnostics are off",
      },
      ...["tracesEndpoint", "metricsEndpoint", "logsEndpoint"].map((key) => ({
        path: otel(key),
        refuses: () => true,
        why: "which would send that signal somewhere other than Vantage",
      })),
      ...(target.authorization === undefined
        ? [{
          path: otel("headers"),
          refuses: () => true,
          why: "headers meant for another collector, which Vantage would receive",
        }]
        : []),
    ],
    settings: [
      { path: ["plugins", "entries", "diagnostics-otel", "enabled"], value: true, mode: "require" },
      { path: otel("enabled"), value: true, mode: "require" },
      { path: otel("endpoint"), value: target.endpoint, mode: "require" },
      { path: otel("protocol"), value: "http/protobuf", mode: "require" },
      ...(target.authorization === undefined ? [] : [{
        path: otel("headers"),
        value: { Authorization: target.authorization },
        mode: "require" as const,
      }]),
      { path: otel("traces"), value: true, mode: "default" },
      { path: otel("metrics"), value: true, mode: "default" },
      { path: otel("logs"), value: true, mode: "default" },
    ],
  };
}

/** The value of an `Authorization` entry in a record of headers, whatever its case. */
function headerOf(headers: unknown): string | undefined {
  if (headers === null || typeof headers !== "object") return undefined;
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === "authorization");
  return typeof entry?.[1] === "string" ? entry[1] : undefined;
}

/** Claude Code's `Authorization` header: in `OTEL_EXPORTER_OTLP_HEADERS`, `name=value,…`. */
export function claudeCodeOtelAuthorization(
  read: (path: readonly string[]) => unknown,
): string | undefined {
  const list = read(["env", "OTEL_EXPORTER_OTLP_HEADERS"]);
  if (typeof list !== "string") return undefined;
  const pairs = list.split(",").map((pair) => pair.split("=")).map(([name, ...value]) =>
    [name.trim(), percentDecoded(value.join("=").trim())] as const
  );
  return headerOf(Object.fromEntries(pairs));
}

/** Codex's `Authorization` header: in its log exporter's `headers`. */
export function codexOtelAuthorization(
  read: (path: readonly string[]) => unknown,
): string | undefined {
  const exporter = read(["otel", "exporter"]);
  if (exporter === null || typeof exporter !== "object") return undefined;
  const http = (exporter as Record<string, unknown>)["otlp-http"];
  return http !== null && typeof http === "object"
    ? headerOf((http as Record<string, unknown>).headers)
    : undefined;
}

/** OpenClaw's `Authorization` header: in `diagnostics.otel.headers`. */
export function openclawOtelAuthorization(
  read: (path: readonly string[]) => unknown,
): string | undefined {
  return headerOf(read(["diagnostics", "otel", "headers"]));
}

/** An OTel header value decoded as the SDK does (`%20` and the like), or as written when malformed. */
function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** One agent's telemetry settings: what an install writes, and the header its exports carry. */
export interface OtelSettingsKind {
  /** The settings for a target. */
  plan(target: OtelTarget): SettingsPlan;
  /** The `Authorization` header in the settings, found through `read`. */
  sentHeader(read: (path: readonly string[]) => unknown): string | undefined;
}

/** Claude Code's telemetry settings. */
export const CLAUDE_CODE_OTEL: OtelSettingsKind = {
  plan: claudeCodeOtelPlan,
  sentHeader: claudeCodeOtelAuthorization,
};

/** Codex's telemetry settings. */
export const CODEX_OTEL: OtelSettingsKind = {
  plan: codexOtelPlan,
  sentHeader: codexOtelAuthorization,
};

/** OpenClaw's telemetry settings. */
export const OPENCLAW_OTEL: OtelSettingsKind = {
  plan: openclawOtelPlan,
  sentHeader: openclawOtelAuthorization,
};

/**
 * An agent's telemetry settings in `file` as `doctor` compares them: built for `serve` as
 * this environment finds it, leniently (no token needed).
 */
export function telemetrySettingsIn(
  environment: InstallEnvironment,
  file: string,
  format: JsonFlavor | "toml",
  kind: OtelSettingsKind,
): TelemetrySettings {
  const target = otelTarget(environment, true);
  return { file, format, target, plan: kind.plan(target), sentHeader: kind.sentHeader };
}
