// Overview: what is happening now (active agents, today's sessions, cost,
// tool failures, open anomalies, builds) and tokens and cost over the chosen
// range, with a live feed of hook events as they arrive.

import { op } from "../api.js";
import { link } from "../app.js";
import { colorFor, timeChart } from "../charts.js";
import {
  agentBadge,
  agentLabel,
  baseName,
  card,
  clock,
  compact,
  cost,
  debounce,
  duration,
  empty,
  failure,
  h,
  kpi,
  mount,
  pct,
  shortId,
  table,
  usd,
} from "../dom.js";

function kpis(overview) {
  const w = overview.window;
  const anomalies = overview.open_anomalies;
  const failing = overview.builds.filter((b) => b.status === "failing").length;
  return h(
    "div",
    { class: "kpis" },
    kpi(
      "Active now",
      String(overview.active_now.sessions),
      overview.active_now.agents.length === 0
        ? "no agent in the last 5 min"
        : overview.active_now.agents.map((a) => `${agentLabel(a.agent)} ×${a.sessions}`).join(
          " · ",
        ),
      overview.active_now.sessions > 0 ? "good" : "",
    ),
    kpi("Sessions today", String(overview.sessions_today), `${w.sessions_active} active in range`),
    kpi(
      "Tokens",
      compact(w.tokens.total),
      w.cache_hit_pct === undefined ? "" : `${w.cache_hit_pct}% cache hits`,
    ),
    kpi(
      "Cost",
      cost(w.cost_usd, w.unpriced_calls),
      w.unpriced_calls > 0
        ? `${compact(w.model_calls)} model calls, ${w.unpriced_calls} unpriced (${
          w.unpriced_models.map((m) => m.model).join(", ")
        })`
        : `${compact(w.model_calls)} model calls`,
      w.unpriced_calls > 0 ? "warn" : "",
    ),
    kpi(
      "Tool calls",
      compact(w.tool_calls),
      `${pct(w.failure_rate)} failed (${w.tool_failures})`,
      w.failure_rate > 0.2 ? "warn" : "",
    ),
    kpi(
      "Open anomalies",
      String(anomalies.total),
      Object.entries(anomalies.by_severity).map(([s, n]) => `${n} ${s}`).join(" · ") || "none",
      anomalies.total > 0 ? "warn" : "good",
    ),
    overview.builds.length === 0 ? kpi("Builds", "–", "none recorded") : kpi(
      "Builds",
      `${overview.builds.length - failing}/${overview.builds.length}`,
      failing > 0 ? `${failing} failing` : "all passing",
      failing > 0 ? "bad" : "good",
    ),
  );
}

function buildsTable(builds) {
  if (builds.length === 0) {
    return empty(
      "No builds recorded yet.",
      "Run builds through `vantage build -- <command>` to see them here.",
    );
  }
  return table(
    [
      {
        label: "Project",
        cell: (b) => h("span", { title: b.project }, baseName(b.project) || "–"),
      },
      { label: "Tag", cell: (b) => b.tag },
      {
        label: "State",
        cell: (b) => h("span", { class: `badge status-${b.status}` }, b.status),
      },
      { label: "Last run", cell: (b) => h("span", { title: b.last_run_at }, b.last_run_ago) },
      { label: "Took", cell: (b) => duration(b.duration_ms), numeric: true },
      { label: "First error", cell: (b) => h("span", { class: "clip" }, b.first_error ?? "") },
    ],
    builds,
    { caption: "Latest build per project" },
  );
}

function sessionsTable(list) {
  if (list.sessions.length === 0) {
    return empty("No sessions in this range.", "Pick a longer range above.");
  }
  return table(
    [
      { label: "Agent", cell: (s) => agentBadge(s.agent_source) },
      {
        label: "Session",
        cell: (s) =>
          h(
            "a",
            { href: link(`session/${encodeURIComponent(s.session_id)}`) },
            s.title ?? shortId(s.session_id),
          ),
      },
      { label: "Project", cell: (s) => h("span", { title: s.project }, baseName(s.project)) },
      {
        label: "Active",
        cell: (s) => h("span", { title: s.last_activity_at }, s.last_activity_ago),
        class: "nowrap",
      },
      { label: "Tokens", cell: (s) => compact(s.total_tokens), numeric: true },
      { label: "Cost", cell: (s) => cost(s.cost_usd, s.unpriced_calls), numeric: true },
    ],
    list.sessions,
    { caption: "Recent sessions" },
  );
}

function liveItem(event) {
  const d = event.data;
  const when = clock(d.at ?? Date.now());
  if (event.type === "hook") {
    return h(
      "li",
      { class: `feed-item ${d.success === false ? "failed" : ""}` },
      h("time", {}, when),
      agentBadge(d.agent),
      h("span", { class: "feed-text" }, `${d.event_type}${d.tool_name ? " · " + d.tool_name : ""}`),
      h(
        "a",
        { href: link(`session/${encodeURIComponent(d.session_id)}`), class: "mono" },
        shortId(d.session_id),
      ),
    );
  }
  const text = {
    messages: () =>
      `${d.messages} new message${d.messages === 1 ? "" : "s"} from ${baseName(d.file)}`,
    session: () => `new ${agentLabel(d.agent)} session in ${baseName(d.project) || "?"}`,
    anomaly: () => `${d.severity} anomaly: ${d.kind}`,
    build: () => `build ${d.tag}: ${d.status}`,
  }[event.type]?.() ?? event.type;
  return h(
    "li",
    { class: `feed-item kind-${event.type}` },
    h("time", {}, when),
    h("span", { class: "badge" }, event.type),
    h("span", { class: "feed-text" }, text),
  );
}

/** Renders the page. */
export async function render(ctx) {
  const groupBy = ctx.params.get("by") === "model" ? "model" : "agent";
  const kpiBox = h("div", { class: "kpi-slot" }, h("div", { class: "skeleton kpis-skeleton" }));
  const tokensChart = h("div", { class: "chart" });
  const costChart = h("div", { class: "chart" });
  const buildsBox = h("div");
  const sessionsBox = h("div");
  const feed = h("ol", { class: "feed", "aria-live": "polite", "aria-label": "Live activity" });
  const toggle = h(
    "div",
    { class: "segmented", role: "group", "aria-label": "Series" },
    ["agent", "model"].map((key) =>
      h("a", {
        href: link("", { by: key === "agent" ? undefined : key, range: ctx.params.get("range") }),
        "aria-current": key === groupBy ? "true" : undefined,
      }, `per ${key}`)
    ),
  );
  mount(
    ctx.root,
    h(
      "div",
      { class: "page-head" },
      h("h1", {}, "Overview"),
      h("p", { class: "muted" }, `Last ${ctx.rangeName}`),
    ),
    kpiBox,
    h(
      "div",
      { class: "grid-2" },
      card("Tokens over time", tokensChart, { id: "tokens-title", actions: toggle }),
      card("Cost over time", costChart, { id: "cost-title" }),
    ),
    h(
      "div",
      { class: "grid-2" },
      card("Recent sessions", sessionsBox, {
        id: "recent-title",
        actions: h(
          "a",
          { href: link("sessions", { range: ctx.params.get("range") }) },
          "All sessions →",
        ),
      }),
      card(
        "Live activity",
        h("div", {}, feed, h("p", { class: "muted feed-empty" }, "Waiting for hook events…")),
        {
          id: "live-title",
          class: "live-card",
        },
      ),
    ),
    card("Build state per project", buildsBox, { id: "builds-title" }),
  );

  const cleanups = [];
  ctx.onCleanup(() => cleanups.splice(0).forEach((fn) => fn()));
  const load = async () => {
    const offset = -new Date().getTimezoneOffset();
    const [overview, series, recent] = await Promise.all([
      op("agent.overview", { since_min: ctx.rangeMin, tz_offset_min: offset }),
      op("agent.usage_timeseries", { since_min: ctx.rangeMin, group_by: groupBy }),
      op("agent.list_sessions", { since_min: ctx.rangeMin, limit: 8 }),
    ]);
    if (ctx.stale()) return;
    mount(kpiBox, kpis(overview));
    mount(buildsBox, buildsTable(overview.builds));
    mount(sessionsBox, sessionsTable(recent));
    cleanups.splice(0).forEach((fn) => fn());
    const x = series.buckets.map((t) => t / 1000);
    if (series.series.length === 0) {
      mount(tokensChart, empty("No model calls in this range."));
      mount(costChart, empty("No cost in this range."));
      return;
    }
    cleanups.push(timeChart(tokensChart, {
      x,
      label: "Tokens per bucket",
      yFormat: compact,
      series: series.series.map((s, i) => ({
        label: groupBy === "agent" ? agentLabel(s.key) : s.key,
        color: colorFor(s.key, i),
        values: s.input_tokens.map((v, j) =>
          v + s.output_tokens[j] + s.cache_read_tokens[j] + s.cache_write_tokens[j]
        ),
      })),
    }));
    cleanups.push(timeChart(costChart, {
      x,
      label: "Cost per bucket",
      yFormat: usd,
      series: series.series.map((s, i) => ({
        label: groupBy === "agent" ? agentLabel(s.key) : s.key,
        color: colorFor(s.key, i),
        values: s.cost_usd,
      })),
    }));
  };
  try {
    await load();
  } catch (error) {
    mount(kpiBox, failure(error));
  }
  const refresh = debounce(() => load().catch(() => {}), 1000);
  ctx.onLive((event) => {
    feed.prepend(liveItem(event));
    while (feed.children.length > 30) feed.lastChild.remove();
    ctx.root.querySelector(".feed-empty")?.remove();
    refresh();
  });
}
