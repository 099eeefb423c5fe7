// Operations: the catalog this browser may run, each operation's schema,
// and a form built from its input schema to run it and see the response.

import { opRaw } from "../api.js";
import { link } from "../app.js";
import { empty, h, mount } from "../dom.js";

function fieldFor(name, schema, required) {
  const id = `arg-${name}`;
  const label = h(
    "label",
    { for: id },
    name,
    required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null,
  );
  const help = schema.description
    ? h("p", { class: "muted small", id: `${id}-help` }, schema.description)
    : null;
  const describedBy = schema.description ? `${id}-help` : undefined;
  let input;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (Array.isArray(schema.enum)) {
    input = h(
      "select",
      { id, name, "aria-describedby": describedBy },
      h("option", { value: "" }, "(default)"),
      schema.enum.map((v) => h("option", { value: String(v) }, String(v))),
    );
  } else if (type === "boolean") {
    input = h(
      "select",
      { id, name, "aria-describedby": describedBy, dataset: { kind: "boolean" } },
      [["", "(default)"], ["true", "true"], ["false", "false"]].map(([v, l]) =>
        h("option", { value: v }, l)
      ),
    );
  } else if (type === "integer" || type === "number") {
    input = h("input", {
      id,
      name,
      type: "number",
      step: type === "integer" ? "1" : "any",
      "aria-describedby": describedBy,
      dataset: { kind: "number" },
    });
  } else if (type === "object" || type === "array") {
    input = h("textarea", {
      id,
      name,
      rows: "3",
      class: "mono",
      placeholder: type === "array" ? "[ … ] (JSON)" : "{ … } (JSON)",
      "aria-describedby": describedBy,
      dataset: { kind: "json" },
    });
  } else {
    const long = name === "sql" || name === "query" || name === "content";
    input = long
      ? h("textarea", { id, name, rows: "3", "aria-describedby": describedBy, required })
      : h("input", { id, name, type: "text", "aria-describedby": describedBy, required });
  }
  return h("div", { class: "field" }, label, input, help);
}

function readForm(form, schema) {
  const args = {};
  for (const name of Object.keys(schema.properties ?? {})) {
    const el = form.elements.namedItem(name);
    if (!el || el.value === "") continue;
    const kind = el.dataset.kind;
    if (kind === "number") args[name] = Number(el.value);
    else if (kind === "boolean") args[name] = el.value === "true";
    else if (kind === "json") args[name] = JSON.parse(el.value);
    else args[name] = el.value;
  }
  return args;
}

function detail(operation) {
  const schema = operation.input_schema;
  const required = new Set(schema.required ?? []);
  const output = h("div", { class: "op-output", "aria-live": "polite" });
  const form = h(
    "form",
    {
      class: "op-form",
      onsubmit: async (event) => {
        event.preventDefault();
        let args;
        try {
          args = readForm(form, schema);
        } catch (error) {
          mount(
            output,
            h("div", { class: "error-box", role: "alert" }, `Arguments: ${error.message}`),
          );
          return;
        }
        mount(output, h("p", { class: "muted" }, "Running…"));
        const started = performance.now();
        const { status, data } = await opRaw(operation.operation_id, args);
        const ms = Math.round(performance.now() - started);
        mount(
          output,
          h("p", { class: status === 200 ? "ok small" : "bad small" }, `HTTP ${status} · ${ms} ms`),
          h("pre", { class: "json", tabindex: "0" }, JSON.stringify(data, null, 2)),
        );
      },
    },
    Object.entries(schema.properties ?? {}).map(([name, prop]) =>
      fieldFor(name, prop, required.has(name))
    ),
    Object.keys(schema.properties ?? {}).length === 0
      ? h("p", { class: "muted" }, "No arguments.")
      : null,
    h("button", { type: "submit", class: "button primary" }, "Run"),
  );
  return h(
    "div",
    { class: "op-detail" },
    h("h2", { class: "mono" }, operation.operation_id),
    h("p", { class: "lead" }, operation.title),
    h("p", {}, operation.description),
    h(
      "p",
      { class: "muted small" },
      `cassette ${operation.cassette} (${operation.source})`,
      operation.annotations?.readOnlyHint ? " · read-only" : "",
      operation.annotations?.destructiveHint ? " · destructive" : "",
    ),
    form,
    output,
    h(
      "details",
      {},
      h("summary", {}, "Input schema"),
      h("pre", { class: "json" }, JSON.stringify(schema, null, 2)),
    ),
    h(
      "details",
      {},
      h("summary", {}, "Output schema"),
      h("pre", { class: "json" }, JSON.stringify(operation.output_schema, null, 2)),
    ),
  );
}

/** Renders the page. */
export function render(ctx) {
  const selected = ctx.params.get("op");
  const operations = ctx.catalog.operations;
  const groups = new Map();
  for (const operation of operations) {
    const list = groups.get(operation.cassette) ?? [];
    list.push(operation);
    groups.set(operation.cassette, list);
  }
  const chosen = operations.find((o) => o.operation_id === selected);
  mount(
    ctx.root,
    h(
      "div",
      { class: "page-head" },
      h("h1", {}, "Operations"),
      h(
        "p",
        { class: "muted" },
        `${operations.length} operations · scopes ${ctx.catalog.scopes.join(", ")}`,
      ),
    ),
    h(
      "div",
      { class: "ops-layout" },
      h(
        "nav",
        { class: "ops-list card", "aria-label": "Operations" },
        [...groups].map(([cassette, list]) =>
          h(
            "div",
            { class: "ops-group" },
            h("h2", { class: "ops-cassette" }, cassette),
            h(
              "ul",
              {},
              list.map((o) =>
                h(
                  "li",
                  {},
                  h("a", {
                    href: link("operations", { op: o.operation_id }),
                    "aria-current": o.operation_id === selected ? "page" : undefined,
                  }, o.operation_id.slice(cassette.length + 1)),
                )
              ),
            ),
          )
        ),
      ),
      h(
        "section",
        { class: "card op-panel" },
        chosen ? detail(chosen) : empty("Pick an operation to see its schema and run it."),
      ),
    ),
  );
}
