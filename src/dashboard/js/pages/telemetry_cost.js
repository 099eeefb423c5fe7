// Cost: how fast money goes — the last hour and day, the hourly and daily
// rate, the week projected from the daily rate, cost per hour and per day —
// and the most expensive requests, with what telemetry knows of each.

import { op } from "../api.js";
import { timeChart } from "../charts.js";
import { agentBadge, compact, duration, h, kpi, mount, table, usd, when } from "../dom.js";
import { rowsOr, sessionLink, telemetryTab } from "./telemetry_parts.js";

function kpis(burn) {
  return h(
    "div",
    { class: "kpis" },
    kpi("Last hour", usd(burn.last_hour_usd), `${usd(burn.hourly_rate_usd)}/h over 24 h`),
    kpi("Last 24 h", usd(burn.last_24h_usd), `${usd(burn.daily_rate_usd)}/day over the range`),
    kpi(
      "Projected week",
      usd(burn.projected_week_usd),
      "at the range's daily rate",
      burn.projected_week_usd > 0 ? "warn" : "",
    ),
    kpi(
      "In range",
      usd(burn.window_usd),
      burn.unpriced_calls > 0 ? `${burn.unpriced_calls} calls unpriced` : "every call priced",
      burn.unpriced_calls > 0 ? "warn" : "",
    ),
    kpi(
      "Side requests",
      usd(burn.side_requests.reported_usd),
      `${burn.side_requests.calls} calls no transcript holds`,
    ),
  );
}

function expensiveTable(calls) {
  return table(
    [
      { label: "When", cell: (c) => h("span", { title: c.at }, when(c.at)), class: "nowrap" },
      { label: "Agent", cell: (c) => agentBadge(c.agent) },
      { label: "Model", cell: (c) => h("span", { class: "mono" }, c.model ?? "–") },
      { label: "Cost", cell: (c) => usd(c.cost_usd), numeric: true },
      { label: "Input", cell: (c) => compact(c.input_tokens), numeric: true },
      { label: "Output", cell: (c) => compact(c.output_tokens), numeric: true },
      { label: "Cache read", cell: (c) => compact(c.cache_read_tokens), numeric: true },
      { label: "Cache write", cell: (c) => compact(c.cache_write_tokens), numeric: true },
      { label: "Took", cell: (c) => duration(c.duration_ms) || "–", numeric: true },
      {
        label: "Request",
        cell: (c) => h("span", { class: "mono clip", title: c.request_id }, c.request_id ?? "–"),
      },
      { label: "Session", cell: (c) => sessionLink(c.session_id) },
    ],
    calls,
    { caption: "Most expensive requests", class: "expensive-table" },
  );
}

function bars(container, points, label, step) {
  return timeChart(container, {
    x: points.map((p) => p.bucket / 1000),
    label,
    step,
    yFormat: usd,
    series: [{
      label: "cost",
      color: "#f59e0b",
      values: points.map((p) => p.cost_usd),
      bars: true,
    }],
  });
}

/** Renders the tab into `body`. */
export async function render(ctx, body) {
  const hourChart = h("div", { class: "chart", id: "cost-hour-chart" });
  const dayChart = h("div", { class: "chart", id: "cost-day-chart" });
  const expensiveBox = h("div");
  await telemetryTab(ctx, body, {
    panels: [
      ["Cost per hour (last 24 h)", hourChart, "per-hour-title"],
      ["Cost per day", dayChart, "per-day-title"],
      ["Most expensive requests", expensiveBox, "expensive-title"],
    ],
    ask: () => op("agent.cost_burn", { since_min: ctx.rangeMin, top: 20 }),
    draw(burn, { kpis: kpiBox, keep }) {
      mount(kpiBox, kpis(burn));
      if (burn.per_hour.length > 0) {
        keep(bars(hourChart, burn.per_hour, "Cost per hour", 3600));
      } else mount(hourChart, h("p", { class: "muted" }, "No cost in the last 24 hours."));
      if (burn.per_day.length > 0) {
        keep(bars(dayChart, burn.per_day, "Cost per day", 86_400));
      } else mount(dayChart, h("p", { class: "muted" }, "No cost in this range."));
      rowsOr(
        expensiveBox,
        burn.most_expensive,
        "No priced requests in this range.",
        expensiveTable,
      );
    },
  });
}
