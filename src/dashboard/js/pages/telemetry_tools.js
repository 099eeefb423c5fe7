// Tools: how each tool performs — calls, success rate, p50 and p95 duration,
// the trend against the window before — and the latest failed calls.

import { op } from "../api.js";
import {
  agentBadge,
  card,
  compact,
  debounce,
  duration,
  failure,
  h,
  kpi,
  mount,
  pct,
  table,
  when,
} from "../dom.js";
import { change, noTelemetry, sessionLink } from "./telemetry_parts.js";

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
  const kpiBox = h("div", { class: "kpi-slot" }, h("div", { class: "skeleton kpis-skeleton" }));
  const toolsBox = h("div");
  const failuresBox = h("div");
  mount(
    body,
    kpiBox,
    card("Tool performance", toolsBox, { id: "tools-title" }),
    card("Recent failures", failuresBox, { id: "failures-title" }),
  );
  const load = async () => {
    const result = await op("agent.tool_performance", { since_min: ctx.rangeMin, failures: 50 });
    if (ctx.stale()) return;
    if (result.tools.length === 0) {
      mount(kpiBox, noTelemetry("timed tool calls", result.note));
      mount(toolsBox);
      mount(failuresBox);
      return;
    }
    const calls = result.tools.reduce((n, t) => n + t.calls, 0);
    const failed = result.tools.reduce((n, t) => n + t.failed, 0);
    const slowest = [...result.tools].filter((t) => t.p95_ms !== null)
      .sort((a, b) => b.p95_ms - a.p95_ms)[0];
    mount(
      kpiBox,
      h(
        "div",
        { class: "kpis" },
        kpi("Tool calls", compact(calls), `${result.tools.length} tools`),
        kpi(
          "Failed",
          compact(failed),
          calls > 0 ? pct(failed / calls) : "",
          failed > 0 ? "warn" : "good",
        ),
        kpi("Slowest p95", slowest ? duration(slowest.p95_ms) : "–", slowest?.tool ?? ""),
      ),
    );
    mount(toolsBox, toolsTable(result.tools));
    mount(
      failuresBox,
      result.recent_failures.length === 0
        ? h("p", { class: "muted" }, "No failed tool calls in this range.")
        : failuresTable(result.recent_failures),
    );
  };
  try {
    await load();
  } catch (error) {
    mount(kpiBox, failure(error));
  }
  const refresh = debounce(() => load().catch(() => {}), 2000);
  ctx.onLive(refresh);
}
