// Errors: how often model API requests fail — the error rate over time, the
// errors per HTTP status, and the latest errors with what the API said.

import { op } from "../api.js";
import { timeChart } from "../charts.js";
import { agentBadge, barList, compact, duration, h, kpi, mount, pct, table, when } from "../dom.js";
import { rowsOr, sessionLink, telemetryTab } from "./telemetry_parts.js";

function kpis(result) {
  const top = result.by_status[0];
  return h(
    "div",
    { class: "kpis" },
    kpi(
      "Error rate",
      pct(result.error_rate),
      `${compact(result.errors)} of ${compact(result.errors + result.calls)} requests`,
      result.error_rate > 0.05 ? "bad" : result.errors > 0 ? "warn" : "good",
    ),
    kpi("Errors", compact(result.errors), top ? `most: ${top.status_code ?? "no status"}` : "none"),
    kpi("Successful calls", compact(result.calls), `${result.bucket_min}-minute buckets`),
  );
}

function recentTable(recent) {
  return table(
    [
      { label: "When", cell: (e) => h("span", { title: e.at }, when(e.at)), class: "nowrap" },
      { label: "Agent", cell: (e) => agentBadge(e.agent) },
      { label: "Model", cell: (e) => h("span", { class: "mono" }, e.model ?? "–") },
      {
        label: "Status",
        cell: (e) => h("span", { class: "badge severity-warning" }, String(e.status_code ?? "–")),
      },
      { label: "Error", cell: (e) => h("span", { class: "clip", title: e.error }, e.error ?? "") },
      { label: "Attempt", cell: (e) => e.attempt ?? "–", numeric: true },
      { label: "Took", cell: (e) => duration(e.duration_ms) || "–", numeric: true },
      { label: "Session", cell: (e) => sessionLink(e.session_id) },
    ],
    recent,
    { caption: "Recent API errors", class: "errors-table" },
  );
}

/** Renders the tab into `body`. */
export async function render(ctx, body) {
  const rateChart = h("div", { class: "chart", id: "error-rate-chart" });
  const statusBox = h("div", { id: "status-box" });
  const recentBox = h("div");
  await telemetryTab(ctx, body, {
    panels: [
      ["Error rate over time", rateChart, "rate-title"],
      ["Errors per HTTP status", statusBox, "status-title"],
      ["Recent API errors", recentBox, "recent-errors-title"],
    ],
    ask: () => op("agent.api_errors", { since_min: ctx.rangeMin, limit: 50 }),
    isEmpty: (result) => result.errors + result.calls === 0,
    nothing: "model calls",
    draw(result, { kpis: kpiBox, keep }) {
      mount(kpiBox, kpis(result));
      keep(timeChart(rateChart, {
        x: result.series.map((p) => p.bucket / 1000),
        label: "Error rate per bucket",
        yFormat: (v) => pct(v),
        series: [{
          label: "error rate",
          color: "#e5484d",
          values: result.series.map((p) => p.error_rate),
        }],
      }));
      rowsOr(statusBox, result.by_status, "No errors in this range.", (rows) =>
        barList(
          rows.map((s) => ({
            label: s.status_code === null ? "no status" : String(s.status_code),
            value: s.errors,
          })),
          { label: "Errors per HTTP status", tone: "bad" },
        ));
      rowsOr(recentBox, result.recent, "No API errors in this range.", recentTable);
    },
  });
}
