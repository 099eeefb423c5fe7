/**
 * The dashboard's files, embedded in the program through text imports (no
 * build step, nothing fetched from elsewhere at run time), keyed by the path
 * they are served at. uPlot comes from its npm package, pinned in deno.json.
 *
 * @module
 */
import uplotCss from "uplot/dist/uPlot.min.css" with { type: "text" };
import uplotJs from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import iconSvg from "./icon.svg" with { type: "text" };
import indexHtml from "./index.html" with { type: "text" };
import baseCss from "./styles/base.css" with { type: "text" };
import componentsCss from "./styles/components.css" with { type: "text" };
import pagesCss from "./styles/pages.css" with { type: "text" };
import telemetryCss from "./styles/telemetry.css" with { type: "text" };
import apiJs from "./js/api.js" with { type: "text" };
import appJs from "./js/app.js" with { type: "text" };
import chartsJs from "./js/charts.js" with { type: "text" };
import domJs from "./js/dom.js" with { type: "text" };
import anomaliesJs from "./js/pages/anomalies.js" with { type: "text" };
import documentsJs from "./js/pages/documents.js" with { type: "text" };
import operationsJs from "./js/pages/operations.js" with { type: "text" };
import overviewJs from "./js/pages/overview.js" with { type: "text" };
import searchJs from "./js/pages/search.js" with { type: "text" };
import securityJs from "./js/pages/security.js" with { type: "text" };
import sessionJs from "./js/pages/session.js" with { type: "text" };
import sessionsJs from "./js/pages/sessions.js" with { type: "text" };
import sqlJs from "./js/pages/sql.js" with { type: "text" };
import telemetryJs from "./js/pages/telemetry.js" with { type: "text" };
import telemetryCostJs from "./js/pages/telemetry_cost.js" with { type: "text" };
import telemetryErrorsJs from "./js/pages/telemetry_errors.js" with { type: "text" };
import telemetryLatencyJs from "./js/pages/telemetry_latency.js" with { type: "text" };
import telemetryPartsJs from "./js/pages/telemetry_parts.js" with { type: "text" };
import telemetryToolsJs from "./js/pages/telemetry_tools.js" with { type: "text" };
import telemetryTracesJs from "./js/pages/telemetry_traces.js" with { type: "text" };

/** One embedded file. */
export interface DashboardAsset {
  /** Its content. */
  body: string;
  /** Its content type. */
  type: string;
  /** A strong validator derived from the content. */
  etag: string;
}

const HTML = "text/html; charset=utf-8";
const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";
const SVG = "image/svg+xml";

/** One stylesheet, kept in four files by what they style; later rules win, so the order holds. */
const stylesCss = [baseCss, componentsCss, pagesCss, telemetryCss].join("\n");

const FILES: ReadonlyArray<[string, string, string]> = [
  ["/", indexHtml, HTML],
  ["/assets/icon.svg", iconSvg, SVG],
  ["/assets/styles.css", stylesCss, CSS],
  ["/assets/uPlot.min.css", uplotCss, CSS],
  ["/assets/uPlot.iife.min.js", uplotJs, JS],
  ["/assets/js/api.js", apiJs, JS],
  ["/assets/js/app.js", appJs, JS],
  ["/assets/js/charts.js", chartsJs, JS],
  ["/assets/js/dom.js", domJs, JS],
  ["/assets/js/pages/anomalies.js", anomaliesJs, JS],
  ["/assets/js/pages/documents.js", documentsJs, JS],
  ["/assets/js/pages/operations.js", operationsJs, JS],
  ["/assets/js/pages/overview.js", overviewJs, JS],
  ["/assets/js/pages/search.js", searchJs, JS],
  ["/assets/js/pages/security.js", securityJs, JS],
  ["/assets/js/pages/session.js", sessionJs, JS],
  ["/assets/js/pages/sessions.js", sessionsJs, JS],
  ["/assets/js/pages/sql.js", sqlJs, JS],
  ["/assets/js/pages/telemetry.js", telemetryJs, JS],
  ["/assets/js/pages/telemetry_cost.js", telemetryCostJs, JS],
  ["/assets/js/pages/telemetry_errors.js", telemetryErrorsJs, JS],
  ["/assets/js/pages/telemetry_latency.js", telemetryLatencyJs, JS],
  ["/assets/js/pages/telemetry_parts.js", telemetryPartsJs, JS],
  ["/assets/js/pages/telemetry_tools.js", telemetryToolsJs, JS],
  ["/assets/js/pages/telemetry_traces.js", telemetryTracesJs, JS],
];

/** FNV-1a over the text: enough to tell two versions of a file apart. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `"${(hash >>> 0).toString(16)}-${text.length.toString(16)}"`;
}

let table: Map<string, DashboardAsset> | undefined;

/**
 * The embedded file served at `path`, if any (`/index.html` is `/`).
 *
 * @example
 * ```ts
 * import { dashboardAsset } from "./assets.ts";
 * dashboardAsset("/")?.type; // "text/html; charset=utf-8"
 * ```
 */
export function dashboardAsset(path: string): DashboardAsset | undefined {
  table ??= new Map(
    FILES.map(([at, body, type]) => [at, { body, type, etag: fingerprint(body) }]),
  );
  return table.get(path === "/index.html" ? "/" : path);
}

/** Every embedded path, for tests and tooling. */
export function dashboardPaths(): string[] {
  return FILES.map(([path]) => path);
}
