/**
 * Vantage's module graph as `deno info --json` reports it, and what of it a
 * module loads when it starts: its imports, transitively, leaving out
 * dynamic `import()`s (deno.json's lazy-dynamic-imports loads those when
 * they run) and type-only imports (erased).
 */
import assert from "node:assert/strict";

/** The repository root, as a path ending in `/`. */
export const ROOT = new URL("../..", import.meta.url).pathname;

interface Dependency {
  code?: { specifier?: string };
  isDynamic?: boolean;
}

/** One module's graph: every module reachable from it by any import. */
export interface ModuleGraph {
  /** Specifiers of every module, type-only and dynamic imports included. */
  all: string[];
  /** Specifiers of the modules loaded when `module` starts, paths relative to the repository. */
  loadedAtStart: string[];
}

/** Runs `deno info --json` on `module` (a path relative to the repository). */
export async function moduleGraph(module: string): Promise<ModuleGraph> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", module],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    roots: string[];
    modules: Array<{ specifier: string; dependencies?: Dependency[] }>;
  };
  const bySpecifier = new Map(info.modules.map((entry) => [entry.specifier, entry]));
  const loaded = new Set<string>();
  const pending = [...info.roots];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      const target = dependency.code?.specifier;
      if (target !== undefined && dependency.isDynamic !== true) pending.push(target);
    }
  }
  const relative = (specifier: string) => specifier.replace(`file://${ROOT}`, "");
  return {
    all: info.modules.map((entry) => relative(entry.specifier)),
    loadedAtStart: [...loaded].map(relative).sort(),
  };
}
