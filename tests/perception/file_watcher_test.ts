import assert from "node:assert/strict";
import {
  type FileChangeEvent,
  type ProjectWatcher,
  watchProject,
} from "../../src/perception/file_watcher.ts";

const DEBOUNCE = 60;

// 40 source dirs × `filesPerDir` files, plus ignored trees.
async function makeTree(filesPerDir = 2): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "vantage_watch_" });
  await Deno.writeTextFile(`${root}/.gitignore`, "generated/\n*.tmp\n");
  for (let a = 0; a < 8; a++) {
    for (let b = 0; b < 5; b++) {
      const dir = `${root}/src/m${a}/p${b}`;
      await Deno.mkdir(dir, { recursive: true });
      await Promise.all(
        Array.from(
          { length: filesPerDir },
          (_, f) => Deno.writeTextFile(`${dir}/f${f}.ts`, "export {};\n"),
        ),
      );
    }
  }
  for (let i = 0; i < 30; i++) {
    await Deno.mkdir(`${root}/node_modules/dep${i}/lib`, { recursive: true });
    await Deno.writeTextFile(`${root}/node_modules/dep${i}/lib/index.js`, "");
  }
  await Deno.mkdir(`${root}/generated/deep`, { recursive: true });
  await Deno.writeTextFile(`${root}/generated/deep/out.ts`, "");
  await Deno.writeTextFile(`${root}/README.md`, "# x\n");
  return root;
}

// Collects batches and waits until a predicate over everything received holds.
function collector(): {
  events: FileChangeEvent[];
  onChanges: (batch: FileChangeEvent[]) => void;
  until: (pred: (events: FileChangeEvent[]) => boolean, ms?: number) => Promise<void>;
  clear: () => void;
} {
  const events: FileChangeEvent[] = [];
  let check: (() => void) | undefined;
  return {
    events,
    onChanges: (batch) => {
      events.push(...batch);
      check?.();
    },
    until: (pred, ms = 3000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          check = undefined;
          reject(new Error(`timed out; got ${JSON.stringify(events)}`));
        }, ms);
        check = () => {
          if (pred(events)) {
            clearTimeout(timer);
            check = undefined;
            resolve();
          }
        };
        check();
      }),
    clear: () => {
      events.length = 0;
    },
  };
}

const settle = (ms = DEBOUNCE * 4) => new Promise((r) => setTimeout(r, ms));

function rel(root: string, events: FileChangeEvent[]): string[] {
  return events.map((e) => `${e.kind} ${e.path.slice(root.length + 1)}`).sort();
}

async function withWatcher(
  fn: (root: string, watcher: ProjectWatcher, c: ReturnType<typeof collector>) => Promise<void>,
  maxWatchedDirs?: number,
  filesPerDir?: number,
): Promise<void> {
  const root = await makeTree(filesPerDir);
  const c = collector();
  const watcher = await watchProject(root, {
    onChanges: c.onChanges,
    debounceMs: DEBOUNCE,
    mode: "per_directory",
    maxWatchedDirs,
  });
  try {
    await fn(root, watcher, c);
  } finally {
    watcher.close();
    await watcher.closed;
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("watchProject watches only non-ignored directories of a tree of thousands of files", async () => {
  await withWatcher(
    async (root, watcher, c) => {
      const stats = watcher.stats();
      // root + src + 8 module dirs + 40 package dirs
      assert.equal(stats.watched_dirs, 50);
      assert.equal(stats.mode, "per_directory");
      assert.equal(stats.truncated, false);
      assert.equal(stats.skipped_dirs, 0);
      assert.ok(stats.ignored_dirs >= 2, "node_modules and generated are skipped");
      assert.equal(stats.watchers, 1);
      await Deno.writeTextFile(`${root}/src/m7/p4/f49.ts`, "changed");
      await c.until((e) => e.length >= 1);
      assert.deepEqual(rel(root, c.events), ["modify src/m7/p4/f49.ts"]);
    },
    undefined,
    75,
  );
});

Deno.test("watchProject reports create, modify and remove, coalesced per path", async () => {
  await withWatcher(async (root, _watcher, c) => {
    for (let i = 0; i < 50; i++) await Deno.writeTextFile(`${root}/src/m1/p1/f1.ts`, `v${i}`);
    await Deno.writeTextFile(`${root}/src/m2/new.ts`, "new");
    await Deno.remove(`${root}/src/m3/p0/f0.ts`);
    await c.until((e) => e.length >= 3);
    await settle();
    assert.deepEqual(rel(root, c.events), [
      "create src/m2/new.ts",
      "modify src/m1/p1/f1.ts",
      "remove src/m3/p0/f0.ts",
    ]);
    assert.ok(c.events.every((e) => typeof e.ts === "number" && e.ts > 0));
  });
});

Deno.test("watchProject drops ignored paths and short-lived scratch files", async () => {
  await withWatcher(async (root, _watcher, c) => {
    await Deno.writeTextFile(`${root}/src/a.tmp`, "ignored by .gitignore");
    await Deno.writeTextFile(`${root}/src/.a.ts.swp`, "editor swap");
    await Deno.writeTextFile(`${root}/node_modules/dep1/lib/index.js`, "unwatched");
    await Deno.writeTextFile(`${root}/generated/deep/out.ts`, "unwatched");
    await Deno.writeTextFile(`${root}/src/scratch.ts`, "gone soon");
    await Deno.remove(`${root}/src/scratch.ts`);
    // Atomic save: write a temp file and rename it over the target.
    await Deno.writeTextFile(`${root}/src/m0/p0/f1.ts.new`, "saved");
    await Deno.rename(`${root}/src/m0/p0/f1.ts.new`, `${root}/src/m0/p0/f1.ts`);
    await c.until((e) => e.length >= 1);
    await settle();
    assert.deepEqual(rel(root, c.events), ["modify src/m0/p0/f1.ts"]);
  });
});

Deno.test("watchProject follows new directories and reports what they contain", async () => {
  await withWatcher(async (root, watcher, c) => {
    await Deno.mkdir(`${root}/src/feature/sub`, { recursive: true });
    await Deno.writeTextFile(`${root}/src/feature/sub/a.ts`, "a");
    await c.until((e) => e.some((x) => x.path.endsWith("feature/sub/a.ts")));
    assert.equal(watcher.stats().watched_dirs, 52);
    c.clear();
    await Deno.writeTextFile(`${root}/src/feature/sub/b.ts`, "b");
    await c.until((e) => e.length >= 1);
    assert.deepEqual(rel(root, c.events), ["create src/feature/sub/b.ts"]);
    c.clear();
    // Moving a directory away removes the files that were in it.
    await Deno.rename(`${root}/src/feature`, `${root}/moved-out-of-src`);
    await c.until((e) => e.filter((x) => x.kind === "remove").length >= 2);
    assert.ok(
      rel(root, c.events).includes("remove src/feature/sub/a.ts"),
      JSON.stringify(rel(root, c.events)),
    );
  });
});

Deno.test("watchProject re-reads a changed .gitignore", async () => {
  await withWatcher(async (root, _watcher, c) => {
    await Deno.writeTextFile(`${root}/.gitignore`, "generated/\n*.tmp\n*.bak\n");
    await c.until((e) => e.some((x) => x.path.endsWith(".gitignore")));
    c.clear();
    await Deno.writeTextFile(`${root}/src/x.bak`, "now ignored");
    await Deno.writeTextFile(`${root}/src/x.ts`, "seen");
    await c.until((e) => e.length >= 1);
    await settle();
    assert.deepEqual(rel(root, c.events), ["create src/x.ts"]);
  });
});

Deno.test("watchProject stays within its directory budget and says so", async () => {
  await withWatcher(async (root, watcher, c) => {
    const stats = watcher.stats();
    assert.equal(stats.watched_dirs, 10);
    assert.equal(stats.truncated, true);
    assert.ok(stats.skipped_dirs > 0);
    // Breadth-first: the shallow directories are the ones kept.
    await Deno.writeTextFile(`${root}/src/top.ts`, "x");
    await c.until((e) => e.length >= 1);
    await Deno.mkdir(`${root}/src/extra`);
    await Deno.writeTextFile(`${root}/src/extra/y.ts`, "y");
    await settle();
    assert.equal(watcher.stats().watched_dirs, 10, "no directory beyond the budget");
  }, 10);
});

Deno.test("watchProject batches() yields changes and ends on close", async () => {
  const root = await makeTree();
  const watcher = await watchProject(root, { debounceMs: DEBOUNCE, mode: "per_directory" });
  try {
    const iterator = watcher.batches();
    const first = iterator.next();
    await Deno.writeTextFile(`${root}/README.md`, "changed");
    const batch = await first;
    assert.equal(batch.done, false);
    assert.deepEqual(rel(root, batch.value ?? []), ["modify README.md"]);
    const pending = iterator.next();
    watcher.close();
    assert.equal((await pending).done, true);
    await watcher.closed;
    assert.equal(watcher.stats().watchers, 0);
  } finally {
    watcher.close();
    await Deno.remove(root, { recursive: true });
  }
});
