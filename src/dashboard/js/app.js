// The dashboard shell: hash routes to pages, the shared time range, the
// live-event connection, and the catalog of operations this browser may run
// (pages that need an operation the server lacks are not offered).

import { followEvents, listOps } from "./api.js";
import { failure, h, mount } from "./dom.js";
import * as anomalies from "./pages/anomalies.js";
import * as documents from "./pages/documents.js";
import * as operations from "./pages/operations.js";
import * as overview from "./pages/overview.js";
import * as search from "./pages/search.js";
import * as security from "./pages/security.js";
import * as session from "./pages/session.js";
import * as sessions from "./pages/sessions.js";
import * as sqlPage from "./pages/sql.js";
import * as telemetry from "./pages/telemetry.js";

/** Time ranges offered, in minutes. */
export const RANGES = [
  ["15m", 15],
  ["1h", 60],
  ["6h", 360],
  ["24h", 1440],
  ["7d", 10080],
  ["30d", 43200],
  ["90d", 129600],
  ["1y", 525600],
];
const RANGE_KEY = "vantage.range";

const PAGES = {
  "": { page: overview, nav: "overview", title: "Overview" },
  sessions: { page: sessions, nav: "sessions", title: "Sessions" },
  session: { page: session, nav: "sessions", title: "Session" },
  anomalies: { page: anomalies, nav: "anomalies", title: "Anomalies" },
  telemetry: { page: telemetry, nav: "telemetry", title: "Telemetry" },
  security: { page: security, nav: "security", title: "Security" },
  search: { page: search, nav: "search", title: "Search" },
  documents: { page: documents, nav: "documents", title: "Documents", needs: "docs.list" },
  operations: { page: operations, nav: "operations", title: "Operations" },
  sql: { page: sqlPage, nav: "sql", title: "SQL" },
};

const state = {
  ops: new Map(),
  catalog: null,
  liveListeners: new Set(),
  cleanups: [],
  generation: 0,
  pagePath: undefined,
};

function currentRangeName(params) {
  const asked = params.get("range");
  if (asked && RANGES.some(([name]) => name === asked)) return asked;
  return localStorage.getItem(RANGE_KEY) ?? "7d";
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?");
  const segments = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { segments, params: new URLSearchParams(query) };
}

/** Builds a hash link: link("sessions", {agent: "codex"}). */
export function link(path, params = {}) {
  const query = new URLSearchParams(
    Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== ""),
  ).toString();
  return `#/${path}${query ? "?" + query : ""}`;
}

/** Replaces the current hash's parameters without adding a history entry twice. */
export function setParams(params) {
  const { segments } = parseHash();
  const next = link(segments.map(encodeURIComponent).join("/"), params);
  if (next !== location.hash) location.hash = next;
}

function buildShell() {
  const nav = h(
    "nav",
    { class: "nav", "aria-label": "Main" },
    h(
      "ul",
      {},
      [
        ["overview", "#/", "Overview"],
        ["sessions", "#/sessions", "Sessions"],
        ["anomalies", "#/anomalies", "Anomalies"],
        ["telemetry", "#/telemetry", "Telemetry"],
        ["security", "#/security", "Security"],
        ["search", "#/search", "Search"],
        ["documents", "#/documents", "Documents"],
        ["operations", "#/operations", "Operations"],
        ["sql", "#/sql", "SQL"],
      ].map(([key, href, label]) =>
        h("li", { dataset: { nav: key } }, h("a", { href, dataset: { nav: key } }, label))
      ),
    ),
  );
  const rangeSelect = h(
    "select",
    {
      id: "range",
      "aria-label": "Time range",
      onchange: (event) => {
        localStorage.setItem(RANGE_KEY, event.target.value);
        const { params } = parseHash();
        params.delete("range");
        setParams(Object.fromEntries(params));
        route();
      },
    },
    RANGES.map(([name]) => h("option", { value: name }, name)),
  );
  const live = h("span", {
    id: "live",
    class: "live offline",
    role: "status",
    "aria-live": "polite",
  }, "connecting");
  const header = h(
    "header",
    { class: "topbar" },
    h(
      "a",
      { class: "brand", href: "#/" },
      h("span", { class: "logo", "aria-hidden": "true" }),
      "Vantage",
    ),
    nav,
    h(
      "div",
      { class: "topbar-tools" },
      h("label", { class: "range-label", for: "range" }, "Range"),
      rangeSelect,
      live,
    ),
  );
  document.getElementById("app-header").replaceWith(header);
}

function setLive(status) {
  const el = document.getElementById("live");
  if (!el) return;
  el.className = `live ${status}`;
  el.textContent = status === "live" ? "live" : "reconnecting";
}

async function route(event) {
  const generation = ++state.generation;
  for (const cleanup of state.cleanups.splice(0)) {
    try {
      cleanup();
    } catch {
      // A page's cleanup failing must not block the next page.
    }
  }
  state.liveListeners.clear();
  const { segments, params } = parseHash();
  const entry = PAGES[segments[0] ?? ""] ?? PAGES[""];
  const rangeName = currentRangeName(params);
  const rangeMin = RANGES.find(([name]) => name === rangeName)?.[1] ?? 10080;
  document.getElementById("range").value = rangeName;
  for (const el of document.querySelectorAll(".nav a")) {
    if (el.dataset.nav === entry.nav) el.setAttribute("aria-current", "page");
    else el.removeAttribute("aria-current");
  }
  document.title = `${entry.title} · Vantage`;
  const main = document.getElementById("main");
  main.setAttribute("aria-busy", "true");
  const ctx = {
    root: main,
    segments,
    params,
    rangeMin,
    rangeName,
    ops: state.ops,
    catalog: state.catalog,
    has: (id) => state.ops.has(id),
    onLive: (fn) => state.liveListeners.add(fn),
    onCleanup: (fn) => state.cleanups.push(fn),
    stale: () => generation !== state.generation,
  };
  try {
    if (entry.needs && !state.ops.has(entry.needs) && !state.ops.has("docs.search")) {
      mount(
        main,
        h("h1", {}, entry.title),
        failure(new Error("this server offers no document operations")),
      );
    } else {
      await entry.page.render(ctx);
    }
  } catch (error) {
    if (generation === state.generation) mount(main, h("h1", {}, entry.title), failure(error));
  } finally {
    if (generation === state.generation) main.removeAttribute("aria-busy");
  }
  // After in-page navigation, start keyboard and screen-reader users at the new content.
  const pagePath = segments.join("/");
  const moved = pagePath !== state.pagePath;
  state.pagePath = pagePath;
  if (event?.type === "hashchange" && moved && generation === state.generation) {
    main.focus({ preventScroll: true });
  }
}

async function boot() {
  buildShell();
  try {
    state.catalog = await listOps();
    for (const op of state.catalog.operations) state.ops.set(op.operation_id, op);
  } catch (error) {
    mount(document.getElementById("main"), failure(error));
    return;
  }
  // Documents appear only when the document cassette is in the catalog.
  const hasDocs = state.ops.has("docs.search");
  document.body.classList.toggle("has-docs", hasDocs);
  followEvents((event) => {
    for (const listener of state.liveListeners) {
      try {
        listener(event);
      } catch {
        // One page's listener failing must not stop the stream.
      }
    }
  }, setLive);
  addEventListener("hashchange", route);
  await route();
}

boot();
