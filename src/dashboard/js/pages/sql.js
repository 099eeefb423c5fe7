// SQL: one read-only SELECT at a time against the store (a write is
// refused by SQLite itself), results as a table.

import { sql } from "../api.js";
import { empty, failure, h, mount } from "../dom.js";

const EXAMPLES = [
  [
    "Sessions per agent",
    "SELECT agent, count(*) AS sessions, round(sum(cost_usd), 4) AS cost_usd\nFROM sessions GROUP BY agent ORDER BY sessions DESC",
  ],
  [
    "Most used tools",
    "SELECT tool_name, count(*) AS calls FROM messages\nWHERE message_type = 'tool_use' GROUP BY tool_name ORDER BY calls DESC LIMIT 20",
  ],
  [
    "Recent hook events",
    "SELECT datetime(ts / 1000, 'unixepoch') AS at, agent, event_type, tool_name\nFROM events ORDER BY ts DESC LIMIT 50",
  ],
  ["Tables", "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"],
];
const KEY = "vantage.sql";

function resultTable(result) {
  if (result.columns.length === 0) return empty("The statement returned no columns.");
  return h(
    "div",
    { class: "table-wrap", tabindex: "0", "aria-label": "Query result" },
    h(
      "table",
      { class: "grid-table" },
      h("thead", {}, h("tr", {}, result.columns.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        result.rows.map((row) =>
          h(
            "tr",
            {},
            row.map((cell) =>
              h(
                "td",
                { class: typeof cell === "number" ? "num" : cell === null ? "null" : "" },
                cell === null
                  ? "NULL"
                  : typeof cell === "object"
                  ? JSON.stringify(cell)
                  : String(cell),
              )
            ),
          )
        ),
      ),
    ),
  );
}

/** Renders the page. */
export function render(ctx) {
  const editor = h("textarea", {
    id: "sql",
    class: "mono sql-editor",
    rows: "7",
    spellcheck: "false",
    "aria-describedby": "sql-help",
  });
  editor.value = sessionStorage.getItem(KEY) ?? EXAMPLES[0][1];
  const limit = h("input", {
    id: "row-limit",
    type: "number",
    min: "1",
    max: "1000",
    value: "200",
    class: "narrow",
  });
  const output = h("div", { class: "sql-output", "aria-live": "polite" });
  const run = async () => {
    sessionStorage.setItem(KEY, editor.value);
    mount(output, h("p", { class: "muted" }, "Running…"));
    try {
      const result = await sql(editor.value, Number(limit.value) || 200);
      if (ctx.stale()) return;
      mount(
        output,
        h(
          "p",
          { class: "muted small result-meta" },
          `${result.row_count} row${result.row_count === 1 ? "" : "s"} · ${result.execution_ms} ms`,
          result.truncated ? " · more rows exist (raise the limit)" : "",
          result.cells_truncated ? " · long cells cut" : "",
        ),
        resultTable(result),
      );
    } catch (error) {
      mount(output, failure(error));
    }
  };
  editor.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      run();
    }
  });
  mount(
    ctx.root,
    h("div", { class: "page-head" }, h("h1", {}, "SQL")),
    h(
      "form",
      {
        class: "card sql-form",
        onsubmit: (e) => {
          e.preventDefault();
          run();
        },
      },
      h("label", { for: "sql" }, "One read-only SELECT"),
      editor,
      h(
        "p",
        { id: "sql-help", class: "muted small" },
        "Runs on a read-only connection: SQLite itself refuses any write. Ctrl+Enter runs it.",
      ),
      h(
        "div",
        { class: "sql-actions" },
        h("button", { type: "submit", class: "button primary" }, "Run query"),
        h("label", { for: "row-limit" }, "Row limit"),
        limit,
        h(
          "div",
          { class: "examples", role: "group", "aria-label": "Examples" },
          EXAMPLES.map(([label, text]) =>
            h("button", {
              type: "button",
              class: "chip",
              onclick: () => {
                editor.value = text;
                run();
              },
            }, label)
          ),
        ),
      ),
    ),
    output,
  );
}
