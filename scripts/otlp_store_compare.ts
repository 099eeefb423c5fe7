/**
 * Shows that two versions of the OTLP intake store the same rows: writes one set of export
 * bodies (the bench's GenAI trace and Claude Code log exports, some sent twice, the Claude Code
 * client's real exports and the official OTLP examples), stores them with each source tree's
 * code (`otlp_store_digest.ts`), and compares every table's digest. Exits 1 on a difference.
 *
 * `deno run -A scripts/otlp_store_compare.ts <old tree> [<new tree, default this one>] [--group N]`
 *
 * An old tree is a copy of the code before the change, e.g.
 * `mkdir /tmp/old && git archive <commit> | tar -x -C /tmp/old`. With `--group N` the new tree
 * stores N exports at a time in one group, the old one each alone.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { signalTypes } from "../src/agent/otlp/otlp_schema.ts";
import { logsExport, traceExport } from "./bench/otlp.ts";

const HERE = fileURLToPath(new URL("..", import.meta.url));
/** Start of the bench exports' clock (fixed, so both trees read the same bodies). */
const START = 1_779_990_000_000;

const group = Deno.args.includes("--group") ? Deno.args[Deno.args.indexOf("--group") + 1] : "1";
const trees = Deno.args.filter((arg, i) => !arg.startsWith("--") && Deno.args[i - 1] !== "--group");
if (trees.length === 0) {
  throw new Error("usage: otlp_store_compare.ts <old tree> [<new tree>] [--group N]");
}
const [oldTree, newTree = HERE] = trees;

const bodies = await Deno.makeTempDir({ prefix: "vantage-otlp-bodies-" });
try {
  const manifest: Array<{ file: string; signal: string; encoding: string }> = [];
  const add = async (signal: string, encoding: string, body: Uint8Array) => {
    const file = `${manifest.length}.${encoding === "json" ? "json" : "pb"}`;
    await Deno.writeFile(join(bodies, file), body);
    manifest.push({ file, signal, encoding });
  };
  const fixtures = new URL("../tests/fixtures/otlp/", import.meta.url);
  const claude = JSON.parse(
    await Deno.readTextFile(new URL("claude_code_2.1.197/exports.json", fixtures)),
  ) as Array<{ path: string; body: unknown }>;
  for (const item of claude) {
    await add(
      item.path.slice("/v1/".length),
      "json",
      new TextEncoder().encode(JSON.stringify(item.body)),
    );
  }
  for (const [file, signal] of [["trace.json", "traces"], ["metrics.json", "metrics"]]) {
    await add(signal, "json", await Deno.readFile(new URL(file, fixtures)));
  }
  await add("logs", "json", await Deno.readFile(new URL("logs.json", fixtures)));
  await add("logs", "json", await Deno.readFile(new URL("events.json", fixtures)));
  for (let round = 0; round < 8; round++) {
    await add("traces", "protobuf", traceExport(round, START));
    await add("logs", "protobuf", logsExport(round, START));
  }
  // Sent again (an exporter's retry): merged into what is there, nothing counted twice.
  await add("traces", "protobuf", traceExport(3, START));
  await add("logs", "protobuf", logsExport(5, START));
  // A span of every attribute kind, a rejected span, a span with events and links.
  await add("traces", "protobuf", oddSpans());
  await Deno.writeTextFile(join(bodies, "manifest.json"), JSON.stringify(manifest));

  const digest = async (tree: string, groupOf: string) => {
    // The digest runs inside the tree it measures, importing that tree's modules by name.
    const own = fileURLToPath(new URL("./otlp_store_digest.ts", import.meta.url));
    const there = join(tree, "scripts", "otlp_store_digest.ts");
    if (Deno.realPathSync(own) !== (await Deno.realPath(there).catch(() => ""))) {
      await Deno.copyFile(own, there);
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        there,
        "--bodies",
        bodies,
        "--group",
        groupOf,
      ],
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`storing with ${tree} failed`);
    return JSON.parse(new TextDecoder().decode(output.stdout)) as Record<
      string,
      { rows: number; sha256: string }
    >;
  };
  const before = await digest(oldTree, "1");
  const after = await digest(newTree, group);
  let differ = 0;
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[table];
    const b = after[table];
    const same = a !== undefined && b !== undefined && a.sha256 === b.sha256;
    if (!same) differ++;
    console.log(
      `${same ? "same" : "DIFFERENT"}  ${table}  ${a?.rows ?? "-"} / ${b?.rows ?? "-"} rows`,
    );
  }
  console.log(
    differ === 0
      ? `every table holds the same rows (${manifest.length} exports, group ${group})`
      : `${differ} tables differ`,
  );
  if (differ > 0) Deno.exitCode = 1;
} finally {
  await Deno.remove(bodies, { recursive: true });
}

/** Spans with every kind of attribute value, status, events, links and one invalid id. */
function oddSpans(): Uint8Array {
  const value = (v: unknown) => v;
  // Text redaction must catch, put together here so this file holds none of it as written.
  const bearer = ["Bea", "rer abcdefghijklmnop12345"].join("");
  const assignment = ["pass", "word=", "hunter2 "].join("");
  const spans = [
    {
      traceId: new Uint8Array(16).fill(7),
      spanId: new Uint8Array(8).fill(9),
      parentSpanId: new Uint8Array(8).fill(3),
      name: "chat gpt-5",
      kind: 2,
      startTimeUnixNano: `${START}000000`,
      endTimeUnixNano: `${START + 1234}567891`,
      status: { code: 2, message: "upstream said no, with a key sk-ant-api03-" + "x".repeat(40) },
      attributes: [
        { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
        { key: "gen_ai.conversation.id", value: { stringValue: "odd-conversation" } },
        { key: "gen_ai.request.model", value: { stringValue: "gpt-5" } },
        { key: "gen_ai.usage.input_tokens", value: { intValue: 12 } },
        { key: "flag", value: { boolValue: true } },
        { key: "ratio", value: { doubleValue: 0.25 } },
        { key: "blob", value: { bytesValue: new Uint8Array([1, 2, 250]) } },
        {
          key: "list",
          value: value({ arrayValue: { values: [{ stringValue: "a" }, { intValue: 3 }] } }),
        },
        {
          key: "nested",
          value: value({
            kvlistValue: {
              values: [{ key: "inner", value: { stringValue: bearer } }],
            },
          }),
        },
        { key: "gen_ai.prompt", value: { stringValue: assignment.repeat(400) } },
      ],
      events: [{ name: "exception", timeUnixNano: `${START}000001`, attributes: [] }],
    },
    {
      traceId: new Uint8Array(16),
      spanId: new Uint8Array(8).fill(1),
      name: "invalid trace id",
    },
  ];
  const type = signalTypes("traces").request;
  return type.encode(type.fromObject({
    resourceSpans: [{
      resource: { attributes: [{ key: "service.name", value: { stringValue: "odd" } }] },
      scopeSpans: [{ scope: { name: "odd" }, spans }],
    }],
  })).finish();
}
