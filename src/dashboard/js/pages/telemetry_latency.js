// Latency: how long each model takes to answer and to start answering (time
// to first token), p50 and p95, over the range and over time.

import { op } from "../api.js";
import { colorFor, timeChart } from "../charts.js";
import { compact, duration, h, kpi, mount, table } from "../dom.js";
import { alignBuckets, noTelemetry, telemetryTab } from "./telemetry_parts.js";

function kpis(result) {
  const calls = result.models.reduce((n, m) => n + m.calls, 0);
  const failed = result.models.reduce((n, m) => n + m.failed, 0);
  const slowest = [...result.models].filter((m) => m.p95_ms !== null)
    .sort((a, b) => b.p95_ms - a.p95_ms)[0];
  const busiest = result.models[0];
  return h(
    "div",
    { class: "kpis" },
    kpi("Model calls", compact(calls), `${result.models.length} models`),
    kpi(
      "Failed",
      compact(failed),
      calls > 0 ? `${((failed / calls) * 100).toFixed(1)}%` : "",
      failed > 0 ? "warn" : "good",
    ),
    kpi(
      "Slowest p95",
      slowest ? duration(slowest.p95_ms) : "–",
      slowest?.model ?? "",
    ),
    kpi(
      "Time to first token",
      busiest?.ttft_p50_ms !== null && busiest?.ttft_p50_ms !== undefined
        ? duration(busiest.ttft_p50_ms)
        : "–",
      busiest ? `p50 of ${busiest.model}` : "",
    ),
  );
}

function modelsTable(models) {
  return table(
    [
      { label: "Model", cell: (m) => h("span", { class: "mono" }, m.model) },
      { label: "Calls", cell: (m) => compact(m.calls), numeric: true },
      { label: "Failed", cell: (m) => compact(m.failed), numeric: true },
      { label: "p50", cell: (m) => duration(m.p50_ms) || "–", numeric: true },
      { label: "p95", cell: (m) => duration(m.p95_ms) || "–", numeric: true },
      { label: "TTFT p50", cell: (m) => duration(m.ttft_p50_ms) || "–", numeric: true },
      { label: "TTFT p95", cell: (m) => duration(m.ttft_p95_ms) || "–", numeric: true },
    ],
    models,
    { caption: "Latency per model", class: "latency-table" },
  );
}

/** Renders the tab into `body`. */
export async function render(ctx, body) {
  const latencyChart = h("div", { class: "chart", id: "latency-chart" });
  const ttftChart = h("div", { class: "chart", id: "ttft-chart" });
  const tableBox = h("div");
  await telemetryTab(ctx, body, {
    panels: [
      ["Latency per model (p50 dashed, p95 solid)", latencyChart, "latency-title"],
      ["Time to first token per model (p50)", ttftChart, "ttft-title"],
      ["Per model", tableBox, "models-title"],
    ],
    ask: () => op("agent.latency", { since_min: ctx.rangeMin }),
    isEmpty: (result) => result.models.length === 0,
    nothing: "model calls with timings",
    draw(result, { kpis: kpiBox, keep }) {
      mount(kpiBox, kpis(result));
      mount(tableBox, modelsTable(result.models));
      const groups = result.models.map((m) => ({ key: m.model, points: m.series }));
      const p50 = alignBuckets(groups, (p) => p.p50_ms);
      const p95 = alignBuckets(groups, (p) => p.p95_ms);
      keep(timeChart(latencyChart, {
        x: p95.x,
        label: "Latency per model over time",
        yFormat: (v) => duration(v),
        series: p95.series.flatMap((s, i) => [
          { label: `${s.key} p95`, color: colorFor(s.key, i), values: s.values },
          {
            label: `${s.key} p50`,
            color: colorFor(s.key, i),
            values: p50.series[i].values,
            dash: true,
          },
        ]),
      }));
      const ttft = alignBuckets(groups, (p) => p.ttft_p50_ms);
      if (ttft.series.some((s) => s.values.some((v) => v !== null))) {
        keep(timeChart(ttftChart, {
          x: ttft.x,
          label: "Time to first token per model over time",
          yFormat: (v) => duration(v),
          series: ttft.series.map((s, i) => ({
            label: s.key,
            color: colorFor(s.key, i),
            values: s.values,
          })),
        }));
      } else {
        mount(
          ttftChart,
          noTelemetry(
            "time to first token",
            "Claude Code reports it in its spans (OTEL_TRACES_EXPORTER=otlp with CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1); GenAI apps in gen_ai.response.time_to_first_chunk.",
          ),
        );
      }
    },
  });
}
