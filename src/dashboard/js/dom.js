// Small DOM and formatting helpers shared by every page: an element builder
// (text is always inserted as text, never parsed as HTML) and the number,
// time and cost formats the dashboard uses everywhere.

/**
 * Creates an element. `attrs` keys starting with "on" become listeners;
 * `class`, `text`, `html` are not accepted as HTML: children are nodes or text.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = v;
    } else if (key === "style" && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) el.style.setProperty(k, v);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** 12345 → "12.3k". */
export function compact(n) {
  if (n === undefined || n === null || Number.isNaN(n)) return "–";
  const abs = Math.abs(n);
  if (abs >= 1e9) return (n / 1e9).toFixed(abs >= 1e10 ? 0 : 1) + "B";
  if (abs >= 1e6) return (n / 1e6).toFixed(abs >= 1e7 ? 0 : 1) + "M";
  if (abs >= 1e3) return (n / 1e3).toFixed(abs >= 1e4 ? 0 : 1) + "k";
  return String(Math.round(n * 100) / 100);
}

/** 0.01234 → "$0.0123". */
export function usd(n) {
  if (n === undefined || n === null) return "–";
  if (n === 0) return "$0";
  if (Math.abs(n) < 0.01) return "$" + n.toFixed(4);
  if (Math.abs(n) < 100) return "$" + n.toFixed(2);
  return "$" + Math.round(n).toLocaleString();
}

/**
 * The cost of some model calls, saying when calls have no price instead of showing $0:
 * "$1.20", "$1.20 + 3 unpriced", "unpriced (3 calls)".
 */
export function cost(n, unpricedCalls) {
  const unpriced = unpricedCalls ?? 0;
  if (unpriced === 0) return usd(n);
  const calls = `${unpriced} call${unpriced === 1 ? "" : "s"}`;
  if (!n) return `unpriced (${calls})`;
  return `${usd(n)} + ${unpriced} unpriced`;
}

/** 0.214 → "21.4%". */
export function pct(fraction) {
  if (fraction === undefined || fraction === null) return "–";
  return (Math.round(fraction * 1000) / 10) + "%";
}

/** Milliseconds → "850 ms", "4.2 s", "3m 10s". */
export function duration(ms) {
  if (ms === undefined || ms === null) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m ${Math.round((ms % 60_000) / 1000)}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** An ISO time or ms → "3m ago". */
export function ago(value) {
  const ms = typeof value === "number" ? value : Date.parse(value);
  const seconds = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

/** An ISO time or ms → local "Nov 30, 18:35"; "unknown" when there is none. */
export function when(value) {
  if (value === undefined || value === null || value === 0) return "unknown";
  const date = new Date(typeof value === "number" ? value : Date.parse(value));
  return date.toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
}

/** An ISO time or ms → "18:35:02". */
export function clock(value) {
  const date = new Date(typeof value === "number" ? value : Date.parse(value));
  return date.toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
}

/** Last path segment. */
export function baseName(path) {
  return String(path ?? "").split(/[\\/]/).filter(Boolean).pop() ?? "";
}

/** "843adfa2-d81e-…" → "843adfa2". */
export function shortId(id) {
  return String(id ?? "").slice(0, 8);
}

const AGENT_LABELS = {
  claude_code: "Claude Code",
  codex: "Codex",
  copilot_cli: "Copilot CLI",
  openclaw: "OpenClaw",
  // Applications that send GenAI spans and are none of the four agents.
  gen_ai: "GenAI app",
};

/** The display name of an agent. */
export function agentLabel(agent) {
  return AGENT_LABELS[agent] ?? agent ?? "unknown";
}

/** A colored agent badge. */
export function agentBadge(agent) {
  return h("span", { class: `badge agent agent-${agent ?? "unknown"}` }, agentLabel(agent));
}

/** A severity badge. */
export function severityBadge(severity) {
  return h("span", { class: `badge severity severity-${severity}` }, severity);
}

/**
 * Text with every occurrence of the query's words wrapped in <mark>,
 * built from text nodes so nothing in the text is parsed as HTML.
 */
export function highlight(text, query) {
  const words = (String(query).toLowerCase().match(/[\p{L}\p{N}_.-]+/gu) ?? [])
    .filter((w) => w.length > 0)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const span = h("span");
  if (words.length === 0) return mount(span, text);
  const pattern = new RegExp(`(${words.join("|")})`, "giu");
  let last = 0;
  for (const match of String(text).matchAll(pattern)) {
    span.append(text.slice(last, match.index), h("mark", {}, match[0]));
    last = match.index + match[0].length;
  }
  span.append(text.slice(last));
  return span;
}

/** A table from column definitions {label, cell(row), class?, numeric?}. */
export function table(columns, rows, options = {}) {
  return h(
    "div",
    { class: "table-wrap", tabindex: options.scrollable ? "0" : undefined },
    h(
      "table",
      { class: options.class ?? "" },
      options.caption ? h("caption", { class: "sr-only" }, options.caption) : null,
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map((c) =>
            h("th", { scope: "col", class: c.numeric ? "num" : c.class }, c.label)
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h(
            "tr",
            {},
            columns.map((c) => h("td", { class: c.numeric ? "num" : c.class }, c.cell(row))),
          )
        ),
      ),
    ),
  );
}

/** An empty-state box. */
export function empty(message, hint) {
  return h(
    "div",
    { class: "empty" },
    h("p", {}, message),
    hint ? h("p", { class: "muted" }, hint) : null,
  );
}

/** An error box for a failed call. */
export function failure(error) {
  return h(
    "div",
    { class: "error-box", role: "alert" },
    h("strong", {}, "Could not load: "),
    String(error?.message ?? error),
  );
}

/** A card with a title and body. */
export function card(title, body, extra = {}) {
  return h(
    "section",
    { class: `card ${extra.class ?? ""}`, "aria-labelledby": extra.id },
    h("header", { class: "card-head" }, h("h2", { id: extra.id }, title), extra.actions ?? null),
    body,
  );
}

/** A key figure: label, value, a line of detail, and a tone ("good", "warn", "bad"). */
export function kpi(label, value, detail, tone = "") {
  return h(
    "div",
    { class: `kpi ${tone}` },
    h("div", { class: "kpi-label" }, label),
    h("div", { class: "kpi-value" }, value),
    h("div", { class: "kpi-detail" }, detail ?? ""),
  );
}

/**
 * A list of labelled bars, each as long as its share of the largest value: a distribution
 * (finish reasons, HTTP statuses, rules) read at a glance. Items are {label, value, title?}.
 */
export function barList(items, { format = String, label, tone = "" } = {}) {
  const most = Math.max(1, ...items.map((item) => item.value));
  return h(
    "ul",
    { class: `bar-list ${tone}`, "aria-label": label },
    items.map((item) =>
      h(
        "li",
        { title: item.title },
        h("span", { class: "bar-label" }, item.label),
        h(
          "span",
          { class: "bar-track", "aria-hidden": "true" },
          h("span", { class: "bar-fill", style: { width: `${(item.value / most) * 100}%` } }),
        ),
        h("span", { class: "bar-value num" }, format(item.value)),
      )
    ),
  );
}

/** Debounces `fn` by `ms`. */
export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
