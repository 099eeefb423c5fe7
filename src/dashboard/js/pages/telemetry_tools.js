// Tools: how each tool performs — calls, success rate, p50 and p95 duration,
// the trend against the window before — and the latest failed calls.

import { op } from "../api.js";
import { agentBadge, compact, duration, h, kpi, mount, pct, table, when } from "../dom.js";
import { change, rowsOr, sessionLink, telemetryTab } from "./telemetry_parts.js";

function trendCell(t) {
  if (t.trend.p95_change_pct === null) {
    return h("span", { class: "muted" }, t.trend.previous_calls === 0 ? "new" : "–");
  }
  const slower = t.trend.p95_change_pct > 0;
  return h(
    "span",
    {
      class: `trend ${slower ? "worse" : "better"}`,
      title: `p95 ${duration(t.trend.previous_p95_ms)} over ${t.trend.previous_calls} calls before`,
    },
    change(t.trend.p95_change_pct),
  );
}

function kpis(tools) {
  const calls = tools.reduce((n, t) => n + t.calls, 0);
  const failed = tools.reduce((n, t) => n + t.failed, 0);
  const slowest = [...tools].filter((t) => t.p95_ms !== null)
    .sort((a, b) => b.p95_ms - a.p95_ms)[0];
  return h(
    "div",
    { class: "kpis" },
    kpi("Tool calls", compact(calls), `${tools.length} tools`),
    kpi(
      "Failed",
      compact(failed),
      calls > 0 ? pct(failed / calls) : "",
      failed > 0 ? "warn" : "good",
    ),
    kpi("Slowest p95", slowest ? duration(slowest.p95_ms) : "–", slowest?.tool ?? ""),
  );
}

function toolsTable(tools) {
  return table(
    [
      { label: "Tool", cell: (t) => h("span", { class: "mono" }, t.tool) },
      { label: "Calls", cell: (t) => compact(t.calls), numeric: true },
      {
        label: "Success",
        cell: (t) =>
          h(
            "span",
            { class: t.success_rate !== null && t.success_rate < 0.9 ? "warn-text" : "" },
            pct(t.success_rate),
          ),
        numeric: true,
      },
      { label: "Failed", cell: (t) => compact(t.failed), numeric: true },
      { label: "p50", cell: (t) => duration(t.p50_ms) || "–", numeric: true },
      { label: "p95", cell: (t) => duration(t.p95_ms) || "–", numeric: true },
      { label: "Mean", cell: (t) => duration(t.avg_ms) || "–", numeric: true },
      { label: "p95 trend", cell: trendCell, numeric: true },
    ],
    tools,
    { caption: "Tool performance", class: "tools-table" },
  );
}

function failuresTable(failures) {
  return table(
    [
      { label: "When", cell: (f) => h("span", { title: f.at }, when(f.at)), class: "nowrap" },
      { label: "Agent", cell: (f) => agentBadge(f.agent) },
      { label: "Tool", cell: (f) => h("span", { class: "mono" }, f.tool ?? "–") },
      { label: "Error type", cell: (f) => f.error_type ?? "–" },
      { label: "Error", cell: (f) => h("span", { class: "clip", title: f.error }, f.error ?? "") },
      { label: "Took", cell: (f) => duration(f.duration_ms) || "–", numeric: true },
      { label: "Session", cell: (f) => sessionLink(f.session_id) },
    ],
    failures,
    { caption: "Recent tool failures", class: "failures-table" },
  );
}

/** Renders the tab into `body`. */
export async function render(ctx, body) {
  const toolsBox = h("div");
  const failuresBox = h("div");
  await telemetryTab(ctx, body, {
    panels: [
      ["Tool performance", toolsBox, "tools-title"],
      ["Recent failures", failuresBox, "failures-title"],
    ],
    paired: false,
    ask: () => op("agent.tool_performance", { since_min: ctx.rangeMin, failures: 50 }),
    isEmpty: (result) => result.tools.length === 0,
    nothing: "timed tool calls",
    draw(result, { kpis: kpiBox }) {
      mount(kpiBox, kpis(result.tools));
      mount(toolsBox, toolsTable(result.tools));
      rowsOr(
        failuresBox,
        result.recent_failures,
        "No failed tool calls in this range.",
        failuresTable,
      );
    },
  });
}
