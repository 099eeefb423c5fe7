/**
 * Code the type checker cannot see must not creep back. Every worker is a
 * module file (`*_worker.ts`) started from a literal `new URL(…,
 * import.meta.url)` — not JavaScript in a string behind a `data:` or
 * `blob:` URL — so `deno check` and `deno lint` read it and `deno compile`
 * embeds it; every `import()` names its module literally, so `deno check`
 * follows it and `deno compile` embeds it. A worker's modules load when it
 * starts, so they stay clear of Node's slow-loading built-ins.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { WORKER_MODULES } from "../scripts/compile.ts";
import { moduleGraph, ROOT } from "./helpers/module_graph.ts";

/** A worker's module, as its starter must name it. */
const WORKER_URL = /^\s*new URL\(\s*"(\.{1,2}\/[\w/]+_worker\.ts)",\s*import\.meta\.url\s*\)/;

/**
 * Source without its comments (a comment may mention `import(` or a `data:`
 * URL), its lines where they were.
 */
function withoutComments(text: string): string {
  return text
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, (comment) => comment.replace(/[^\n]/g, ""))
    // A `//` after a colon is a URL's, not a comment.
    .replace(/(^|[^:])\/\/.*$/gm, "$1");
}

/**
 * What in one file breaks the rules, and the worker modules it starts
 * (paths relative to the repository).
 */
function scan(path: string, text: string): { problems: string[]; workers: string[] } {
  const code = withoutComments(text);
  const problems: string[] = [];
  const workers: string[] = [];
  if (/data:(application|text)\/(javascript|typescript)/.test(code)) {
    problems.push(`${path}: JavaScript in a data: URL`);
  }
  if (/URL\.createObjectURL/.test(code)) problems.push(`${path}: a blob: URL`);
  for (const call of code.matchAll(/(?<!function )\b(new Worker|startModuleWorker)\(/g)) {
    const rest = code.slice(call.index + call[0].length);
    // The one place that starts what the others name.
    if (path === "src/core/module_worker.ts" && rest.startsWith("module,")) continue;
    const url = WORKER_URL.exec(rest);
    if (url === null) {
      const argument = rest.slice(0, 40).replace(/\s+/g, " ").trim();
      problems.push(`${path}: ${call[1]}(${argument}…) is not a worker module`);
    } else {
      workers.push(relative(ROOT, join(ROOT, path, "..", url[1])));
    }
  }
  for (const call of code.matchAll(/\bimport\(\s*(.)/g)) {
    if (call[1] !== '"' && call[1] !== "'") {
      const line = code.slice(0, call.index).split("\n").length;
      problems.push(`${path}:${line}: import() with a computed specifier`);
    }
  }
  return { problems, workers };
}

function sourceFiles(): string[] {
  const files = ["main.ts", "mod.ts"];
  for (const folder of ["src", "scripts"]) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true })) {
      const name = String(entry);
      if (name.endsWith(".ts")) files.push(join(folder, name));
    }
  }
  return files.sort();
}

Deno.test("the scan catches workers from strings and computed import specifiers", () => {
  const bad = [
    "const worker = new Worker(`data:application/javascript;base64,${btoa(SOURCE)}`);",
    'const url = "data:text/javascript," + encodeURIComponent(source);',
    "new Worker(URL.createObjectURL(new Blob([source])), { type: 'module' });",
    'new Worker(new URL("./helper.ts", import.meta.url), { type: "module" });',
    "startModuleWorker(url, 'index');",
    "const loaded = await import(new URL(`./${name}.ts`, import.meta.url).href);",
    "const load = (path: string) => import(path);",
    "await import(`./commands/${name}.ts`);",
  ];
  for (const line of bad) {
    assert.notDeepEqual(scan("src/x/y.ts", line).problems, [], line);
  }
  const good = [
    'const w = startModuleWorker(new URL("./checkpoint_worker.ts", import.meta.url), "c");',
    'new Worker(new URL("../store/x_worker.ts", import.meta.url), { type: "module" });',
    'const { command } = await import("./add.ts");',
    'type M = typeof import("./add.ts");',
    "// a comment may say import(name) or data:application/javascript",
    "/**\n * Started from new Worker(`data:application/javascript,…`) once.\n */",
    'const home = "https://example.com/x"; // import(name)',
  ];
  for (const line of good) assert.deepEqual(scan("src/x/y.ts", line).problems, [], line);
  assert.deepEqual(
    scan("src/store/y.ts", 'new Worker(new URL("./a_worker.ts", import.meta.url))').workers,
    ["src/store/a_worker.ts"],
  );
});

Deno.test("no worker is built from a string and no import() computes its specifier", async () => {
  const problems: string[] = [];
  const started = new Set<string>();
  for (const path of sourceFiles()) {
    const found = scan(path, readFileSync(join(ROOT, path), "utf8"));
    problems.push(...found.problems);
    for (const worker of found.workers) started.add(worker);
  }
  assert.deepEqual(problems, []);
  // `deno compile` embeds exactly the workers Vantage starts.
  assert.deepEqual([...started].sort(), [...WORKER_MODULES].sort());
  // Each is in the graph `deno check main.ts` reads (its starter imports its message types).
  const { all } = await moduleGraph("main.ts");
  for (const worker of started) {
    assert.ok(readFileSync(join(ROOT, worker), "utf8").includes("onmessage"), worker);
    assert.ok(all.includes(worker), `${worker} is not type-checked with main.ts`);
  }
});

Deno.test("workers load no Node built-in but node:sqlite, which would slow their start", async () => {
  for (const worker of WORKER_MODULES) {
    const { loadedAtStart } = await moduleGraph(worker);
    assert.deepEqual(
      loadedAtStart.filter((s) => /^(node|npm):/.test(s) && s !== "node:sqlite"),
      [],
      worker,
    );
  }
  // The watchdog imports nothing: the query process may read no other file of Vantage's.
  assert.deepEqual((await moduleGraph("src/store/query/query_watchdog_worker.ts")).loadedAtStart, [
    "src/store/query/query_watchdog_worker.ts",
  ]);
});
