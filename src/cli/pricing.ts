/**
 * `vantage pricing`: the model price table Vantage uses, where it comes from, which override
 * file applies, and how given models are priced.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolvePaths } from "../core/config.ts";
import { loadPriceOverrides, priceOverridesPath } from "../agent/usage/price_overrides.ts";
import {
  DEFAULT_PRICES,
  matchPrice,
  type ModelPrice,
  PRICE_SOURCES,
  PRICE_TABLE_DATE,
  type PriceRates,
} from "../agent/usage/pricing.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";

/** The `pricing` command. */
export const command: Command = {
  name: "pricing",
  summary: "Print the model price table, its sources and the override file in force",
  usage: `Usage: vantage pricing [MODEL...] [--json]

Prints the price table Vantage computes costs with (USD per million tokens), the pages and date
the built-in prices were read from, and the override file (~/.vantage/pricing.json, or
$VANTAGE_HOME/pricing.json) with the rows it adds or replaces.

With MODEL arguments, says how each model is priced: the row that matched, whether it was a
family fallback (a version missing from the table priced as its family's nearest older
version), or that it is unpriced (its calls are counted apart, never as $0).

Override file shape:
  { "<model id prefix>": { "input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75,
      "cache_write_1h": 6, "web_search_per_1k": 10, "fast": 2, "us_only": 1.1,
      "long_context": { "above": 200000, "input": 6, "output": 22.5, "cache_read": 0.6,
        "cache_write": 7.5 } } }
input, output, cache_read and cache_write are required; the rest are optional.
Stored costs are recomputed with the new prices the next time serve or ingest starts.

Options:
  --json       One JSON object
  -h, --help   Show this help`,
  run(args) {
    const { values, positionals } = parseFlags("pricing", args, {
      json: { type: "boolean" },
    }, Infinity);
    const paths = resolvePaths();
    const overridesFile = priceOverridesPath(paths.home);
    const overrides = loadPriceOverrides(paths.home);
    const models = positionals.map((model) => {
      const match = matchPrice(model, overrides);
      return match === undefined ? { model, priced: false as const } : {
        model,
        priced: true as const,
        key: match.key,
        table: match.table,
        fallback: match.fallback,
        price: match.price,
      };
    });
    if (values.json === true) {
      writeStdout(
        JSON.stringify(
          {
            as_of: PRICE_TABLE_DATE,
            sources: PRICE_SOURCES,
            overrides_file: overridesFile,
            overrides_file_exists: existsSync(overridesFile),
            overrides,
            prices: DEFAULT_PRICES,
            ...(models.length > 0 ? { models } : {}),
          },
          null,
          2,
        ) + "\n",
      );
      return Promise.resolve(0);
    }
    const lines: string[] = [];
    if (models.length > 0) {
      for (const m of models) {
        if (!m.priced) {
          lines.push(`${m.model}: unpriced (no row or family fits; its calls count as unpriced)`);
          continue;
        }
        const how = m.fallback ? `family fallback to ${m.key}` : m.key;
        lines.push(`${m.model}: ${how} (${m.table}) ${rates(m.price)}${extras(m.price)}`);
      }
      writeStdout(lines.join("\n") + "\n");
      return Promise.resolve(0);
    }
    lines.push(`Model prices, USD per million tokens, as published on ${PRICE_TABLE_DATE}:`);
    for (const source of Object.values(PRICE_SOURCES)) {
      lines.push(`  ${source.name} (as of ${source.as_of}): ${source.urls.join(" ")}`);
    }
    const count = Object.keys(overrides).length;
    lines.push(
      existsSync(overridesFile)
        ? `Overrides: ${overridesFile} (${count} row${count === 1 ? "" : "s"}, ahead of the table)`
        : `Overrides: none (${overridesFile} does not exist)`,
    );
    lines.push("");
    const header = ["model", "input", "output", "cache read", "write 5m", "write 1h", "notes"];
    const rows: string[][] = [];
    for (const [key, price] of Object.entries(overrides)) rows.push(row(`${key} *`, price));
    for (const [key, price] of Object.entries(DEFAULT_PRICES)) rows.push(row(key, price));
    lines.push(...table(header, rows));
    if (count > 0) lines.push("", "* from the override file");
    lines.push(
      "",
      "Ids match a row by prefix on whole name segments (dated ids find their row); a missing",
      "version is priced as its family's nearest older version of the same major version;",
      "anything else is unpriced and counted apart, never as $0.",
    );
    writeStdout(lines.join("\n") + "\n");
    return Promise.resolve(0);
  },
};

function usd(value: number): string {
  return value === 0 ? "0" : `${Number(value.toPrecision(6))}`;
}

function rates(r: PriceRates): string {
  return `in ${usd(r.input)} / out ${usd(r.output)} / read ${usd(r.cache_read)} / write ${
    usd(r.cache_write)
  }${r.cache_write_1h !== undefined ? ` (1h ${usd(r.cache_write_1h)})` : ""}`;
}

function extras(price: ModelPrice): string {
  const notes: string[] = [];
  if (price.long_context !== undefined) {
    const long = price.long_context;
    notes.push(`prompt > ${long.above / 1000}K: ${rates(long)}`);
  }
  if (price.fast !== undefined) notes.push(`fast ×${price.fast}`);
  if (price.us_only !== undefined) notes.push(`US-only ×${price.us_only}`);
  if (price.web_search_per_1k !== undefined) {
    notes.push(`web search $${price.web_search_per_1k}/1k`);
  }
  return notes.length > 0 ? `; ${notes.join("; ")}` : "";
}

function row(key: string, price: ModelPrice): string[] {
  return [
    key,
    usd(price.input),
    usd(price.output),
    usd(price.cache_read),
    usd(price.cache_write),
    price.cache_write_1h !== undefined ? usd(price.cache_write_1h) : "",
    extras(price).replace(/^; /, ""),
  ];
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) =>
      i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])
    ).join("  ").trimEnd();
  return [line(header), ...rows.map(line)];
}
