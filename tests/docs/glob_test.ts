import assert from "node:assert/strict";
import {
  createGlobMatcher,
  createPathFilter,
  globToRegExp,
  matchesAny,
  matchesGlob,
} from "../../src/docs/glob.ts";

Deno.test("globToRegExp: wildcards stay within a segment", () => {
  const re = globToRegExp("src/*.ts");
  assert.ok(re.test("src/a.ts"));
  assert.ok(!re.test("src/x/a.ts"));
  assert.ok(!re.test("src/a.tsx"));
  assert.ok(globToRegExp("a?c").test("abc"));
  assert.ok(!globToRegExp("a?c").test("a/c"));
});

Deno.test("globToRegExp: ** spans whole directories", () => {
  const re = globToRegExp("src/**/*.ts");
  for (const path of ["src/a.ts", "src/x/a.ts", "src/x/y/z/a.ts"]) assert.ok(re.test(path), path);
  assert.ok(!re.test("lib/a.ts"));
  assert.ok(!re.test("srcx/a.ts"));
  assert.ok(globToRegExp("**/test/**").test("a/b/test/c/d.ts"));
  assert.ok(globToRegExp("**/test/**").test("test/d.ts"));
  assert.ok(globToRegExp("docs/**").test("docs/a/b.md"));
  assert.ok(!globToRegExp("docs/**").test("docsx/a.md"));
  assert.ok(globToRegExp("**").test("any/thing/at.all"));
  // `**` inside a segment is a plain star.
  assert.ok(globToRegExp("a**b").test("axxb"));
  assert.ok(!globToRegExp("a**b").test("ax/xb"));
});

Deno.test("globToRegExp: classes, braces and escapes", () => {
  assert.ok(globToRegExp("file[0-9].txt").test("file7.txt"));
  assert.ok(!globToRegExp("file[0-9].txt").test("filex.txt"));
  assert.ok(globToRegExp("file[!0-9].txt").test("filex.txt"));
  assert.ok(!globToRegExp("file[!0-9].txt").test("file1.txt"));
  assert.ok(globToRegExp("[]x]").test("]"));
  assert.ok(globToRegExp("[abc").test("[abc"), "an unclosed class is literal");
  assert.ok(!globToRegExp("a[/]b").test("a/b"), "a class never matches a slash");
  const braces = globToRegExp("*.{ts,tsx,{md,mdx}}");
  for (const name of ["a.ts", "a.tsx", "a.md", "a.mdx"]) assert.ok(braces.test(name), name);
  assert.ok(!braces.test("a.js"));
  assert.ok(globToRegExp("{a,b").test("{a,b"), "an unclosed brace is literal");
  assert.ok(globToRegExp("\\*.md").test("*.md"));
  assert.ok(!globToRegExp("\\*.md").test("x.md"));
  assert.ok(globToRegExp("a+b(c).md").test("a+b(c).md"), "regex characters are literal");
  assert.ok(globToRegExp("*.MD", { caseInsensitive: true }).test("x.md"));
});

Deno.test("matchesGlob: patterns without a slash match the base name", () => {
  assert.ok(matchesGlob("src/deep/util.ts", "*.ts"));
  assert.ok(matchesGlob("./README.md", "README.md"));
  assert.ok(matchesGlob("a\\b\\c.ts", "a/b/*.ts"), "backslashes are separators");
  assert.ok(!matchesGlob("src/deep/util.ts", "src/*.ts"));
  assert.ok(matchesGlob("src/deep/util.ts", "/src/**"), "a leading slash anchors at the root");
  assert.ok(matchesGlob("web/node_modules/x/index.js", "node_modules/"));
  assert.ok(!matchesGlob("web/node_modules.txt", "node_modules/"));
  assert.ok(matchesGlob("build/out/a.js", "build/out/"));
  assert.ok(!matchesGlob("x/build/out/a.js", "build/out/"));
  assert.ok(!matchesGlob("a.md", "!*.md"));
});

Deno.test("createGlobMatcher: last match wins and ! re-includes", () => {
  const select = createGlobMatcher(["**/*.md", "!drafts/**", "drafts/keep.md"]);
  assert.ok(select("docs/intro.md"));
  assert.ok(!select("drafts/idea.md"));
  assert.ok(select("drafts/keep.md"));
  assert.ok(!select("src/a.ts"));
  assert.ok(!createGlobMatcher([])("anything"));
  assert.ok(!createGlobMatcher(["  "])("anything"));
});

Deno.test("matchesAny uses cached matchers", () => {
  const patterns = ["*.test.ts", "*.spec.ts"];
  assert.ok(matchesAny("src/app.test.ts", patterns));
  assert.ok(matchesAny("src/app.spec.ts", patterns));
  assert.ok(!matchesAny("src/app.ts", patterns));
  assert.ok(!matchesAny("README.md", ["src/**"]));
  assert.ok(matchesAny("README.MD", ["*.md"], { caseInsensitive: true }));
  assert.ok(!matchesAny("README.MD", ["*.md"]));
});

Deno.test("createPathFilter: no include list takes everything, excludes win", () => {
  const everything = createPathFilter(undefined, []);
  assert.equal(everything.selects("any/file.bin"), true);
  assert.equal(everything.excludes("any/"), false);
  const filter = createPathFilter(["*.md"], ["drafts/**"]);
  assert.equal(filter.selects("docs/intro.md"), true);
  assert.equal(filter.selects("drafts/idea.md"), false);
  assert.equal(filter.selects("src/app.ts"), false);
  assert.equal(filter.excludes("drafts/"), true);
  assert.equal(createPathFilter([], ["*.log"]).selects("notes.txt"), true);
});

Deno.test("globs run in linear time: many stars against a long name answer at once", () => {
  const started = performance.now();
  const name = "a".repeat(200);
  // V8's backtracking RegExp needs over half a second for 8 stars on 30 characters; hours here.
  assert.ok(!matchesGlob(name, "*a*a*a*a*a*a*a*a*a*a*a*a*b"));
  assert.ok(matchesGlob(name, "*a*a*a*a*a*a*a*a*a*a*a*a"));
  assert.ok(!createPathFilter(["*a*a*a*a*a*a*a*a*a*a*a*a*b"], undefined).selects(`x/${name}`));
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 2_000, `took ${elapsed.toFixed(0)} ms`);
});

Deno.test("glob classes leave out / even inside a range, and \\ makes a member literal", () => {
  assert.ok(matchesGlob("a.b", "a[+-0]b"));
  assert.ok(matchesGlob("a0b", "a[+-0]b"));
  assert.ok(!globToRegExp("a[+-0]b").test("a/b"));
  assert.ok(!globToRegExp("a[/]b").test("a/b"));
  assert.ok(matchesGlob("d", "[\\d]"));
  assert.ok(!matchesGlob("7", "[\\d]"));
  assert.ok(matchesGlob("a]", "a[\\]]"));
  assert.ok(matchesGlob("é.txt", "[à-ü].txt"));
  assert.ok(!matchesGlob("z", "[z-a]"), "a reversed range holds nothing");
});
