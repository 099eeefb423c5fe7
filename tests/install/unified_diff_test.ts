import assert from "node:assert/strict";
import { join } from "node:path";
import { unifiedDiff } from "../../src/install/unified_diff.ts";

Deno.test("diffs of created, removed and unchanged files", () => {
  assert.equal(unifiedDiff("/f", "same\n", "same\n"), "");
  assert.equal(
    unifiedDiff("/f", undefined, "a\nb\n"),
    "--- /dev/null\n+++ /f\n@@ -0,0 +1,2 @@\n+a\n+b\n",
  );
  assert.equal(unifiedDiff("/f", "a\n", undefined), "--- /f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n");
  assert.equal(
    unifiedDiff("/f", "a", "a\n"),
    "--- /f\n+++ /f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
  );
});

Deno.test("hunks match GNU diff -u line for line", async (t) => {
  const diff = "/usr/bin/diff";
  try {
    await Deno.stat(diff);
  } catch {
    t.step({ name: "diff(1) is not installed", ignore: true, fn: () => {} });
    return;
  }
  const folder = await Deno.makeTempDir({ prefix: "vantage-diff-" });
  try {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`);
    const cases: Array<[string, string]> = [
      [
        lines.join("\n") + "\n",
        [...lines.slice(0, 10), "new", ...lines.slice(10)].join("\n") + "\n",
      ],
      [
        lines.join("\n") + "\n",
        lines.map((line, i) => (i === 3 || i === 30 ? line + "!" : line)).join("\n") + "\n",
      ],
      [
        lines.join("\n") + "\n",
        lines.filter((_, i) => i !== 5 && i !== 11 && i !== 12).join("\n") + "\n",
      ],
      ['{\n  "a": 1\n}\n', '{\n  "a": 1,\n  "b": {\n    "c": 2\n  }\n}\n'],
    ];
    for (const [before, after] of cases) {
      const a = join(folder, "a");
      const b = join(folder, "b");
      await Deno.writeTextFile(a, before);
      await Deno.writeTextFile(b, after);
      const output = await new Deno.Command(diff, { args: ["-u", a, b], stdout: "piped" }).output();
      const expected = new TextDecoder().decode(output.stdout).split("\n").slice(2).join("\n");
      const actual = unifiedDiff("/x", before, after).split("\n").slice(2).join("\n");
      assert.equal(actual, expected);
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
