// Search: past sessions by what was said in them (matches highlighted) and,
// when the document cassette is in the catalog, stored documents.

import { op } from "../api.js";
import { link } from "../app.js";
import {
  agentBadge,
  baseName,
  cost,
  empty,
  failure,
  h,
  highlight,
  mount,
  shortId,
} from "../dom.js";
import { documentResults } from "./documents.js";

function sessionHits(result, query) {
  if (result.sessions.length === 0) {
    return empty(result.note ?? "Nothing matched.", "Try fewer words or a longer range.");
  }
  return h(
    "ol",
    { class: "hits" },
    result.sessions.map((s) =>
      h(
        "li",
        { class: "hit" },
        h(
          "div",
          { class: "hit-head" },
          agentBadge(s.agent_source),
          h("a", {
            href: link(`session/${encodeURIComponent(s.session_id)}`, { tab: "transcript" }),
            class: "session-link",
          }, s.title ?? `Session ${shortId(s.session_id)}`),
          h(
            "span",
            { class: "muted small" },
            `${baseName(s.cwd)} · ${s.last_activity_ago} · ${s.hit_count} hit${
              s.hit_count === 1 ? "" : "s"
            } · ${cost(s.cost_usd, s.unpriced_calls)}`,
          ),
        ),
        h(
          "ul",
          { class: "snippets" },
          s.snippets.map((snippet) =>
            h(
              "li",
              {},
              h("span", { class: "badge" }, snippet.message_type),
              " ",
              highlight(snippet.text, query),
            )
          ),
        ),
      )
    ),
  );
}

/** Renders the page. */
export async function render(ctx) {
  const query = ctx.params.get("q") ?? "";
  const hasDocs = ctx.has("docs.search");
  const tab = hasDocs && ctx.params.get("tab") === "documents" ? "documents" : "sessions";
  const input = h("input", {
    id: "q",
    type: "search",
    name: "q",
    value: query,
    placeholder: "What was said… e.g. missing-dir",
    autocomplete: "off",
  });
  const results = h("div", { class: "results", "aria-live": "polite" });
  const go = (nextTab) => {
    location.hash = link("search", {
      q: input.value.trim(),
      tab: nextTab === "documents" ? "documents" : undefined,
      range: ctx.params.get("range"),
    });
  };
  mount(
    ctx.root,
    h("div", { class: "page-head" }, h("h1", {}, "Search")),
    h(
      "form",
      {
        class: "searchbar",
        role: "search",
        onsubmit: (e) => {
          e.preventDefault();
          go(tab);
        },
      },
      h("label", { for: "q", class: "sr-only" }, "Search"),
      input,
      h("button", { type: "submit", class: "button primary" }, "Search"),
    ),
    hasDocs
      ? h(
        "nav",
        { class: "tabs", "aria-label": "Search in" },
        [["sessions", "Sessions"], ["documents", "Documents"]].map(([key, label]) =>
          h("a", {
            href: link("search", { q: query, tab: key === "documents" ? key : undefined }),
            "aria-current": key === tab ? "page" : undefined,
          }, label)
        ),
      )
      : null,
    results,
  );
  input.focus();
  if (query === "") {
    mount(
      results,
      empty(
        hasDocs
          ? "Search sessions and stored documents."
          : "Search what agents and people said in past sessions.",
      ),
    );
    return;
  }
  mount(results, h("div", { class: "skeleton rows" }));
  try {
    if (tab === "documents") {
      const found = await op("docs.search", { query });
      if (!ctx.stale()) mount(results, documentResults(found, query));
    } else {
      const found = await op("agent.search_sessions", {
        query,
        project: "*",
        since_min: ctx.rangeMin,
        limit: 10,
        snippet_limit: 3,
      });
      if (!ctx.stale()) {
        mount(
          results,
          h(
            "p",
            { class: "muted" },
            `${found.count} session${
              found.count === 1 ? "" : "s"
            } · ${found.match_mode} match · last ${ctx.rangeName}`,
          ),
          sessionHits(found, query),
        );
      }
    }
  } catch (error) {
    mount(results, failure(error));
  }
}
