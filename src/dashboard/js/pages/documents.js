// Documents (shown only when the document cassette is in the catalog):
// collections and snapshots to browse, a document's content and its graph
// neighbours. Arguments are named from each operation's own input schema,
// so the page follows the cassette rather than assuming its field names.

import { op } from "../api.js";
import { link } from "../app.js";
import { baseName, card, compact, empty, failure, h, highlight, mount, when } from "../dom.js";

const PREFERRED_COLUMNS = [
  "title",
  "name",
  "type",
  "path",
  "collections",
  "snapshot_id",
  "label",
  "line",
  "size",
  "mime",
  "indexed",
  "score",
];

/** The first array of objects in a result (the list an operation returns). */
function listOf(result) {
  if (Array.isArray(result)) return result;
  for (
    const key of ["results", "documents", "items", "collections", "snapshots", "nodes", "matches"]
  ) {
    if (Array.isArray(result?.[key])) return result[key];
  }
  for (const value of Object.values(result ?? {})) if (Array.isArray(value)) return value;
  return [];
}

function docKey(item) {
  return item.hash ?? item.id ?? item.path ?? item.name;
}

function docLink(item, label) {
  const key = docKey(item);
  return key === undefined
    ? label
    : h("a", { href: link("documents", { doc: String(key) }) }, label);
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return compact(value);
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT/.test(value)) return when(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function genericTable(items, linkColumn) {
  if (items.length === 0) return empty("Nothing here yet.");
  const present = PREFERRED_COLUMNS.filter((c) => items.some((i) => i?.[c] !== undefined)).slice(
    0,
    6,
  );
  const columns = present.length > 0 ? present : Object.keys(items[0] ?? {}).slice(0, 5);
  const linked = columns.includes(linkColumn) ? linkColumn : columns[0];
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        items.map((item) =>
          h(
            "tr",
            {},
            columns.map((c) =>
              h("td", {}, c === linked ? docLink(item, cellText(item[c])) : cellText(item[c]))
            ),
          )
        ),
      ),
    ),
  );
}

/** Search results of `docs.search`, with matches highlighted. */
export function documentResults(result, query) {
  const items = listOf(result);
  if (items.length === 0) return empty("No document matched.");
  return h(
    "ol",
    { class: "hits" },
    items.map((item) =>
      h(
        "li",
        { class: "hit" },
        h(
          "div",
          { class: "hit-head" },
          docLink(item, item.title || baseName(item.path) || String(docKey(item))),
          h("span", { class: "muted small mono" }, item.path ?? ""),
        ),
        item.snippet ? h("pre", { class: "snippet" }, highlight(item.snippet, query)) : null,
      )
    ),
  );
}

/** Arguments for `id` named as its input schema names them. */
function argsFor(ctx, id, candidates) {
  const properties = ctx.ops.get(id)?.input_schema?.properties ?? {};
  const args = {};
  for (const [name, value] of Object.entries(candidates)) {
    if (value !== undefined && name in properties) args[name] = value;
  }
  return args;
}

function selectorFor(ctx, id, key) {
  const hash = /^[0-9a-f]{8,}$/i.test(key) ? key : undefined;
  const args = argsFor(ctx, id, { hash, name: hash === undefined ? key : undefined });
  if (Object.keys(args).length === 0) {
    // The schema names its selector otherwise: pass the key as its first required string.
    const schema = ctx.ops.get(id)?.input_schema ?? {};
    const first = (schema.required ?? [])[0] ?? Object.keys(schema.properties ?? {})[0];
    if (first) args[first] = key;
  }
  return args;
}

async function showDocument(ctx, key) {
  const content = h("div", {}, h("div", { class: "skeleton rows" }));
  const graph = h("div", {});
  mount(
    ctx.root,
    h("p", { class: "crumbs" }, h("a", { href: link("documents") }, "Documents"), " / ", key),
    h(
      "div",
      { class: "grid-doc" },
      card("Document", content, { id: "doc-title" }),
      card("Graph neighbours", graph, { id: "graph-title" }),
    ),
  );
  try {
    const doc = await op("docs.get", {
      ...selectorFor(ctx, "docs.get", key),
      ...argsFor(ctx, "docs.get", { include_content: true }),
    });
    const text = doc.content ?? doc.text ?? doc.body ?? doc.document?.content ?? "";
    const source = doc.document ?? doc;
    const meta = ["title", "path", "mime", "size", "collections", "snapshot_id", "indexed", "hash"]
      .filter((k) => source[k] !== undefined && source[k] !== null)
      .map((k) => [k, source[k]]);
    mount(
      content,
      h(
        "dl",
        { class: "facts" },
        meta.slice(0, 10).map(([k, v]) =>
          h("div", { class: "fact" }, h("dt", {}, k), h("dd", {}, cellText(v)))
        ),
      ),
      text
        ? h("pre", { class: "doc-text" }, String(text))
        : empty("This document has no text to show."),
    );
  } catch (error) {
    mount(content, failure(error));
  }
  if (!ctx.has("docs.graph")) {
    mount(graph, empty("This server offers no graph operation."));
    return;
  }
  try {
    const found = await op("docs.graph", selectorFor(ctx, "docs.graph", key));
    const nodes = found.nodes ?? listOf(found);
    const edges = found.edges ?? [];
    mount(
      graph,
      nodes.length === 0 && edges.length === 0 ? empty("No neighbours recorded.") : null,
      nodes.length > 0 ? genericTable(nodes.slice(0, 100), "name") : null,
      edges.length > 0
        ? h(
          "ul",
          { class: "link-list small mono" },
          edges.slice(0, 100).map((e) => h("li", {}, `${e.from} —${e.relation}→ ${e.to}`)),
        )
        : null,
    );
  } catch (error) {
    mount(graph, failure(error));
  }
}

/** Renders the page. */
export async function render(ctx) {
  const key = ctx.params.get("doc");
  if (key) {
    await showDocument(ctx, key);
    return;
  }
  const collection = ctx.params.get("collection") ?? undefined;
  const snapshot = ctx.params.get("snapshot") ?? undefined;
  const collections = h("div", {});
  const snapshots = h("div", {});
  const documents = h("div", {}, h("div", { class: "skeleton rows" }));
  mount(
    ctx.root,
    h(
      "div",
      { class: "page-head" },
      h("h1", {}, "Documents"),
      h(
        "p",
        { class: "muted" },
        collection
          ? `collection ${collection}`
          : snapshot
          ? `snapshot ${snapshot}`
          : "everything stored",
      ),
    ),
    h(
      "div",
      { class: "grid-2" },
      card("Collections", collections, { id: "col-title" }),
      card("Snapshots", snapshots, { id: "snap-title" }),
    ),
    card("Documents", documents, { id: "docs-title" }),
  );
  const browse = async (id, box, args, linkKey) => {
    if (!ctx.has(id)) {
      mount(box, empty(`This server does not offer ${id}.`));
      return;
    }
    try {
      const items = listOf(await op(id, args));
      if (linkKey === undefined) {
        mount(box, genericTable(items, "path"));
        return;
      }
      mount(
        box,
        items.length === 0 ? empty("None yet.") : h(
          "ul",
          { class: "link-list" },
          items.slice(0, 50).map((item) => {
            const value = typeof item === "string" ? item : item[linkKey] ?? item.name ?? item.id;
            const count = typeof item === "object"
              ? item.count ?? item.document_count ?? item.files_count
              : undefined;
            return h(
              "li",
              {},
              h("a", {
                href: link("documents", {
                  [linkKey === "snapshot_id" ? "snapshot" : "collection"]: String(value),
                }),
              }, item.label ?? String(value)),
              count !== undefined ? h("span", { class: "muted small" }, ` ${count}`) : null,
            );
          }),
        ),
      );
    } catch (error) {
      mount(box, failure(error));
    }
  };
  await Promise.all([
    browse("docs.list_collections", collections, {}, "collection"),
    browse("docs.list_snapshots", snapshots, {}, "snapshot_id"),
    browse(
      "docs.list",
      documents,
      argsFor(ctx, "docs.list", { collection, snapshot_id: snapshot, snapshot, limit: 100 }),
    ),
  ]);
}
