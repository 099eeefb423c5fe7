/**
 * Stores a folder of OTLP export bodies into a fresh store with the intake code of the source
 * tree this file sits in, and prints every table's rows as one digest per table (JSON): what
 * `otlp_store_compare.ts` runs against the code before and after a change (copying this file
 * into the older tree's `scripts/` first), so a change to the intake's speed can be shown to
 * store byte for byte what it stored before. Its imports name its own tree's modules
 * literally, as every import in Vantage does.
 *
 * `deno run -A scripts/otlp_store_digest.ts --bodies <folder> [--group N]`
 *
 * The folder holds `manifest.json` (`[{ file, signal, encoding }]`, in the order to store) and
 * the bodies. Every export is read as received at the same fixed time, so two runs of the same
 * code print the same digests. With `--group N` (and a tree that can), N exports at a time
 * are stored together in one group, as a worker of `serve` stores the exports that queued.
 */
import { join } from "node:path";
import * as intake from "../src/agent/otlp/otlp_intake.ts";
import * as database from "../src/store/database.ts";

/** Received-at time of every export (any fixed instant will do). */
const NOW = 1_780_000_000_000;

interface Entry {
  file: string;
  signal: "traces" | "metrics" | "logs";
  encoding: "protobuf" | "json";
}

const args = Object.fromEntries(
  Deno.args.flatMap((arg, i) =>
    arg.startsWith("--") && i + 1 < Deno.args.length ? [[arg.slice(2), Deno.args[i + 1]]] : []
  ),
) as { bodies?: string; group?: string };
if (args.bodies === undefined) {
  throw new Error("usage: otlp_store_digest.ts --bodies <folder> [--group N]");
}
const group = Number(args.group ?? 1);

const manifest: Entry[] = JSON.parse(await Deno.readTextFile(join(args.bodies, "manifest.json")));
const folder = await Deno.makeTempDir({ prefix: "vantage-otlp-digest-" });
try {
  const db = database.openDatabase(join(folder, "store.db"));
  const prepared = [];
  for (const entry of manifest) {
    const body = await Deno.readFile(join(args.bodies, entry.file));
    prepared.push(intake.prepareOtlpExport(entry.signal, body, entry.encoding, NOW));
  }
  if (group > 1) {
    // An older tree may have no groups (its copy of this file runs unchecked there).
    if (!("storeOtlpExportGroup" in intake)) {
      throw new Error("this tree cannot store exports in groups");
    }
    for (let i = 0; i < prepared.length; i += group) {
      const outcomes = await intake.storeOtlpExportGroup(db, prepared.slice(i, i + group));
      for (const outcome of outcomes) {
        if ("error" in outcome) throw outcome.error;
      }
    }
  } else {
    for (const one of prepared) await intake.storeOtlpExportTakingTurns(db, one);
  }
  const tables = db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  ).all().map((row) => ({ name: String(row.name) }));
  const digests: Record<string, { rows: number; sha256: string }> = {};
  for (const { name } of tables) {
    const quoted = `"${name.replaceAll('"', '""')}"`;
    // The rowid is part of what is stored (the order rows went in), where a table has one.
    let rows: Record<string, unknown>[];
    try {
      rows = db.prepare(`SELECT rowid AS _rowid_, * FROM ${quoted} ORDER BY rowid`).all();
    } catch {
      rows = db.prepare(`SELECT * FROM ${quoted}`).all();
      rows.sort((a, b) => compareText(JSON.stringify(a, bytes), JSON.stringify(b, bytes)));
    }
    // When each migration ran is the only thing that differs between two runs.
    if (name === "schema_migrations") { for (const row of rows) delete row.applied_at; }
    const text = rows.map((row) => JSON.stringify(row, bytes)).join("\n");
    const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    digests[name] = {
      rows: rows.length,
      sha256: Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join(""),
    };
  }
  db.close();
  console.log(JSON.stringify(digests, null, 1));
} finally {
  await Deno.remove(folder, { recursive: true });
}

/** Blobs as hex, so they take part in the digest. */
function bytes(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) {
    return `blob:${Array.from(value, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  }
  return typeof value === "bigint" ? `bigint:${value}` : value;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
