// Traces: conversations as the model saw them — the "snowball" (every turn
// resends the whole conversation, so the context climbs turn by turn), what
// one question costs, and why calls stopped (finish reasons).

import { op } from "../api.js";
import { colorFor, timeChart } from "../charts.js";
import {
  agentBadge,
  agentLabel,
  barList,
  compact,
  cost,
  h,
  kpi,
  mount,
  table,
  usd,
} from "../dom.js";
import { sessionLink, telemetryTab } from "./telemetry_parts.js";

/** Conversations drawn on the snowball chart. */
const DRAWN = 5;

function kpis(result) {
  const q = result.cost_per_question;
  return h(
    "div",
    { class: "kpis" },
    kpi("Conversations", compact(result.conversations), `${compact(result.calls)} model calls`),
    kpi("Questions", compact(result.questions), "user turns and the calls they set off"),
    kpi("Cost", cost(result.cost_usd, result.unpriced_calls), "in range"),
    kpi(
      "Cost per question",
      q.avg_usd === null ? "–" : usd(q.avg_usd),
      q.avg_usd === null
        ? ""
        : `p50 ${usd(q.p50_usd)} · p95 ${usd(q.p95_usd)} · max ${usd(q.max_usd)}`,
    ),
  );
}

function conversationsTable(top) {
  return table(
    [
      { label: "Conversation", cell: (c) => sessionLink(c.session_id) },
      { label: "Agent", cell: (c) => agentBadge(c.agent) },
      { label: "Model", cell: (c) => h("span", { class: "mono" }, c.model ?? "–") },
      { label: "Turns", cell: (c) => compact(c.snowball.turns), numeric: true },
      { label: "Questions", cell: (c) => compact(c.questions), numeric: true },
      {
        label: "Context",
        cell: (c) =>
          c.snowball.first === null
            ? "–"
            : `${compact(c.snowball.first)} → ${compact(c.snowball.last)}`,
        numeric: true,
      },
      {
        label: "Growth/turn",
        cell: (c) =>
          c.snowball.growth_per_turn === null ? "–" : `+${compact(c.snowball.growth_per_turn)}`,
        numeric: true,
      },
      { label: "Cost", cell: (c) => cost(c.cost_usd, c.unpriced_calls), numeric: true },
      {
        label: "Per question",
        cell: (c) => (c.cost_per_question_usd === null ? "–" : usd(c.cost_per_question_usd)),
        numeric: true,
      },
      {
        label: "Finish reasons",
        cell: (c) =>
          h(
            "span",
            { class: "small" },
            c.finish_reasons.map((r) => `${r.reason} ×${r.calls}`).join(", "),
          ),
      },
    ],
    top,
    { caption: "Costliest conversations", class: "conversations-table" },
  );
}

function snowball(container, top) {
  const drawn = top.filter((c) => c.snowball.context.length > 1).slice(0, DRAWN);
  if (drawn.length === 0) {
    mount(container, h("p", { class: "muted" }, "No conversation has two turns yet."));
    return () => {};
  }
  // One x per turn number; a conversation sampled every n turns places its points at their turns.
  const turns = new Set();
  const positioned = drawn.map((c) => {
    const points = new Map();
    const count = c.snowball.context.length;
    c.snowball.context.forEach((tokens, i) => {
      const turn = c.snowball.turns - (count - 1 - i) * c.snowball.every;
      turns.add(turn);
      points.set(turn, tokens);
    });
    return { c, points };
  });
  const x = [...turns].sort((a, b) => a - b);
  return timeChart(container, {
    x,
    time: false,
    xLabel: "turn",
    label: "Context tokens per turn, per conversation",
    yFormat: compact,
    series: positioned.map(({ c, points }, i) => ({
      label: `${c.session_id.slice(0, 12)} (${agentLabel(c.agent)})`,
      color: colorFor(c.session_id, i),
      values: x.map((turn) => points.get(turn) ?? null),
    })),
  });
}

/** Renders the tab into `body`. */
export async function render(ctx, body) {
  const snowballChart = h("div", { class: "chart", id: "snowball-chart" });
  const reasonsBox = h("div", { id: "finish-reasons" });
  const tableBox = h("div");
  await telemetryTab(ctx, body, {
    panels: [
      ["Context per turn (the snowball)", snowballChart, "snowball-title"],
      ["Finish reasons", reasonsBox, "reasons-title"],
      ["Costliest conversations", tableBox, "conversations-title"],
    ],
    ask: () => op("agent.traces", { since_min: ctx.rangeMin, limit: 10 }),
    isEmpty: (result) => result.calls === 0,
    nothing: "model calls",
    draw(result, { kpis: kpiBox, keep }) {
      mount(kpiBox, kpis(result));
      keep(snowball(snowballChart, result.top));
      mount(
        reasonsBox,
        barList(
          result.finish_reasons.map((r) => ({ label: r.reason, value: r.calls })),
          { label: "Calls per finish reason", format: compact },
        ),
      );
      mount(tableBox, conversationsTable(result.top));
    },
  });
}
