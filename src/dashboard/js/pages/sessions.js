// Sessions: every agent's sessions, filtered by agent, project, time range,
// cost and open anomalies, newest activity first, with paging.

import { op } from "../api.js";
import { link, setParams } from "../app.js";
import {
  agentBadge,
  baseName,
  compact,
  cost,
  debounce,
  empty,
  failure,
  h,
  mount,
  shortId,
  table,
} from "../dom.js";

const AGENTS = [["", "All agents"], ["claude_code", "Claude Code"], ["codex", "Codex"], [
  "copilot_cli",
  "Copilot CLI",
], ["openclaw", "OpenClaw"]];
const PAGE = 50;

function filterBar(values) {
  const update = (key) => (event) => {
    const next = {
      ...values,
      [key]: event.target.type === "checkbox"
        ? (event.target.checked ? "1" : "")
        : event.target.value,
    };
    setParams(next);
  };
  const projectInput = h("input", {
    id: "f-project",
    type: "search",
    placeholder: "name or /path",
    value: values.project ?? "",
    oninput: debounce(update("project"), 400),
  });
  return h(
    "form",
    {
      class: "filters",
      role: "search",
      "aria-label": "Filter sessions",
      onsubmit: (e) => e.preventDefault(),
    },
    h("label", { for: "f-agent" }, "Agent"),
    h(
      "select",
      { id: "f-agent", onchange: update("agent") },
      AGENTS.map(([value, label]) =>
        h("option", { value, selected: values.agent === value }, label)
      ),
    ),
    h("label", { for: "f-project" }, "Project"),
    projectInput,
    h("label", { for: "f-cost" }, "Min cost ($)"),
    h("input", {
      id: "f-cost",
      type: "number",
      min: "0",
      step: "0.01",
      value: values.min_cost ?? "",
      onchange: update("min_cost"),
      class: "narrow",
    }),
    h("label", { for: "f-anomalies" }, "Anomalies"),
    h(
      "select",
      { id: "f-anomalies", onchange: update("anomalies") },
      [["", "Any"], ["yes", "With open anomalies"], ["no", "Without"]].map(([value, label]) =>
        h("option", { value, selected: values.anomalies === value }, label)
      ),
    ),
  );
}

/** The session list as a table. */
export function sessionRows(sessions) {
  return table(
    [
      { label: "Agent", cell: (s) => agentBadge(s.agent_source) },
      {
        label: "Session",
        cell: (s) =>
          h(
            "div",
            { class: "stack" },
            h("a", {
              href: link(`session/${encodeURIComponent(s.session_id)}`),
              class: "session-link",
            }, s.title ?? `Session ${shortId(s.session_id)}`),
            h(
              "span",
              { class: "muted mono small" },
              shortId(s.session_id),
              s.model ? ` · ${s.model}` : "",
            ),
          ),
      },
      {
        label: "Project",
        cell: (s) => h("span", { title: s.project }, baseName(s.project) || "–"),
      },
      {
        label: "Last active",
        cell: (s) => h("span", { title: s.last_activity_at }, s.last_activity_ago),
      },
      {
        label: "Duration",
        cell: (s) => s.duration_min === null ? "unknown" : `${s.duration_min} min`,
        numeric: true,
      },
      { label: "Messages", cell: (s) => compact(s.message_count), numeric: true },
      { label: "Tool calls", cell: (s) => compact(s.tool_calls), numeric: true },
      { label: "Tokens", cell: (s) => compact(s.total_tokens), numeric: true },
      { label: "Cost", cell: (s) => cost(s.cost_usd, s.unpriced_calls), numeric: true },
      {
        label: "Anomalies",
        cell: (s) =>
          s.anomaly_count > 0
            ? h("span", { class: "badge severity-warning" }, String(s.anomaly_count))
            : h("span", { class: "muted" }, "0"),
        numeric: true,
      },
    ],
    sessions,
    { caption: "Sessions", class: "sessions-table" },
  );
}

/** Renders the page. */
export async function render(ctx) {
  const values = Object.fromEntries(ctx.params);
  const listBox = h("div", { class: "list-slot" }, h("div", { class: "skeleton rows" }));
  const moreBox = h("div", { class: "more" });
  const summary = h("p", { class: "muted", "aria-live": "polite" });
  mount(
    ctx.root,
    h("div", { class: "page-head" }, h("h1", {}, "Sessions"), summary),
    filterBar(values),
    h("section", { class: "card flush", "aria-label": "Session list" }, listBox, moreBox),
  );
  const args = {
    since_min: ctx.rangeMin,
    limit: PAGE,
    agent_source: values.agent || undefined,
    project: values.project || undefined,
    min_cost_usd: values.min_cost ? Number(values.min_cost) : undefined,
    has_anomalies: values.anomalies === "yes"
      ? true
      : values.anomalies === "no"
      ? false
      : undefined,
  };
  let shown = [];
  const load = async (offset) => {
    const page = await op("agent.list_sessions", { ...args, offset });
    if (ctx.stale()) return;
    shown = offset === 0 ? page.sessions : shown.concat(page.sessions);
    mount(
      listBox,
      shown.length === 0
        ? empty("No sessions match these filters.", "Widen the time range or clear a filter.")
        : sessionRows(shown),
    );
    summary.textContent = `${shown.length}${page.has_more ? "+" : ""} session${
      shown.length === 1 ? "" : "s"
    } · last ${ctx.rangeName}`;
    mount(
      moreBox,
      page.has_more
        ? h(
          "button",
          { type: "button", class: "button", onclick: () => load(page.next_offset) },
          "Load more",
        )
        : null,
    );
  };
  try {
    await load(0);
  } catch (error) {
    mount(listBox, failure(error));
  }
  const refresh = debounce(() => load(0).catch(() => {}), 1500);
  ctx.onLive((event) => {
    if (event.type === "session" || event.type === "messages" || event.type === "hook") refresh();
  });
}
