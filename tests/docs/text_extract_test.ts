import assert from "node:assert/strict";
import {
  decodeHtmlEntities,
  decodeText,
  extractText,
  htmlToText,
  isProbablyText,
  markdownTitle,
  mimeFromPath,
  namedAsBinary,
} from "../../src/docs/text_extract.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("mimeFromPath knows code, data and markup extensions", () => {
  const expected: Record<string, string> = {
    "README.md": "text/markdown",
    "notes.txt": "text/plain",
    "src/a.ts": "text/typescript",
    "a.js": "text/javascript",
    "a.py": "text/x-python",
    "main.go": "text/x-go",
    "lib.rs": "text/x-rust",
    "x.c": "text/x-c",
    "x.cpp": "text/x-c++",
    "x.h": "text/x-c",
    "Main.java": "text/x-java",
    "a.rb": "text/x-ruby",
    "run.sh": "text/x-shellscript",
    "data.json": "application/json",
    "conf.yaml": "application/yaml",
    "conf.yml": "application/yaml",
    "index.html": "text/html",
    "style.css": "text/css",
    "Cargo.toml": "application/toml",
    "rows.csv": "text/csv",
    "feed.xml": "application/xml",
    "photo.PNG": "image/png",
    "dir\\Makefile": "text/x-makefile",
  };
  for (const [path, mime] of Object.entries(expected)) assert.equal(mimeFromPath(path), mime, path);
  assert.equal(mimeFromPath("unknown.zzz"), undefined);
  assert.equal(mimeFromPath("noext"), undefined);
  assert.equal(mimeFromPath(".hidden"), undefined);
});

Deno.test("isProbablyText separates text from binary", () => {
  assert.ok(isProbablyText(encode("plain ascii\nlines")));
  assert.ok(isProbablyText(encode("unicode: héllo wörld ✓ 漢字")));
  assert.ok(isProbablyText(new Uint8Array(0)));
  assert.ok(isProbablyText(encode("\u001b[31mred\u001b[0m log line")));
  assert.ok(
    !isProbablyText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])),
  );
  const random = new Uint8Array(4096);
  for (let i = 0; i < random.length; i++) random[i] = (i * 7919 + 13) % 255 + 1;
  assert.ok(!isProbablyText(random));
  // A multi-byte character split at the sample boundary must not count as invalid.
  const long = encode("é".repeat(40_000));
  assert.ok(isProbablyText(long));
});

Deno.test("UTF-16 with a byte-order mark is decoded", () => {
  const utf16 = new Uint8Array([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]);
  assert.ok(isProbablyText(utf16));
  assert.equal(decodeText(utf16), "hi");
  assert.equal(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x6f, 0x6b])), "ok");
});

Deno.test("decodeHtmlEntities handles named and numeric references", () => {
  assert.equal(
    decodeHtmlEntities("&lt;a&gt; &amp; &quot;q&quot; &#39; &#x263A; &copy; &unknown; &#0;"),
    '<a> & "q" \' ☺ © &unknown; \ufffd',
  );
});

Deno.test("htmlToText keeps visible text only", () => {
  const html = `<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style></head>
<body><!-- hidden --><h1>Main&nbsp;title</h1>
<script>alert("x")</script>
<p>First <b>bold</b> paragraph.</p><ul><li>one</li><li>two &amp; three</li></ul></body></html>`;
  const text = htmlToText(html);
  // nbsp counts as whitespace and is folded into a plain space.
  assert.equal(text, "Main title\n\nFirst bold paragraph.\n\none\n\ntwo & three");
  assert.ok(!text.includes("alert"));
  assert.ok(!text.includes("color"));
  assert.ok(!text.includes("hidden"));
});

Deno.test("markdownTitle finds front matter, ATX and setext headings outside fences", () => {
  assert.equal(markdownTitle('---\ntitle: "From front matter"\n---\n# Other'), "From front matter");
  assert.equal(markdownTitle("```\n# not this\n```\n\n## Sub\n# Real title #\n"), "Real title");
  assert.equal(markdownTitle("Setext Title\n============\n\ntext"), "Setext Title");
  assert.equal(markdownTitle("no heading here"), undefined);
});

Deno.test("extractText: markdown and code are kept verbatim", () => {
  const md = extractText("docs/guide.md", encode("\ufeff# Guide\n\nBody text.\n"));
  assert.deepEqual(md, {
    mime: "text/markdown",
    isText: true,
    text: "# Guide\n\nBody text.\n",
    title: "Guide",
  });
  const code = extractText("src/mod.ts", encode("export const x = 1;\n"));
  assert.equal(code.text, "export const x = 1;\n");
  assert.equal(code.title, "mod.ts");
  assert.equal(code.mime, "text/typescript");
  const json = extractText("a/data.json", encode('{"k": [1, 2]}'));
  assert.equal(json.text, '{"k": [1, 2]}');
  assert.equal(json.mime, "application/json");
});

Deno.test("extractText: HTML is stripped and titled", () => {
  const page = extractText(
    "site/index.html",
    encode("<html><head><title> Home &amp; Away </title></head><body><p>Hi</p></body></html>"),
  );
  assert.equal(page.mime, "text/html");
  assert.equal(page.title, "Home & Away");
  assert.equal(page.text, "Hi");
  const noTitle = extractText("x.htm", encode("<h1>Heading <em>one</em></h1><p>x</p>"));
  assert.equal(noTitle.title, "Heading one");
});

Deno.test("extractText: binary content has no text", () => {
  const png = extractText("img/logo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  assert.deepEqual(png, { mime: "image/png", isText: false, title: "logo.png" });
  const fakeText = extractText("data.txt", new Uint8Array([1, 0, 2, 0]));
  assert.equal(fakeText.mime, "application/octet-stream");
  assert.equal(fakeText.isText, false);
  const unknown = extractText("LICENSE.unknownext", encode("MIT License"));
  assert.equal(unknown.mime, "text/plain");
  assert.equal(unknown.text, "MIT License");
});

Deno.test("namedAsBinary: only names that say binary", () => {
  assert.equal(namedAsBinary("img/logo.PNG"), true);
  assert.equal(namedAsBinary("dist/app.wasm"), true);
  assert.equal(namedAsBinary("blob.bin"), true);
  assert.equal(namedAsBinary("src/app.ts"), false);
  assert.equal(namedAsBinary("icon.svg"), false, "SVG is XML text");
  assert.equal(namedAsBinary("Makefile"), false);
  assert.equal(namedAsBinary("data.unknownext"), false, "an unknown name says nothing");
});
