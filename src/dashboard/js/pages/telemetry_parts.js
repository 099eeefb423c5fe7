// What the telemetry tabs share: series from several groups put on one time
// axis, a link to a session, and the empty state that says how to turn
// telemetry on rather than suggesting nothing happened.

import { link } from "../app.js";
import { empty, h, shortId } from "../dom.js";

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
