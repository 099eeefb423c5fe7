// Security: risky shell commands agents ran and likely prompt-injection text
// in what their tools returned, each with its evidence (session, time, the
// command or the matched excerpt, the tool and what it read), from hooks,
// transcripts and telemetry.

import { op } from "../api.js";
import {
  agentBadge,
  barList,
  card,
  compact,
  debounce,
  empty,
  failure,
  h,
  kpi,
  mount,
  severityBadge,
  table,
  when,
} from "../dom.js";
import { sessionLink } from "./telemetry_parts.js";

function kpis(result) {
  // Counted among those listed: the list holds every risky command unless the range has more.
  const listed = result.commands.items;
  const critical = `${listed.filter((c) => c.severity === "critical").length}${
    result.commands.found > listed.length ? "+" : ""
  }`;
  const risky = result.commands.found;
  return h(
    "div",
    { class: "kpis" },
    kpi(
      "Risky commands",
      compact(risky),
      `${critical} critical · ${compact(result.commands.scanned)} commands checked`,
      critical !== "0" ? "bad" : risky > 0 ? "warn" : "good",
    ),
    kpi("Network fetches", compact(result.commands.external_fetches), "curl, wget, git clone…"),
    kpi(
      "Injection findings",
      compact(result.injections.found),
      `in ${compact(result.injections.scanned)} tool results`,
      result.injections.found > 0 ? "bad" : "good",
    ),
  );
}

function commandsTable(items) {
  return table(
    [
      { label: "Severity", cell: (c) => severityBadge(c.severity) },
      { label: "When", cell: (c) => h("span", { title: c.at }, when(c.at)), class: "nowrap" },
      { label: "Agent", cell: (c) => agentBadge(c.agent) },
      { label: "Rules", cell: (c) => h("span", { class: "small" }, c.rules.join(", ")) },
      { label: "Command", cell: (c) => h("code", { class: "command" }, c.command) },
      { label: "Seen in", cell: (c) => h("span", { class: "muted small" }, c.source) },
      { label: "Session", cell: (c) => sessionLink(c.session_id) },
    ],
    items,
    { caption: "Risky commands", class: "commands-table" },
  );
}

function injectionCard(item) {
  return h(
    "article",
    { class: "anomaly severity-critical injection" },
    h(
      "header",
      { class: "anomaly-head" },
      h("h3", { class: "anomaly-kind" }, item.rules.join(", ")),
      agentBadge(item.agent),
      h("span", { class: "muted small", title: item.at }, when(item.at)),
    ),
    h(
      "p",
      { class: "small" },
      "In the result of ",
      h("strong", {}, item.tool ?? "a tool"),
      item.target ? h("span", {}, " reading ", h("code", {}, item.target)) : null,
      ` (${item.source})`,
    ),
    h("pre", { class: "excerpt" }, item.excerpt),
    h("footer", { class: "muted small" }, "Session ", sessionLink(item.session_id)),
  );
}

/** Renders the page. */
export async function render(ctx) {
  const summary = h("p", { class: "muted", "aria-live": "polite" }, `Last ${ctx.rangeName}`);
  const kpiBox = h("div", { class: "kpi-slot" }, h("div", { class: "skeleton kpis-skeleton" }));
  const rulesBox = h("div", { id: "command-rules" });
  const commandsBox = h("div");
  const injectionsBox = h("div", { class: "anomaly-list" });
  mount(
    ctx.root,
    h("div", { class: "page-head" }, h("h1", {}, "Security"), summary),
    kpiBox,
    h(
      "div",
      { class: "grid-2" },
      card("Risky commands per rule", rulesBox, { id: "rules-title" }),
      card("Prompt injection per rule", h("div", { id: "injection-rules" }), {
        id: "injection-rules-title",
      }),
    ),
    card("Risky shell commands", commandsBox, { id: "commands-title" }),
    card("Likely prompt injection in tool results", injectionsBox, { id: "injections-title" }),
  );
  const load = async () => {
    const result = await op("agent.security", { since_min: ctx.rangeMin, limit: 100 });
    if (ctx.stale()) return;
    if (result.truncated) {
      summary.textContent =
        `Last ${ctx.rangeName} · the oldest records were not read: pick a shorter range to see them all`;
    }
    mount(kpiBox, kpis(result));
    mount(
      rulesBox,
      result.commands.by_rule.length === 0
        ? h("p", { class: "muted" }, "No risky command in this range.")
        : barList(
          result.commands.by_rule.map((r) => ({
            label: r.rule,
            value: r.count,
            title: r.severity,
          })),
          { label: "Risky commands per rule", tone: "bad" },
        ),
    );
    mount(
      ctx.root.querySelector("#injection-rules"),
      result.injections.by_rule.length === 0
        ? h("p", { class: "muted" }, "No injection text in this range.")
        : barList(
          result.injections.by_rule.map((r) => ({ label: r.rule, value: r.count })),
          { label: "Injection findings per rule", tone: "bad" },
        ),
    );
    mount(
      commandsBox,
      result.commands.items.length === 0
        ? empty(
          "No risky command in this range.",
          `${result.commands.scanned} shell commands checked: deletes of broad paths, downloads piped to a shell, chmod 777, sudo, force pushes, credential reads, reverse shells.`,
        )
        : commandsTable(result.commands.items),
    );
    mount(
      injectionsBox,
      result.injections.items.length === 0
        ? empty(
          "No injection text found.",
          `${result.injections.scanned} tool results checked for instructions aimed at the model.`,
        )
        : result.injections.items.map(injectionCard),
    );
  };
  try {
    await load();
  } catch (error) {
    mount(kpiBox, failure(error));
  }
  const refresh = debounce(() => load().catch(() => {}), 2000);
  ctx.onLive((event) => {
    if (event.type === "hook" || event.type === "messages") refresh();
  });
}
