// Sessions: every agent's sessions, filtered by agent, project, time range,
// cost and open anomalies, newest activity first, with paging. A session's
// sub-agent runs are not rows of their own: its row opens to show them, each
// with its type and own counts, and the session's counts include theirs.

import { op } from "../api.js";
import { link, setParams } from "../app.js";
import {
  agentBadge,
  ago,
  baseName,
  compact,
  cost,
  debounce,
  empty,
  failure,
  h,
  mount,
  shortId,
} from "../dom.js";

const AGENTS = [["", "All agents"], ["claude_code", "Claude Code"], ["codex", "Codex"], [
  "copilot_cli",
  "Copilot CLI",
], ["openclaw", "OpenClaw"]];
const PAGE = 50;
// Sessions whose sub-agents are shown, kept across live refreshes of the list.
const expanded = new Set();

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

function sessionLink(id, text) {
  return h("a", { href: link(`session/${encodeURIComponent(id)}`), class: "session-link" }, text);
}

function anomalyCell(s) {
  return s.anomaly_count > 0
    ? h("span", { class: "badge severity-warning" }, String(s.anomaly_count))
    : h("span", { class: "muted" }, "0");
}

/** How a parent's count reads: its total, and its own share when sub-agents add to it. */
function withOwn(total, own, format) {
  return own === undefined
    ? format(total)
    : h("span", { title: `own: ${format(own)}; the rest is its sub-agents'` }, format(total));
}

// A duration is unknown when no record of the session gave a time.
function minutes(value) {
  return value === null || value === undefined ? "unknown" : `${value} min`;
}

const COLUMNS = [
  { label: "Agent", parent: (s) => agentBadge(s.agent_source), child: () => "" },
  {
    label: "Session",
    parent: (s, toggle) =>
      h(
        "div",
        { class: "stack" },
        sessionLink(s.session_id, s.title ?? `Session ${shortId(s.session_id)}`),
        h(
          "span",
          { class: "muted mono small" },
          shortId(s.session_id),
          s.model ? ` · ${s.model}` : "",
        ),
        toggle,
      ),
    child: (c) =>
      h(
        "div",
        { class: "stack subagent-cell" },
        h(
          "span",
          { class: "subagent-head" },
          h("span", { class: "badge subagent-type" }, c.subagent_type ?? "sub-agent"),
          sessionLink(
            c.session_id,
            c.title ?? `Sub-agent ${c.session_id.split("/agent-").pop()}`,
          ),
        ),
        c.model ? h("span", { class: "muted mono small" }, c.model) : null,
      ),
  },
  {
    label: "Project",
    parent: (s) => h("span", { title: s.project }, baseName(s.project) || "–"),
    child: () => "",
  },
  {
    label: "Last active",
    parent: (s) => h("span", { title: s.last_activity_at }, s.last_activity_ago),
    child: (c) => h("span", { title: c.last_activity_at }, ago(c.last_activity_at)),
  },
  {
    label: "Duration",
    numeric: true,
    parent: (s) => minutes(s.duration_min),
    child: (c) => minutes(c.duration_min),
  },
  {
    label: "Messages",
    numeric: true,
    parent: (s) => withOwn(s.message_count, s.own?.message_count, compact),
    child: (c) => compact(c.message_count),
  },
  {
    label: "Tool calls",
    numeric: true,
    parent: (s) => withOwn(s.tool_calls, s.own?.tool_calls, compact),
    child: (c) => compact(c.tool_calls),
  },
  {
    label: "Tokens",
    numeric: true,
    parent: (s) => withOwn(s.total_tokens, s.own?.total_tokens, compact),
    child: (c) => compact(c.total_tokens),
  },
  {
    label: "Cost",
    numeric: true,
    parent: (s) => withOwn(s, s.own, (x) => cost(x.cost_usd, x.unpriced_calls)),
    child: (c) => cost(c.cost_usd, c.unpriced_calls),
  },
  { label: "Anomalies", numeric: true, parent: anomalyCell, child: () => "" },
];

function cells(row, render, extra) {
  return COLUMNS.map((c) =>
    h("td", { class: c.numeric ? "num" : undefined }, render(c)(row, extra))
  );
}

/** One session: its row, and its sub-agents' rows, shown when the row is opened. */
function sessionGroup(s) {
  const children = s.subagents ?? [];
  const childRows = children.map((c) =>
    h(
      "tr",
      {
        class: "subagent-row",
        hidden: !expanded.has(s.session_id),
        dataset: { parent: s.session_id },
      },
      cells(c, (col) => col.child),
    )
  );
  let toggle = null;
  if (s.subagent_count > 0) {
    const open = expanded.has(s.session_id);
    const label = (isOpen) =>
      `${isOpen ? "▾" : "▸"} ${s.subagent_count} sub-agent${s.subagent_count === 1 ? "" : "s"}`;
    toggle = h("button", {
      type: "button",
      class: "subagent-toggle",
      "aria-expanded": open ? "true" : "false",
      onclick: (event) => {
        const isOpen = !expanded.has(s.session_id);
        if (isOpen) expanded.add(s.session_id);
        else expanded.delete(s.session_id);
        event.currentTarget.setAttribute("aria-expanded", isOpen ? "true" : "false");
        event.currentTarget.textContent = label(isOpen);
        for (const row of childRows) row.hidden = !isOpen;
      },
    }, label(open));
  }
  return h(
    "tbody",
    { class: "session-group" },
    h("tr", { class: "session-row" }, cells(s, (col) => col.parent, toggle)),
    childRows,
  );
}

/**
 * The session list as a table: one body per session, its sub-agents' rows under its own
 * (hidden until its "sub-agents" button opens them).
 */
export function sessionRows(sessions) {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "sessions-table" },
      h("caption", { class: "sr-only" }, "Sessions"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          COLUMNS.map((c) =>
            h("th", { scope: "col", class: c.numeric ? "num" : undefined }, c.label)
          ),
        ),
      ),
      sessions.map(sessionGroup),
    ),
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
    const subagents = shown.reduce((n, s) => n + (s.subagent_count ?? 0), 0);
    summary.textContent = `${shown.length}${page.has_more ? "+" : ""} session${
      shown.length === 1 ? "" : "s"
    }${
      subagents > 0 ? ` (with ${subagents} sub-agent run${subagents === 1 ? "" : "s"})` : ""
    } · last ${ctx.rangeName} · counts include sub-agents; filters apply to sessions`;
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
