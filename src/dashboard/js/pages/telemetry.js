// Telemetry: what the agents' OpenTelemetry tells beyond their transcripts,
// one tab per question — how fast the models answer, how often their APIs
// fail, how the tools perform, how fast money goes, and how conversations
// grow. Each tab lives in its own module; this page draws the tabs and
// hands the body to the chosen one.

import { link } from "../app.js";
import { h, mount } from "../dom.js";
import * as cost from "./telemetry_cost.js";
import * as errors from "./telemetry_errors.js";
import * as latency from "./telemetry_latency.js";
import * as tools from "./telemetry_tools.js";
import * as traces from "./telemetry_traces.js";

const TABS = [
  ["latency", "Latency", latency],
  ["errors", "Errors", errors],
  ["tools", "Tools", tools],
  ["cost", "Cost", cost],
  ["traces", "Traces", traces],
];

/** Renders the page. */
export async function render(ctx) {
  const [key, label, tab] = TABS.find(([name]) => name === ctx.segments[1]) ?? TABS[0];
  const range = ctx.params.get("range") ?? undefined;
  const body = h("div", { class: "tab-body telemetry-body", role: "tabpanel", id: `tab-${key}` });
  mount(
    ctx.root,
    h(
      "div",
      { class: "page-head" },
      h("h1", {}, "Telemetry"),
      h("p", { class: "muted" }, `${label} · last ${ctx.rangeName}`),
    ),
    h(
      "nav",
      { class: "tabs", "aria-label": "Telemetry views" },
      TABS.map(([name, text]) =>
        h("a", {
          href: link(`telemetry/${name}`, { range }),
          "aria-current": name === key ? "page" : undefined,
          dataset: { tab: name },
        }, text)
      ),
    ),
    body,
  );
  await tab.render(ctx, body);
}
