// One session: its summary, its sub-agents (each with its type and own
// counts; a sub-agent's page names its parent), its timeline (prompts, tool
// calls with durations and failures, file edits, compactions, API errors,
// sub-agent runs, anomalies and builds on one time axis), its transcript page
// by page, and its tokens and cache hits per model call.

import { op } from "../api.js";
import { link } from "../app.js";
import { laneChart, timeChart } from "../charts.js";
import {
  agentBadge,
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
  mount,
  severityBadge,
  shortId,
  table,
  when,
} from "../dom.js";

const LANES = [
  { kind: "prompt", label: "Prompts", color: "#3b82f6" },
  { kind: "tool", label: "Tool calls", color: "#64748b" },
  { kind: "file_edit", label: "File edits", color: "#10b981" },
  { kind: "anomaly", label: "Anomalies", color: "#f59e0b" },
  { kind: "build", label: "Builds", color: "#8b5cf6" },
  { kind: "sidechain", label: "Sub-agents", color: "#d946ef" },
  { kind: "compaction", label: "Compactions", color: "#0ea5e9" },
  { kind: "api_error", label: "API errors", color: "#ef4444" },
  { kind: "event", label: "Events", color: "#94a3b8" },
];
const TABS = [["timeline", "Timeline"], ["transcript", "Transcript"], ["tokens", "Tokens"]];
const MESSAGE_TYPES = [
  "",
  "user",
  "assistant",
  "thinking",
  "tool_use",
  "tool_result",
  "system",
  "compaction",
  "api_error",
];

function fact(label, value) {
  return h("div", { class: "fact" }, h("dt", {}, label), h("dd", {}, value));
}

function sessionHref(id) {
  return link(`session/${encodeURIComponent(id)}`);
}

function header(timeline) {
  const s = timeline.session;
  const c = timeline.counts;
  const own = timeline.own;
  const parent = timeline.parent;
  // Transcript counters include sub-agents; a session known from hooks alone has none.
  const toolCalls = Math.max(s.tool_calls ?? 0, c.tool_calls);
  return h(
    "div",
    { class: "session-head" },
    h(
      "p",
      { class: "crumbs" },
      h("a", { href: link("sessions") }, "Sessions"),
      " / ",
      parent
        ? [
          h(
            "a",
            { href: sessionHref(parent.session_id), class: "mono" },
            shortId(parent.session_id),
          ),
          " / ",
        ]
        : null,
      h(
        "span",
        { class: "mono" },
        s.is_subagent ? `agent-${s.session_id.split("/agent-").pop()}` : shortId(s.session_id),
      ),
    ),
    h(
      "h1",
      {},
      s.title ??
        (s.is_subagent
          ? `Sub-agent ${s.subagent_type ?? ""}`.trim()
          : `Session ${shortId(s.session_id)}`),
    ),
    h(
      "div",
      { class: "head-badges" },
      agentBadge(s.agent_source),
      s.is_subagent
        ? h("span", { class: "badge subagent-type" }, s.subagent_type ?? "sub-agent")
        : null,
      s.model ? h("span", { class: "badge" }, s.model) : null,
      h("span", { class: "muted mono small" }, s.session_id),
    ),
    parent
      ? h(
        "p",
        { class: "subagent-of" },
        "Sub-agent run of ",
        h(
          "a",
          { href: sessionHref(parent.session_id) },
          parent.title ?? `session ${shortId(parent.session_id)}`,
        ),
        "; its counts are included in that session's.",
      )
      : null,
    h(
      "dl",
      { class: "facts" },
      fact("Project", h("span", { title: s.project }, baseName(s.project) || "–")),
      fact("Started", h("span", { title: s.started_at }, when(s.started_at))),
      fact("Duration", s.duration_min === null ? "unknown" : `${s.duration_min} min`),
      fact(
        "Messages",
        `${compact(s.message_count)}${own ? ` (${compact(own.message_count)} own)` : ""}`,
      ),
      fact(
        "Tool calls",
        `${toolCalls}${own ? ` (${own.tool_calls} own)` : ""}${
          c.tool_failures ? `, ${c.tool_failures} failed` : ""
        }`,
      ),
      fact(
        "Tokens",
        `${compact(s.total_tokens)}${own ? ` (${compact(own.total_tokens)} own)` : ""}`,
      ),
      fact(
        "Cost",
        `${cost(s.cost_usd, s.unpriced_calls)}${
          own ? ` (${cost(own.cost_usd, own.unpriced_calls)} own)` : ""
        }`,
      ),
      timeline.subagent_count > 0 ? fact("Sub-agents", String(timeline.subagent_count)) : null,
      fact("Anomalies", String(c.anomalies)),
    ),
  );
}

/** The session's sub-agents, each with its own counts (already in the session's). */
function subagentList(timeline) {
  if (!timeline.subagents || timeline.subagents.length === 0) return null;
  return card(
    `Sub-agents (${timeline.subagent_count})`,
    table(
      [
        {
          label: "Sub-agent",
          cell: (c) =>
            h(
              "span",
              { class: "subagent-head" },
              h("span", { class: "badge subagent-type" }, c.subagent_type ?? "sub-agent"),
              h(
                "a",
                { href: sessionHref(c.session_id) },
                c.title ?? `Sub-agent ${c.session_id.split("/agent-").pop()}`,
              ),
            ),
        },
        { label: "Started", cell: (c) => h("span", { title: c.started_at }, clock(c.started_at)) },
        {
          label: "Duration",
          cell: (c) => c.duration_min === null ? "unknown" : `${c.duration_min} min`,
          numeric: true,
        },
        { label: "Messages", cell: (c) => compact(c.message_count), numeric: true },
        { label: "Tool calls", cell: (c) => compact(c.tool_calls), numeric: true },
        { label: "Tokens", cell: (c) => compact(c.total_tokens), numeric: true },
        { label: "Cost", cell: (c) => cost(c.cost_usd, c.unpriced_calls), numeric: true },
      ],
      timeline.subagents,
      { caption: "Sub-agents", class: "subagents-table" },
    ),
    { id: "subagents-title", class: "subagents" },
  );
}

function timelineList(items) {
  const longest = Math.max(1, ...items.map((i) => i.duration_ms ?? 0));
  return h(
    "ol",
    { class: "timeline", "aria-label": "Timeline items" },
    items.map((item, index) =>
      h(
        "li",
        {
          class: `tl-item kind-${item.kind} ${item.failed ? "failed" : ""}`,
          id: `tl-${index}`,
          tabindex: "-1",
        },
        h("time", { datetime: item.ts }, clock(item.t)),
        h("span", { class: `lane-dot lane-${item.kind}`, "aria-hidden": "true" }),
        h(
          "div",
          { class: "tl-body" },
          h(
            "div",
            { class: "tl-label" },
            item.kind === "anomaly" && item.severity ? severityBadge(item.severity) : null,
            item.session_id
              ? h("a", { href: sessionHref(item.session_id) }, item.label)
              : h("span", {}, item.label),
            item.failed ? h("span", { class: "badge status-failing" }, "failed") : null,
          ),
          item.detail ? h("div", { class: "tl-detail" }, item.detail) : null,
        ),
        item.duration_ms !== undefined
          ? h(
            "div",
            { class: "tl-duration", title: duration(item.duration_ms) },
            h("span", {
              class: "bar",
              style: { width: `${Math.max(2, (item.duration_ms / longest) * 100)}%` },
            }),
            h("span", { class: "small muted" }, duration(item.duration_ms)),
          )
          : h("div", { class: "tl-duration" }),
      )
    ),
  );
}

function showTimeline(box, timeline, cleanups) {
  const items = timeline.items;
  if (items.length === 0) {
    mount(box, empty("Nothing recorded on this session's timeline yet."));
    return;
  }
  const used = LANES.filter((lane) => items.some((i) => i.kind === lane.kind));
  const chartBox = h("div", { class: "chart lanes" });
  const legend = h(
    "ul",
    { class: "legend", "aria-label": "Lanes" },
    used.map((lane) =>
      h(
        "li",
        {},
        h("span", { class: `lane-dot lane-${lane.kind}`, "aria-hidden": "true" }),
        `${lane.label} (${items.filter((i) => i.kind === lane.kind).length})`,
      )
    ),
  );
  mount(
    box,
    h("div", { class: "chart-frame" }, chartBox),
    legend,
    timeline.truncated ? h("p", { class: "muted" }, "Showing the first items only.") : null,
    timelineList(items),
  );
  cleanups.push(laneChart(chartBox, {
    lanes: used,
    items,
    height: 56 + used.length * 30,
    onPick: (item) => {
      const target = box.querySelector(`#tl-${items.indexOf(item)}`);
      target?.scrollIntoView({ block: "center", behavior: "smooth" });
      target?.focus();
    },
  }));
}

function messageView(m) {
  return h(
    "li",
    { class: `msg role-${m.role} type-${m.message_type} ${m.is_error ? "failed" : ""}` },
    h(
      "div",
      { class: "msg-head" },
      h("span", { class: "badge" }, m.message_type),
      m.tool_name ? h("span", { class: "mono small" }, m.tool_name) : null,
      m.is_error ? h("span", { class: "badge status-failing" }, "error") : null,
      h("time", { datetime: m.ts, class: "muted small" }, clock(m.ts)),
    ),
    h("pre", { class: "msg-text" }, m.text),
    m.truncated ? h("p", { class: "muted small" }, "(cut short)") : null,
  );
}

async function showTranscript(ctx, box, sessionId) {
  const type = ctx.params.get("type") ?? "";
  const list = h("ol", { class: "transcript", "aria-label": "Transcript" });
  const olderBox = h("div", { class: "more" });
  const select = h(
    "select",
    {
      id: "msg-type",
      onchange: (e) => {
        location.hash = link(`session/${encodeURIComponent(sessionId)}`, {
          tab: "transcript",
          type: e.target.value,
        });
      },
    },
    MESSAGE_TYPES.map((t) =>
      h("option", { value: t, selected: t === type }, t === "" ? "All messages" : t)
    ),
  );
  mount(
    box,
    h("div", { class: "filters" }, h("label", { for: "msg-type" }, "Show"), select),
    olderBox,
    list,
  );
  const load = async (offset) => {
    const page = await op("agent.get_session_transcript", {
      session_id: sessionId,
      message_limit: 40,
      offset,
      content_chars: 4000,
      message_type: type || undefined,
    });
    if (ctx.stale()) return;
    if (page.messages.length === 0 && offset === 0) {
      mount(list, h("li", {}, empty(page.note ?? "No messages.")));
    }
    // Pages come newest first; an older page goes above what is shown.
    list.prepend(...page.messages.map(messageView));
    mount(
      olderBox,
      page.has_more
        ? h(
          "button",
          { type: "button", class: "button", onclick: () => load(page.next_offset) },
          "Load older messages",
        )
        : null,
    );
  };
  await load(0);
}

function showTokens(box, timeline, cleanups) {
  const usage = timeline.usage;
  if (usage.length === 0) {
    mount(box, empty("No model calls recorded for this session."));
    return;
  }
  const tokens = h("div", { class: "chart" });
  const cache = h("div", { class: "chart" });
  mount(
    box,
    h(
      "div",
      { class: "grid-2" },
      card("Tokens per model call", tokens, { id: "tok-title" }),
      card("Cache hit rate", cache, { id: "cache-title" }),
    ),
  );
  let previous = -Infinity;
  const x = usage.map((u) => {
    const t = Math.max(u.t, previous + 1);
    previous = t;
    return t / 1000;
  });
  cleanups.push(timeChart(tokens, {
    x,
    label: "Tokens per model call",
    yFormat: compact,
    series: [
      { label: "input", color: "#3b82f6", values: usage.map((u) => u.input_tokens) },
      { label: "output", color: "#10b981", values: usage.map((u) => u.output_tokens) },
      { label: "cache read", color: "#f59e0b", values: usage.map((u) => u.cache_read_tokens) },
      { label: "cache write", color: "#8b5cf6", values: usage.map((u) => u.cache_write_tokens) },
    ],
  }));
  cleanups.push(timeChart(cache, {
    x,
    label: "Cache hit rate per model call",
    yFormat: (v) => `${Math.round(v)}%`,
    series: [{ label: "cache hits", color: "#f59e0b", values: usage.map((u) => u.cache_hit_pct) }],
  }));
}

/** Renders the page. */
export async function render(ctx) {
  const sessionId = ctx.segments[1];
  if (!sessionId) {
    location.hash = link("sessions");
    return;
  }
  const tab = TABS.some(([key]) => key === ctx.params.get("tab"))
    ? ctx.params.get("tab")
    : "timeline";
  const headBox = h("div", {}, h("div", { class: "skeleton head" }));
  const subagentBox = h("div", { class: "subagent-slot" });
  const body = h("div", { class: "tab-body", id: "tab-body", role: "tabpanel" });
  const tabs = h(
    "nav",
    { class: "tabs", "aria-label": "Session views" },
    TABS.map(([key, label]) =>
      h("a", {
        href: link(
          `session/${encodeURIComponent(sessionId)}`,
          key === "timeline" ? {} : { tab: key },
        ),
        "aria-current": key === tab ? "page" : undefined,
        id: `tab-${key}`,
      }, label)
    ),
  );
  mount(ctx.root, headBox, subagentBox, tabs, body);
  const cleanups = [];
  ctx.onCleanup(() => cleanups.splice(0).forEach((fn) => fn()));
  let timeline;
  const show = async () => {
    timeline = await op("agent.session_timeline", { session_id: sessionId });
    if (ctx.stale()) return;
    mount(headBox, header(timeline));
    mount(subagentBox, subagentList(timeline));
    cleanups.splice(0).forEach((fn) => fn());
    if (tab === "timeline") showTimeline(body, timeline, cleanups);
    else if (tab === "tokens") showTokens(body, timeline, cleanups);
  };
  try {
    await show();
    if (tab === "transcript") await showTranscript(ctx, body, timeline.session.session_id);
  } catch (error) {
    mount(headBox, h("h1", {}, `Session ${shortId(sessionId)}`), failure(error));
    return;
  }
  if (tab !== "transcript") {
    const refresh = debounce(() => show().catch(() => {}), 1500);
    ctx.onLive((event) => {
      const d = event.data;
      const id = timeline.session.session_id;
      // A sub-agent's records change its parent's counts too.
      const mine = (other) => other === id || String(other ?? "").startsWith(`${id}/agent-`);
      if (mine(d.session_id) || (d.sessions ?? []).some(mine)) refresh();
    });
  }
}
