import assert from "node:assert/strict";
import {
  IgnoreMatcher,
  loadGitignore,
  parseGitignore,
  parseGitignoreLine,
  ruleMatches,
  toRelativePath,
} from "../../src/perception/ignore_rules.ts";
import { walkTree } from "../../src/perception/tree_walk.ts";

Deno.test("parseGitignoreLine handles comments, escapes, negation and trailing spaces", () => {
  assert.equal(parseGitignoreLine(""), undefined);
  assert.equal(parseGitignoreLine("   "), undefined);
  assert.equal(parseGitignoreLine("# comment"), undefined);
  const hash = parseGitignoreLine("\\#literal")!;
  assert.ok(ruleMatches(hash, "#literal", false));
  const bang = parseGitignoreLine("\\!important")!;
  assert.equal(bang.negate, false);
  assert.ok(ruleMatches(bang, "!important", false));
  const neg = parseGitignoreLine("!keep.log")!;
  assert.equal(neg.negate, true);
  const spaced = parseGitignoreLine("name\\ ")!;
  assert.ok(ruleMatches(spaced, "name ", false));
  assert.ok(ruleMatches(parseGitignoreLine("trail   ")!, "trail", false));
  assert.ok(ruleMatches(parseGitignoreLine("crlf\r")!, "crlf", false));
});

Deno.test("unanchored patterns match the base name at any depth", () => {
  const rule = parseGitignoreLine("*.log")!;
  assert.equal(rule.anchored, false);
  assert.ok(ruleMatches(rule, "a.log", false));
  assert.ok(ruleMatches(rule, "deep/dir/a.log", false));
  assert.ok(!ruleMatches(rule, "a.log.txt", false));
  const q = parseGitignoreLine("file?.txt")!;
  assert.ok(ruleMatches(q, "x/file1.txt", false));
  assert.ok(!ruleMatches(q, "x/file12.txt", false));
  const cls = parseGitignoreLine("[abc]-[!0-9].md")!;
  assert.ok(ruleMatches(cls, "b-x.md", false));
  assert.ok(!ruleMatches(cls, "b-1.md", false));
  assert.ok(!ruleMatches(cls, "d-x.md", false));
});

Deno.test("anchored patterns match from the .gitignore's directory only", () => {
  const root = parseGitignoreLine("/build")!;
  assert.equal(root.anchored, true);
  assert.ok(ruleMatches(root, "build", true));
  assert.ok(!ruleMatches(root, "src/build", true));
  const mid = parseGitignoreLine("docs/*.html")!;
  assert.ok(ruleMatches(mid, "docs/a.html", false));
  assert.ok(!ruleMatches(mid, "docs/x/a.html", false));
  assert.ok(!ruleMatches(mid, "x/docs/a.html", false));
  const nested = parseGitignore("/out\nlocal.txt", "pkg/web");
  assert.ok(ruleMatches(nested[0], "pkg/web/out", true));
  assert.ok(!ruleMatches(nested[0], "out", true));
  assert.ok(ruleMatches(nested[1], "pkg/web/deep/local.txt", false));
  assert.ok(!ruleMatches(nested[1], "other/local.txt", false));
});

Deno.test("double-star patterns follow gitignore rules", () => {
  const lead = parseGitignoreLine("**/fixtures")!;
  assert.ok(ruleMatches(lead, "fixtures", true));
  assert.ok(ruleMatches(lead, "a/b/fixtures", true));
  const trail = parseGitignoreLine("logs/**")!;
  assert.ok(ruleMatches(trail, "logs/a", false));
  assert.ok(ruleMatches(trail, "logs/a/b.txt", false));
  assert.ok(!ruleMatches(trail, "logs", true));
  const middle = parseGitignoreLine("a/**/z.txt")!;
  assert.ok(ruleMatches(middle, "a/z.txt", false));
  assert.ok(ruleMatches(middle, "a/b/c/z.txt", false));
  assert.ok(!ruleMatches(middle, "b/a/z.txt", false));
  const plain = parseGitignoreLine("foo**bar")!;
  assert.ok(ruleMatches(plain, "fooxbar", false));
  assert.ok(!ruleMatches(plain, "foo/bar", false));
});

Deno.test("directory-only patterns skip files", () => {
  const rule = parseGitignoreLine("cache/")!;
  assert.equal(rule.dir_only, true);
  assert.ok(ruleMatches(rule, "x/cache", true));
  assert.ok(!ruleMatches(rule, "x/cache", false));
});

Deno.test("IgnoreMatcher: last match wins, negation re-includes, parents cannot be re-included", () => {
  const m = new IgnoreMatcher({ builtin: false });
  m.setGitignore("", "*.log\n!keep.log\nsecret/\n!secret/public.txt\n");
  assert.equal(m.ignores("a.log", false), true);
  assert.equal(m.ignores("x/keep.log", false), false);
  assert.equal(m.ignores("secret", true), true);
  assert.equal(m.ignores("secret/public.txt", false), true, "parent directory is excluded");
  m.setGitignore("", "/*\n!/src\n");
  assert.equal(m.ignores("README.md", false), true);
  assert.equal(m.ignores("src", true), false);
  assert.equal(m.ignores("src/a.ts", false), false);
});

Deno.test("IgnoreMatcher: deeper .gitignore files override their parents", () => {
  const m = new IgnoreMatcher({ builtin: false });
  m.setGitignore("", "*.gen.ts\n");
  m.setGitignore("pkg", "!*.gen.ts\nlocal/\n");
  assert.equal(m.ignores("a.gen.ts", false), true);
  assert.equal(m.ignores("pkg/b.gen.ts", false), false);
  assert.equal(m.ignores("pkg/local/x.ts", false), true);
  assert.equal(m.ignores("local/x.ts", false), false);
  assert.deepEqual(m.gitignoreBases, ["", "pkg"]);
  m.removeGitignore("pkg");
  assert.equal(m.ignores("pkg/b.gen.ts", false), true);
});

Deno.test("IgnoreMatcher: built-in directories and editor files are always ignored", () => {
  const m = new IgnoreMatcher();
  m.setGitignore("", "!node_modules\n");
  assert.equal(m.ignores("node_modules/x/index.js", false), true);
  assert.equal(m.ignores("web/node_modules", true), true);
  assert.equal(m.ignores("py/__pycache__/m.pyc", false), true);
  assert.equal(m.ignores("target/debug/app", false), true);
  assert.equal(m.ignores(".git/HEAD", false), true);
  assert.equal(m.ignores(".git", false), true, "worktree .git files");
  assert.equal(m.ignores("src/.main.ts.swp", false), true);
  assert.equal(m.ignores("src/4913", false), true);
  assert.equal(m.ignores("src/main.ts~", false), true);
  assert.equal(m.ignores("build", false), false, "a file named build is not the build dir");
  assert.equal(m.ignores("src/main.ts", false), false);
  const extra = new IgnoreMatcher({ extraPatterns: ["*.snap"] });
  assert.equal(extra.ignores("a/b.snap", false), true);
});

Deno.test("toRelativePath keeps paths inside the root only", () => {
  assert.equal(toRelativePath("/p", "/p/src/a.ts"), "src/a.ts");
  assert.equal(toRelativePath("/p", "/p"), "");
  assert.equal(toRelativePath("/p", "/q/a.ts"), undefined);
  assert.equal(toRelativePath("/p", "/p2/a.ts"), undefined);
});

Deno.test("loadGitignore and walkTree apply nested .gitignore files and git's exclude file", async () => {
  const root = await Deno.makeTempDir();
  try {
    const write = async (rel: string, text = "x"): Promise<void> => {
      const path = `${root}/${rel}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
    };
    await write(".gitignore", "*.gen.ts\ngenerated/\n");
    await write(".git/info/exclude", "private.txt\n");
    await write("private.txt");
    await write("src/a.ts");
    await write("src/a.gen.ts");
    await write("src/generated/x.ts");
    await write("pkg/.gitignore", "!*.gen.ts\n/tmp\n");
    await write("pkg/b.gen.ts");
    await write("pkg/tmp/c.ts");
    await write("pkg/sub/tmp/d.ts");
    await write("node_modules/dep/index.js");
    const files: string[] = [];
    const m = new IgnoreMatcher();
    const result = await walkTree(root, { ignore: m, onFile: (rel) => files.push(rel) });
    assert.deepEqual(files.sort(), [
      ".gitignore",
      "pkg/.gitignore",
      "pkg/b.gen.ts",
      "pkg/sub/tmp/d.ts",
      "src/a.ts",
    ]);
    assert.deepEqual(result.dirs, ["", "pkg", "src", "pkg/sub", "pkg/sub/tmp"]);
    assert.equal(result.truncated, false);
    assert.ok(result.ignored_dirs >= 4);
    const limited = await walkTree(root, { maxDirs: 2 });
    assert.equal(limited.truncated, true);
    assert.deepEqual(limited.dirs, ["", "pkg"]);
    assert.ok(limited.pending_dirs >= 1);
    const fresh = new IgnoreMatcher();
    assert.equal(await loadGitignore(fresh, root, "pkg"), true);
    assert.equal(fresh.ignores("pkg/tmp/c.ts", false), true);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
