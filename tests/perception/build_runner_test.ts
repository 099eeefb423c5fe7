import assert from "node:assert/strict";
import { type BuildRunRecord, runBuild, watchBuild } from "../../src/perception/build_runner.ts";

const DENO = Deno.execPath();

function denoEval(code: string): string[] {
  return [DENO, "eval", "--quiet", code];
}

class MemorySink {
  chunks: Uint8Array[] = [];
  // Accepts at most 7 bytes per call to exercise the partial-write loop.
  write(chunk: Uint8Array): number {
    const n = Math.min(7, chunk.length);
    this.chunks.push(chunk.slice(0, n));
    return n;
  }
  text(): string {
    return new TextDecoder().decode(new Uint8Array(this.chunks.flatMap((c) => [...c])));
  }
}

Deno.test("runBuild passes output through unchanged and parses errors", async () => {
  const stdout = new MemorySink();
  const stderr = new MemorySink();
  const script = `
    console.log("compiling \\x1b[1mmain.c\\x1b[0m");
    console.error("src/main.c:4:5: error: use of undeclared identifier 'x'");
    console.error("src/util.h:10:1: warning: unused function 'f'");
    Deno.exit(2);
  `;
  const run = await runBuild(denoEval(script), { stdout, stderr, tag: "c", now: () => 1000 });
  assert.equal(run.exit_code, 2);
  assert.equal(run.started_at, 1000);
  assert.equal(run.tag, "c");
  assert.ok(run.duration_ms >= 0);
  assert.equal(stdout.text(), "compiling \x1b[1mmain.c\x1b[0m\n");
  assert.equal(
    stderr.text(),
    "src/main.c:4:5: error: use of undeclared identifier 'x'\nsrc/util.h:10:1: warning: unused function 'f'\n",
  );
  assert.equal(run.tool, "gcc");
  assert.deepEqual(run.errors.map((e) => [e.file, e.line, e.severity]), [
    ["src/main.c", 4, "error"],
    ["src/util.h", 10, "warning"],
  ]);
  assert.ok(run.output_tail.includes("compiling main.c"), "tail is stripped of colours");
  assert.equal(run.output_truncated, false);
  assert.equal(run.command[1], "eval");
});

Deno.test("runBuild reports a missing program as exit code 127 without throwing", async () => {
  const run = await runBuild(["vantage-no-such-program-xyz", "--version"]);
  assert.equal(run.exit_code, 127);
  assert.ok(run.spawn_error !== undefined);
  assert.match(run.errors[0].message, /cannot run vantage-no-such-program-xyz/);
});

Deno.test("runBuild keeps only the last bytes of long output", async () => {
  const script = `
    const line = "x".repeat(99) + "\\n";
    const chunk = new TextEncoder().encode(line.repeat(1000));
    for (let i = 0; i < 30; i++) Deno.stdout.writeSync(chunk);
    console.log("last.c:1:1: error: the end");
  `;
  const run = await runBuild(denoEval(script), { maxCaptureBytes: 64 * 1024, tailChars: 500 });
  assert.equal(run.exit_code, 0);
  assert.ok(run.output_bytes > 3_000_000);
  assert.equal(run.output_truncated, true);
  assert.ok(run.output_tail.length <= 500);
  assert.ok(run.output_tail.endsWith("last.c:1:1: error: the end\n"));
  assert.deepEqual(run.errors.map((e) => e.message), ["the end"]);
});

Deno.test("runBuild stops the child when aborted", async () => {
  const controller = new AbortController();
  const pending = runBuild(denoEval("setTimeout(() => {}, 60000)"), { signal: controller.signal });
  setTimeout(() => controller.abort(), 200);
  const run = await pending;
  assert.equal(run.signal, "SIGTERM");
  assert.equal(run.exit_code, 143);
});

Deno.test("runBuild sets colour variables only when asked", async () => {
  const script = `console.log(Deno.env.get("FORCE_COLOR") ?? "none")`;
  const plain = await runBuild(denoEval(script), { env: { PATH: Deno.env.get("PATH") ?? "" } });
  assert.equal(plain.output_tail.trim(), "none");
  const colored = await runBuild(denoEval(script), { forceColor: true });
  assert.equal(colored.output_tail.trim(), "1");
});

// A hand-driven change source: push() delivers one change, end() finishes the stream.
function changeSource(): { iterable: AsyncIterable<string>; push(v: string): void; end(): void } {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    iterable: {
      async *[Symbol.asyncIterator]() {
        while (true) {
          if (queue.length > 0) {
            yield queue.shift()!;
            continue;
          }
          if (ended) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
    push(v) {
      queue.push(v);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

Deno.test("watchBuild runs at start and once per debounced burst of changes", async () => {
  const source = changeSource();
  const runs: BuildRunRecord[] = [];
  let resolveRun: (() => void) | undefined;
  const loop = watchBuild(denoEval("console.log('built')"), {
    changes: source.iterable,
    debounceMs: 80,
    onRun: (run) => {
      runs.push(run);
      resolveRun?.();
    },
  });
  const nextRun = () => new Promise<void>((resolve) => (resolveRun = resolve));
  await nextRun();
  assert.equal(runs.length, 1);
  const second = nextRun();
  source.push("a.ts");
  source.push("b.ts");
  await new Promise((r) => setTimeout(r, 20));
  source.push("c.ts");
  await second;
  assert.equal(runs.length, 2, "a burst of three changes causes one run");
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(runs.length, 2, "no run without changes");
  source.end();
  await loop;
  assert.equal(runs.length, 2);
  assert.ok(runs.every((r) => r.exit_code === 0 && r.output_tail === "built\n"));
});

Deno.test("watchBuild stops on abort and kills the running build", async () => {
  const source = changeSource();
  const controller = new AbortController();
  const runs: BuildRunRecord[] = [];
  const loop = watchBuild(denoEval("setTimeout(() => {}, 60000)"), {
    changes: source.iterable,
    onRun: (run) => {
      runs.push(run);
    },
    signal: controller.signal,
  });
  await new Promise((r) => setTimeout(r, 200));
  controller.abort();
  await loop;
  assert.equal(runs.length, 1);
  assert.equal(runs[0].signal, "SIGTERM");
});
