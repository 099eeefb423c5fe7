/**
 * The rooms of DESIGN.md, kept: imports point one way (surfaces → server
 * and ops → the features agent, perception, docs → store → model and core),
 * code outside a feature reaches it through its face (`mod.ts`; the
 * operation index loads single operation modules lazily), no module
 * imports itself back through others, and no source file grows past 600
 * lines. Read from the source text, so the rules hold for every import
 * there is, lazy and type-only ones included.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { ROOT } from "./helpers/module_graph.ts";

/**
 * Each room's level: a module imports only from rooms below its own, and
 * from its own room. Surfaces sit above the daemon and the catalog; the
 * three features share a level (they meet only through their faces).
 */
const LEVEL: Readonly<Record<string, number>> = {
  core: 0,
  model: 1,
  store: 2,
  agent: 3,
  perception: 3,
  docs: 3,
  team: 3,
  sync: 3,
  ops: 4,
  server: 5,
  // Surfaces, outermost last: the CLI starts everything, HTTP mounts MCP and the dashboard,
  // installing names the MCP surfaces.
  mcp: 6,
  dashboard: 6,
  http: 7,
  install: 7,
  cli: 8,
};

const FEATURES = new Set(["agent", "perception", "docs", "team", "sync"]);
const SURFACES = new Set(["mcp", "http", "install", "cli"]);

/**
 * What a feature's operations use of the catalog: the operation contract
 * and the service keys. They sit below the features in effect (the test
 * holds them to core, model and store), though they live with the catalog.
 */
const OPERATION_CONTRACT = new Set([
  "src/ops/operation.ts",
  "src/ops/services.ts",
  "src/ops/service_keys.ts",
  "src/ops/naming.ts",
  "src/ops/clamped.ts",
  "src/ops/caller_person.ts",
]);

/** Imports that bypass a face on purpose, by why. */
const DEEP_IMPORTS: ReadonlyArray<{ why: string; imports: readonly string[] }> = [
  {
    // Measured on a loaded 2-core machine: `vantage pricing` through the agent face 3.7–5.6 s,
    // through its own module 0.9–2.3 s; the hook's graph would grow from 13 modules to about 150.
    why: "a CLI command loads only what it runs: a face loads its whole feature (every " +
      "operation, zod, the redaction rules), and the hook runs on every agent tool call",
    imports: [
      "src/cli/hook.ts -> src/agent/hooks/hook_delivery.ts",
      "src/cli/hook.ts -> src/agent/hooks/server_autostart.ts",
      "src/cli/ingest.ts -> src/agent/backfill.ts",
      "src/cli/ingest.ts -> src/agent/usage/price_overrides.ts",
      "src/cli/pricing.ts -> src/agent/usage/price_overrides.ts",
      "src/cli/pricing.ts -> src/agent/usage/pricing.ts",
      "src/cli/build.ts -> src/perception/build_recorder.ts",
      "src/cli/build.ts -> src/perception/build_runner.ts",
      "src/cli/build.ts -> src/perception/file_watcher.ts",
      "src/cli/project.ts -> src/perception/project_detect.ts",
    ],
  },
  {
    why: "the agent face holds the agent operations, which read perception: through it, a cycle",
    imports: [
      "src/perception/engine.ts -> src/agent/hooks/stored_hook_event.ts",
      "src/perception/tool_calls.ts -> src/agent/tool_input.ts",
    ],
  },
  {
    why: "serve loads the OTLP encoder (and protobufjs with it) only when the first export " +
      "arrives, so a server nobody exports to never pays for it",
    imports: ["src/http/otlp_routes.ts -> src/agent/otlp/otlp_response.ts"],
  },
];

const DEEP = new Set(DEEP_IMPORTS.flatMap((group) => group.imports));

/**
 * The built-in operation index: a one-shot command (`vantage call`) loads the one operation it
 * runs, not a feature's face and every operation behind it. It may reach past a face, and only
 * lazily, to a module a feature's cassette lists.
 */
const OPERATION_INDEX = "src/ops/builtin_index.ts";

/** Whether `edge` is the operation index loading an operation module the way it may. */
function indexesOperation(edge: Edge, cassetteModules: ReadonlySet<string>): boolean {
  return edge.from === OPERATION_INDEX && edge.kind === "lazy" && cassetteModules.has(edge.to);
}

/** The modules the features' cassettes list (what their `cassette.ts` files import). */
function cassetteModules(): Set<string> {
  const modules = new Set<string>();
  for (const path of sourceFiles()) {
    if (!FEATURES.has(roomOf(path)) || !path.endsWith("/cassette.ts")) continue;
    for (const edge of importsOf(path)) if (edge.kind === "static") modules.add(edge.to);
  }
  return modules;
}

/** Largest source file, in lines. */
const MAX_LINES = 600;

/**
 * How a module is imported: loaded with the importer, erased (types only),
 * loaded when the `import()` runs, or started as a worker (a graph of its own).
 */
type ImportKind = "static" | "type" | "lazy" | "worker";

/** One import: who imports what, and how. */
interface Edge {
  from: string;
  to: string;
  line: number;
  kind: ImportKind;
}

/** Source without its comments (a JSDoc example imports too), lines kept where they were. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ""))
    // A `//` after a colon is a URL's, not a comment.
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

const IMPORT_FORMS: ReadonlyArray<
  { pattern: RegExp; kind: (match: RegExpExecArray) => ImportKind }
> = [
  // import … from "x" / export … from "x" (type-only when the whole clause is).
  {
    pattern: /^\s*(?:import|export)\s+(type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm,
    kind: (match) => match[1] !== undefined ? "type" : "static",
  },
  // import "x" (for its effects).
  { pattern: /^\s*import\s*()["']([^"']+)["']/gm, kind: () => "static" },
  // import("x"), loaded when it runs.
  { pattern: /\bimport\(\s*()["']([^"']+)["']\s*\)/g, kind: () => "lazy" },
  // new URL("x_worker.ts", import.meta.url): a worker's module.
  {
    pattern: /new URL\(\s*()["'](\.{1,2}\/[^"']+_worker\.ts)["']\s*,\s*import\.meta\.url/g,
    kind: () => "worker",
  },
];

/** Every relative import of one source file, resolved to a path from the repository root. */
function importsOf(path: string): Edge[] {
  return importsIn(path, readFileSync(join(ROOT, path), "utf8"));
}

/** Every relative import in `text`, the source of `path`. */
function importsIn(path: string, text: string): Edge[] {
  const code = withoutComments(text);
  const edges: Edge[] = [];
  for (const { pattern, kind } of IMPORT_FORMS) {
    for (const match of code.matchAll(pattern)) {
      const specifier = match[2];
      const to = normalize(join(dirname(path), specifier));
      // Only modules of Vantage's own rooms (not deno.json, not packages).
      if (!specifier.startsWith(".") || !to.startsWith("src/")) continue;
      edges.push({
        from: path,
        to,
        line: code.slice(0, match.index).split("\n").length,
        kind: kind(match as RegExpExecArray),
      });
    }
  }
  return edges;
}

/** Source files below `src/` (code, markup and styles), paths from the repository root. */
function sourceFiles(): string[] {
  return readdirSync(join(ROOT, "src"), { recursive: true })
    .map((entry) => join("src", String(entry)))
    .filter((path) => /\.(ts|js|css|html)$/.test(path))
    .sort();
}

function roomOf(path: string): string {
  return path.split("/")[1];
}

/** The rule an import breaks, if any. */
function problemOf(edge: Edge): string | undefined {
  const from = roomOf(edge.from);
  const to = roomOf(edge.to);
  if (from === to) return undefined;
  if (LEVEL[from] === undefined) return `room '${from}' has no level in this test`;
  if (LEVEL[to] === undefined) return `room '${to}' has no level in this test`;
  if (FEATURES.has(from) && OPERATION_CONTRACT.has(edge.to)) return undefined;
  if (LEVEL[to] > LEVEL[from]) return `${from} imports ${to}, which sits above it`;
  const faced = FEATURES.has(to) && (FEATURES.has(from) || SURFACES.has(from) || from === "ops");
  if (faced && edge.to !== `src/${to}/mod.ts`) {
    return `${from} reaches into ${to} past its face, src/${to}/mod.ts`;
  }
  if (LEVEL[to] === LEVEL[from] && !faced) return `${from} and ${to} share a level`;
  return undefined;
}

Deno.test("the scan finds every import form and tells type-only ones", () => {
  const code = [
    'import { a } from "./a.ts";',
    'import type { B } from "../b/b.ts";',
    'export { c } from "./c.ts";',
    'export type { D } from "./d.ts";',
    'import "./e.ts";',
    'const f = await import("./f.ts");',
    'new Worker(new URL("./g_worker.ts", import.meta.url), { type: "module" });',
    'import {\n  h,\n  type H,\n} from "./h.ts";',
    '/** ```ts\n * import { x } from "./example.ts";\n * ``` */',
    '// import { y } from "./commented.ts";',
    'import { z } from "zod";',
  ].join("\n");
  const found = importsIn("src/docs/sample.ts", code);
  assert.deepEqual(
    found.map((edge) => `${edge.to}:${edge.line} ${edge.kind}`).sort(),
    [
      "src/b/b.ts:2 type",
      "src/docs/a.ts:1 static",
      "src/docs/c.ts:3 static",
      "src/docs/d.ts:4 type",
      "src/docs/e.ts:5 static",
      "src/docs/f.ts:6 lazy",
      "src/docs/g_worker.ts:7 worker",
      "src/docs/h.ts:8 static",
    ],
  );
});

Deno.test("the rules catch an upward import, a face bypassed and a feature reaching the catalog", () => {
  const edge = (from: string, to: string): Edge => ({ from, to, line: 1, kind: "static" });
  assert.match(problemOf(edge("src/store/x.ts", "src/docs/y.ts"))!, /sits above it/);
  assert.match(problemOf(edge("src/docs/x.ts", "src/cli/y.ts"))!, /sits above it/);
  assert.match(problemOf(edge("src/cli/x.ts", "src/docs/doc_search.ts"))!, /past its face/);
  assert.match(problemOf(edge("src/agent/x.ts", "src/docs/embedder.ts"))!, /past its face/);
  assert.match(problemOf(edge("src/docs/x.ts", "src/ops/executor.ts"))!, /sits above it/);
  assert.match(problemOf(edge("src/mcp/x.ts", "src/dashboard/y.ts"))!, /share a level/);
  assert.equal(problemOf(edge("src/cli/x.ts", "src/docs/mod.ts")), undefined);
  assert.equal(problemOf(edge("src/docs/x.ts", "src/ops/operation.ts")), undefined);
  assert.equal(problemOf(edge("src/server/x.ts", "src/docs/doc_search.ts")), undefined);
  assert.equal(problemOf(edge("src/docs/ops/x.ts", "src/docs/y.ts")), undefined);
  // The operation index reaches operation modules lazily, and nothing else past a face.
  const listed = new Set(["src/agent/ops/overview.ts"]);
  const lazy = { ...edge(OPERATION_INDEX, "src/agent/ops/overview.ts"), kind: "lazy" as const };
  assert.ok(indexesOperation(lazy, listed));
  assert.ok(!indexesOperation({ ...lazy, kind: "static" }, listed));
  assert.ok(!indexesOperation({ ...lazy, to: "src/agent/ops/common.ts" }, listed));
  assert.ok(!indexesOperation({ ...lazy, from: "src/ops/executor.ts" }, listed));
});

Deno.test("imports point one way, and code outside a feature goes through its face", () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  const operationModules = cassetteModules();
  for (const path of sourceFiles().filter((p) => /\.(ts|js)$/.test(p))) {
    for (const edge of importsOf(path)) {
      if (!existsSync(join(ROOT, edge.to))) {
        problems.push(`${edge.from}:${edge.line}: ${edge.to} does not exist`);
        continue;
      }
      const key = `${edge.from} -> ${edge.to}`;
      seen.add(key);
      const problem = problemOf(edge);
      if (problem === undefined || DEEP.has(key)) continue;
      if (indexesOperation(edge, operationModules)) continue;
      problems.push(`${edge.from}:${edge.line}: ${problem}`);
    }
  }
  assert.deepEqual(problems, []);
  // An exception that excuses nothing any more goes.
  const stale = [...DEEP].filter((key) => !seen.has(key));
  assert.deepEqual(stale, [], "exceptions for imports that no longer exist");
  for (const key of DEEP) {
    const [from, to] = key.split(" -> ");
    assert.ok(problemOf({ from, to, line: 1, kind: "static" }), `${key} breaks no rule`);
  }
});

Deno.test("what features use of the catalog depends on nothing above the store", () => {
  for (const contract of OPERATION_CONTRACT) {
    for (const edge of importsOf(contract)) {
      assert.ok(
        OPERATION_CONTRACT.has(edge.to) || LEVEL[roomOf(edge.to)] <= LEVEL.store,
        `${contract} imports ${edge.to}`,
      );
    }
  }
});

Deno.test("no module imports itself back through others", () => {
  const graph = new Map<string, string[]>();
  for (const path of sourceFiles().filter((p) => p.endsWith(".ts"))) {
    // Type-only imports are erased, a lazy import() runs after both modules have loaded, and a
    // worker is a module graph of its own.
    const code = importsOf(path).filter((edge) => edge.kind === "static");
    graph.set(path, code.map((edge) => edge.to).filter((to) => to.endsWith(".ts")));
  }
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (module: string): void => {
    state.set(module, "open");
    stack.push(module);
    for (const next of graph.get(module) ?? []) {
      if (state.get(next) === "open") {
        cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "));
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(module, "done");
  };
  for (const module of graph.keys()) if (!state.has(module)) visit(module);
  assert.deepEqual(cycles, []);
});

Deno.test(`no source file is longer than ${MAX_LINES} lines`, () => {
  const long = sourceFiles()
    .map((path) => ({ path, lines: readFileSync(join(ROOT, path), "utf8").split("\n").length - 1 }))
    .filter((file) => file.lines > MAX_LINES)
    .map((file) => `${relative("src", file.path)}: ${file.lines}`);
  assert.deepEqual(long, []);
});
