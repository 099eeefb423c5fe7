// Charts drawn by uPlot (loaded as a classic script, global `uPlot`): series
// over time (tokens, cost, latency, errors) or over turns (a conversation's
// context), as lines or bars, and a lane chart that puts a session's prompts,
// tool calls, edits, anomalies and builds on one time axis. Each chart
// follows its container's width and the page's light or dark theme.

import { h } from "./dom.js";

const AGENT_COLORS = {
  claude_code: "#d97757",
  codex: "#10a37f",
  copilot_cli: "#8b5cf6",
  openclaw: "#e5484d",
};
const PALETTE = [
  "#3b82f6",
  "#f59e0b",
  "#10b981",
  "#ec4899",
  "#8b5cf6",
  "#14b8a6",
  "#ef4444",
  "#64748b",
];

/** A stable color for a series key (agents keep their brand-like colors). */
export function colorFor(key, index = 0) {
  return AGENT_COLORS[key] ?? PALETTE[index % PALETTE.length];
}

function themeColors() {
  const style = getComputedStyle(document.documentElement);
  return {
    text: style.getPropertyValue("--text-muted").trim() || "#64748b",
    grid: style.getPropertyValue("--grid").trim() || "rgba(128,128,128,0.15)",
  };
}

function axis(theme, extra = {}) {
  return {
    stroke: theme.text,
    grid: { stroke: theme.grid, width: 1 },
    ticks: { stroke: theme.grid, width: 1 },
    font: "12px system-ui, sans-serif",
    ...extra,
  };
}

function fill(color) {
  return color + "22";
}

/** Keeps a chart as wide as its container. */
function follow(container, plot, height) {
  const observer = new ResizeObserver(() => {
    const width = Math.max(240, Math.floor(container.clientWidth));
    if (width !== plot.width) plot.setSize({ width, height });
  });
  observer.observe(container);
  return () => {
    observer.disconnect();
    plot.destroy();
  };
}

/**
 * A series chart over time (`x` in epoch seconds) or, with `time: false`, over a count such
 * as turns (`xLabel` names it). Each series is {label, values, color, dash?, bars?}: `dash`
 * draws a dashed line, `bars` draws bars (give `step`, their width in x units). Returns a
 * function that removes the chart.
 */
export function timeChart(
  container,
  { x, series, height = 220, yFormat = (v) => String(v), label, time = true, xLabel, step },
) {
  const theme = themeColors();
  const width = Math.max(240, Math.floor(container.clientWidth || 600));
  // Bars of `step` seconds get half a step either side, so one bar alone is not a sliver
  // across years of empty axis.
  const xScale = step === undefined || x.length === 0
    ? { time }
    : { time, range: () => [x[0] - step / 2, x[x.length - 1] + step / 2] };
  const options = {
    width,
    height,
    cursor: { drag: { x: true, y: false } },
    legend: { live: true },
    scales: { x: xScale },
    axes: [
      axis(
        theme,
        time ? {} : { label: xLabel, labelSize: 20, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] },
      ),
      axis(theme, { values: (_u, values) => values.map((v) => yFormat(v)), size: 60 }),
    ],
    series: [
      time ? {} : { label: xLabel ?? "x" },
      ...series.map((s, i) => {
        const color = s.color ?? colorFor(s.label, i);
        return {
          label: s.label,
          stroke: color,
          fill: s.dash ? undefined : s.bars ? color + "99" : fill(color),
          width: s.bars ? 1 : 2,
          ...(s.dash ? { dash: [6, 4] } : {}),
          ...(s.bars ? { paths: uPlot.paths.bars({ size: [0.7, 48] }) } : {}),
          points: { show: !s.bars && x.length <= 24, size: 5 },
          // Over turns, a sampled series' missing turns are not gaps in the conversation.
          spanGaps: !time,
          value: (_u, v) => (v === null || v === undefined ? "–" : yFormat(v)),
        };
      }),
    ],
  };
  container.replaceChildren();
  if (label) container.setAttribute("aria-label", label);
  container.setAttribute("role", "img");
  const plot = new uPlot(options, [x, ...series.map((s) => s.values)], container);
  return follow(container, plot, height);
}

/**
 * A lane chart: one row per lane, one point per item at its time, failures
 * drawn red. Hovering shows the item's label; clicking calls `onPick(item)`.
 */
export function laneChart(container, { lanes, items, height = 200, onPick }) {
  const theme = themeColors();
  const width = Math.max(240, Math.floor(container.clientWidth || 600));
  // uPlot wants strictly increasing x: nudge items that share a millisecond.
  const xs = [];
  let previous = -Infinity;
  for (const item of items) {
    const t = Math.max(item.t, previous + 1);
    xs.push(t / 1000);
    previous = t;
  }
  const laneIndex = new Map(lanes.map((lane, i) => [lane.kind, i]));
  const series = lanes.map((lane) =>
    items.map((item) => (item.kind === lane.kind && !item.failed ? laneIndex.get(lane.kind) : null))
  );
  const failed = items.map((item) => (item.failed ? laneIndex.get(item.kind) ?? null : null));
  const tip = h("div", { class: "chart-tip", role: "status", hidden: true });
  const options = {
    width,
    height,
    legend: { show: false },
    cursor: { drag: { x: true, y: false }, points: { show: false } },
    scales: { x: { time: true }, y: { range: [-0.6, lanes.length - 0.4] } },
    axes: [
      axis(theme),
      axis(theme, {
        size: 84,
        splits: () => lanes.map((_, i) => i),
        values: (_u, values) => values.map((v) => lanes[v]?.label ?? ""),
        grid: { stroke: theme.grid, width: 1 },
      }),
    ],
    series: [
      {},
      ...lanes.map((lane) => ({
        label: lane.label,
        stroke: lane.color,
        paths: () => null,
        points: { show: true, size: 9, width: 1, fill: lane.color, stroke: lane.color },
      })),
      {
        label: "failed",
        stroke: "#e5484d",
        paths: () => null,
        points: { show: true, size: 11, width: 2, fill: "#e5484d", stroke: "#fff" },
      },
    ],
    hooks: {
      setCursor: [
        (u) => {
          const idx = u.cursor.idx;
          if (idx === null || idx === undefined || items[idx] === undefined) {
            tip.hidden = true;
            return;
          }
          const item = items[idx];
          tip.textContent = `${new Date(item.t).toLocaleTimeString()} · ${item.label}${
            item.failed ? " (failed)" : ""
          }`;
          tip.hidden = false;
          const left = Math.min(u.cursor.left ?? 0, u.over.clientWidth - 220);
          tip.style.left = `${Math.max(0, left) + u.over.offsetLeft}px`;
        },
      ],
    },
  };
  container.replaceChildren();
  container.setAttribute("role", "img");
  container.setAttribute("aria-label", "Session timeline chart; the list below has every item");
  const plot = new uPlot(options, [xs, ...series, failed], container);
  container.append(tip);
  if (onPick) {
    plot.over.addEventListener("click", () => {
      const idx = plot.cursor.idx;
      if (idx !== null && idx !== undefined && items[idx]) onPick(items[idx]);
    });
  }
  return follow(container, plot, height);
}
