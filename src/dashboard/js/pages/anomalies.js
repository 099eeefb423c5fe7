// Anomalies: the feed across sessions with evidence and suggestions,
// narrowed by kind, project and severity through facet chips.

import { op } from "../api.js";
import { link, setParams } from "../app.js";
import {
  agentBadge,
  baseName,
  debounce,
  empty,
  failure,
  h,
  mount,
  severityBadge,
  shortId,
} from "../dom.js";

function chips(label, facets, current, key, values) {
  if (facets.length === 0) return null;
  return h(
    "div",
    { class: "chips", role: "group", "aria-label": label },
    h("span", { class: "chips-label" }, label),
    h("button", {
      type: "button",
      class: "chip",
      "aria-pressed": current ? "false" : "true",
      onclick: () => setParams({ ...values, [key]: "" }),
    }, "All"),
    facets.map((f) =>
      h(
        "button",
        {
          type: "button",
          class: "chip",
          "aria-pressed": current === f.value ? "true" : "false",
          onclick: () => setParams({ ...values, [key]: current === f.value ? "" : f.value }),
        },
        `${key === "project" ? baseName(f.value) || "(none)" : f.value} `,
        h("span", { class: "chip-count" }, String(f.count)),
      )
    ),
  );
}

function anomalyCard(a) {
  return h(
    "article",
    { class: `anomaly severity-${a.severity}` },
    h(
      "header",
      { class: "anomaly-head" },
      severityBadge(a.severity),
      h("h2", { class: "anomaly-kind" }, a.kind),
      a.agent ? agentBadge(a.agent) : null,
      h("span", { class: "muted small", title: a.last_emitted_at }, a.last_emitted_ago),
      a.emit_count > 1 ? h("span", { class: "muted small" }, `×${a.emit_count}`) : null,
      a.resolved_at ? h("span", { class: "badge status-passing" }, "resolved") : null,
    ),
    h("p", { class: "evidence" }, a.evidence),
    h("p", { class: "suggestion" }, h("strong", {}, "Suggestion: "), a.suggestion),
    a.related_files.length > 0
      ? h(
        "ul",
        { class: "files" },
        a.related_files.slice(0, 8).map((f) =>
          h("li", { class: "mono small", title: f }, baseName(f))
        ),
      )
      : null,
    h(
      "footer",
      { class: "muted small" },
      "Session ",
      h(
        "a",
        { href: link(`session/${encodeURIComponent(a.session_id)}`), class: "mono" },
        a.session_title ?? shortId(a.session_id),
      ),
      a.project ? ` · ${baseName(a.project)}` : "",
    ),
  );
}

/** Renders the page. */
export async function render(ctx) {
  const values = Object.fromEntries(ctx.params);
  const facetsBox = h("div", { class: "facets" });
  const listBox = h("div", { class: "anomaly-list" }, h("div", { class: "skeleton rows" }));
  const summary = h("p", { class: "muted", "aria-live": "polite" });
  const severity = h(
    "select",
    { id: "f-severity", onchange: (e) => setParams({ ...values, severity: e.target.value }) },
    [["", "Any severity"], ["critical", "critical"], ["warning", "warning"], ["info", "info"]].map((
      [v, l],
    ) => h("option", { value: v, selected: (values.severity ?? "") === v }, l)),
  );
  const resolved = h("input", {
    id: "f-resolved",
    type: "checkbox",
    checked: values.resolved === "1",
    onchange: (e) => setParams({ ...values, resolved: e.target.checked ? "1" : "" }),
  });
  mount(
    ctx.root,
    h("div", { class: "page-head" }, h("h1", {}, "Anomalies"), summary),
    h(
      "form",
      { class: "filters", onsubmit: (e) => e.preventDefault(), "aria-label": "Filter anomalies" },
      h("label", { for: "f-severity" }, "Severity"),
      severity,
      h("label", { class: "check", for: "f-resolved" }, resolved, " include resolved"),
    ),
    facetsBox,
    listBox,
  );
  const load = async () => {
    const feed = await op("agent.list_anomalies", {
      since_min: ctx.rangeMin,
      kind: values.kind || undefined,
      project: values.project || undefined,
      severity: values.severity || undefined,
      include_resolved: values.resolved === "1",
      limit: 100,
    });
    if (ctx.stale()) return;
    summary.textContent = `${feed.count} anomal${
      feed.count === 1 ? "y" : "ies"
    } · last ${ctx.rangeName}`;
    mount(
      facetsBox,
      chips("Kind", feed.by_kind, values.kind, "kind", values),
      chips("Project", feed.by_project, values.project, "project", values),
    );
    mount(
      listBox,
      feed.anomalies.length === 0
        ? empty(
          "No anomalies in this range.",
          "Vantage flags loops, repeated failures, stale views and edit churn as agents work.",
        )
        : feed.anomalies.map(anomalyCard),
    );
  };
  try {
    await load();
  } catch (error) {
    mount(listBox, failure(error));
  }
  const refresh = debounce(() => load().catch(() => {}), 1000);
  ctx.onLive((event) => {
    if (event.type === "anomaly") refresh();
  });
}
