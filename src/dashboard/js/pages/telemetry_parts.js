// What the telemetry tabs share: a tab's layout and the loading that keeps it
// current, series from several groups put on one time axis, a link to a
// session, and the empty state that says how to turn telemetry on rather
// than suggesting nothing happened.

import { link } from "../app.js";
import { card, debounce, empty, failure, h, mount, shortId } from "../dom.js";

/**
 * Puts each group's points on the union of their buckets (null where a group has none), for
 * one chart: groups are [{key, points: [{bucket, …}]}], `value(point)` picks the figure.
 * Returns {x (epoch seconds), series: [{key, values}]}.
 */
export function alignBuckets(groups, value) {
  const buckets = [...new Set(groups.flatMap((g) => g.points.map((p) => p.bucket)))].sort((a, b) =>
    a - b
  );
  const index = new Map(buckets.map((b, i) => [b, i]));
  return {
    x: buckets.map((b) => b / 1000),
    series: groups.map((g) => {
      const values = buckets.map(() => null);
      for (const point of g.points) values[index.get(point.bucket)] = value(point);
      return { key: g.key, values };
    }),
  };
}

/**
 * A link to a session's page: a UUID-like id by its first eight characters, a name a GenAI
 * app gave its conversation as it is (cut when long).
 */
export function sessionLink(sessionId) {
  const shown = /^[0-9a-f]{8}-/i.test(sessionId)
    ? shortId(sessionId)
    : sessionId.length > 24
    ? `${sessionId.slice(0, 23)}…`
    : sessionId;
  return h(
    "a",
    { href: link(`session/${encodeURIComponent(sessionId)}`), class: "mono", title: sessionId },
    shown,
  );
}

/** The empty state of a tab: the server's note says how to send telemetry. */
export function noTelemetry(what, note) {
  return empty(`No ${what} in this range.`, note);
}

/** `+12.5%` / `−3%` with an arrow, or "–". */
export function change(pctValue) {
  if (pctValue === null || pctValue === undefined) return "–";
  const arrow = pctValue > 0 ? "▲" : pctValue < 0 ? "▼" : "";
  return `${arrow} ${pctValue > 0 ? "+" : ""}${pctValue}%`.trim();
}

/**
 * Lays a tab out — its KPIs on top, then `panels` ([title, box, title id] each; the first two
 * side by side when `paired`) — and keeps it current: `ask()` fetches the answer, again on
 * live updates (at most every 2 s), and `draw(result, { kpis, keep })` fills the KPI slot and
 * the boxes; `keep(cleanup)` registers a chart's cleanup, run before the next draw and when
 * the page goes. An answer `isEmpty` says holds nothing shows how to send telemetry instead
 * (`nothing` names what is missing).
 */
export async function telemetryTab(
  ctx,
  body,
  { panels, paired = true, ask, isEmpty, nothing, draw },
) {
  const kpis = h("div", { class: "kpi-slot" }, h("div", { class: "skeleton kpis-skeleton" }));
  const cards = panels.map(([title, box, id]) => card(title, box, { id }));
  mount(
    body,
    kpis,
    ...(paired ? [h("div", { class: "grid-2" }, cards[0], cards[1]), ...cards.slice(2)] : cards),
  );
  const cleanups = [];
  const clear = () => cleanups.splice(0).forEach((fn) => fn());
  ctx.onCleanup(clear);
  const load = async () => {
    const result = await ask();
    if (ctx.stale()) return;
    clear();
    if (isEmpty !== undefined && isEmpty(result)) {
      mount(kpis, noTelemetry(nothing, result.note));
      for (const [, box] of panels) mount(box);
      return;
    }
    draw(result, { kpis, keep: (cleanup) => cleanups.push(cleanup) });
  };
  try {
    await load();
  } catch (error) {
    mount(kpis, failure(error));
  }
  ctx.onLive(debounce(() => load().catch(() => {}), 2000));
}

/** Fills `box` with `render(rows)`, or with a muted `note` when there are no rows. */
export function rowsOr(box, rows, note, render) {
  mount(box, rows.length === 0 ? h("p", { class: "muted" }, note) : render(rows));
}
