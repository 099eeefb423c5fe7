/**
 * Turns stored bytes into indexable text: decides text vs binary, names a MIME type from the file
 * name, strips markup where markup is noise (HTML) and picks a title.
 *
 * @module
 */

import { posix } from "node:path";

/** What {@linkcode extractText} learned about a document. */
export interface ExtractedText {
  /** MIME type from the file name, or from the content when the extension is unknown. */
  mime: string;
  /** False when the bytes look binary; then `text` is absent. */
  isText: boolean;
  /** Text to index (HTML is reduced to its visible text; everything else is kept verbatim). */
  text?: string;
  /** First Markdown `# heading`, HTML `<title>` (or first `<h1>`), else the file name. */
  title?: string;
}

const MIME_BY_EXTENSION: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  mdx: "text/markdown",
  txt: "text/plain",
  text: "text/plain",
  log: "text/plain",
  rst: "text/x-rst",
  ts: "text/typescript",
  tsx: "text/tsx",
  mts: "text/typescript",
  cts: "text/typescript",
  js: "text/javascript",
  jsx: "text/jsx",
  mjs: "text/javascript",
  cjs: "text/javascript",
  py: "text/x-python",
  pyi: "text/x-python",
  go: "text/x-go",
  rs: "text/x-rust",
  c: "text/x-c",
  h: "text/x-c",
  cc: "text/x-c++",
  cpp: "text/x-c++",
  cxx: "text/x-c++",
  hpp: "text/x-c++",
  hh: "text/x-c++",
  hxx: "text/x-c++",
  java: "text/x-java",
  kt: "text/x-kotlin",
  kts: "text/x-kotlin",
  scala: "text/x-scala",
  cs: "text/x-csharp",
  swift: "text/x-swift",
  rb: "text/x-ruby",
  php: "text/x-php",
  pl: "text/x-perl",
  lua: "text/x-lua",
  r: "text/x-r",
  dart: "text/x-dart",
  zig: "text/x-zig",
  sh: "text/x-shellscript",
  bash: "text/x-shellscript",
  zsh: "text/x-shellscript",
  fish: "text/x-shellscript",
  ps1: "text/x-powershell",
  sql: "application/sql",
  json: "application/json",
  jsonc: "application/json",
  jsonl: "application/jsonl",
  ndjson: "application/jsonl",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  ini: "text/plain",
  cfg: "text/plain",
  conf: "text/plain",
  env: "text/plain",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  xml: "application/xml",
  svg: "image/svg+xml",
  html: "text/html",
  htm: "text/html",
  xhtml: "text/html",
  css: "text/css",
  scss: "text/x-scss",
  less: "text/x-less",
  vue: "text/x-vue",
  svelte: "text/x-svelte",
  graphql: "application/graphql",
  proto: "text/x-protobuf",
  diff: "text/x-diff",
  patch: "text/x-diff",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/x-icon",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tgz: "application/gzip",
  zst: "application/zstd",
  tar: "application/x-tar",
  wasm: "application/wasm",
  woff: "font/woff",
  woff2: "font/woff2",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  sqlite: "application/vnd.sqlite3",
  db: "application/vnd.sqlite3",
  bin: "application/octet-stream",
  exe: "application/vnd.microsoft.portable-executable",
  dll: "application/vnd.microsoft.portable-executable",
  so: "application/x-sharedlib",
  dylib: "application/x-mach-binary",
  o: "application/x-object",
  a: "application/x-archive",
  class: "application/java-vm",
  jar: "application/java-archive",
  pyc: "application/x-python-code",
  bz2: "application/x-bzip2",
  xz: "application/x-xz",
  "7z": "application/x-7z-compressed",
  rar: "application/vnd.rar",
  iso: "application/x-iso9660-image",
  dmg: "application/x-apple-diskimage",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  avif: "image/avif",
  heic: "image/heic",
  psd: "image/vnd.adobe.photoshop",
  ttf: "font/ttf",
  otf: "font/otf",
  eot: "application/vnd.ms-fontobject",
  wav: "audio/wav",
  flac: "audio/flac",
  ogg: "audio/ogg",
  m4a: "audio/mp4",
  mov: "video/quicktime",
  avi: "video/x-msvideo",
  mkv: "video/x-matroska",
  webm: "video/webm",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  parquet: "application/vnd.apache.parquet",
};

// Files conventionally named without an extension that are nevertheless text.
const MIME_BY_NAME: Record<string, string> = {
  makefile: "text/x-makefile",
  gnumakefile: "text/x-makefile",
  dockerfile: "text/x-dockerfile",
  containerfile: "text/x-dockerfile",
  license: "text/plain",
  copying: "text/plain",
  readme: "text/plain",
  changelog: "text/plain",
  ".gitignore": "text/plain",
  ".gitattributes": "text/plain",
  ".editorconfig": "text/plain",
  ".npmrc": "text/plain",
  ".env": "text/plain",
};

/**
 * MIME type implied by a path's file name, or `undefined` when the name says nothing.
 *
 * @example
 * ```ts
 * import { mimeFromPath } from "./text_extract.ts";
 *
 * mimeFromPath("src/app.ts"); // "text/typescript"
 * mimeFromPath("Makefile"); // "text/x-makefile"
 * ```
 */
export function mimeFromPath(path: string): string | undefined {
  const name = posix.basename(path.replaceAll("\\", "/")).toLowerCase();
  const byName = MIME_BY_NAME[name];
  if (byName) return byName;
  const dot = name.lastIndexOf(".");
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return MIME_BY_EXTENSION[name.slice(dot + 1)];
}

// Git looks for a NUL in the first 8000 bytes; a larger window adds little and costs time.
const SNIFF_BYTES = 8000;
// Decoding more than this just to count bad sequences would not change the verdict.
const UTF8_SAMPLE_BYTES = 64 * 1024;
// Latin-1 or Windows-1252 text read as UTF-8 produces a few errors per line; real binaries many.
const MAX_INVALID_RATIO = 0.01;

type Encoding = "utf-8" | "utf-16le" | "utf-16be";

function bomEncoding(bytes: Uint8Array): Encoding | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/**
 * Heuristic text check: UTF-16 with a byte-order mark is text; otherwise any NUL byte near the
 * start, or more than 1% invalid UTF-8 in a sample, means binary. Empty input counts as text.
 *
 * @example
 * ```ts
 * import { isProbablyText } from "./text_extract.ts";
 *
 * isProbablyText(new TextEncoder().encode("héllo")); // true
 * isProbablyText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0])); // false
 * ```
 */
export function isProbablyText(bytes: Uint8Array): boolean {
  if (bomEncoding(bytes)) return true;
  const sniffEnd = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < sniffEnd; i++) if (bytes[i] === 0) return false;
  const sample = bytes.subarray(0, Math.min(bytes.length, UTF8_SAMPLE_BYTES));
  // stream: true keeps a multi-byte character cut by the sample end from counting as invalid.
  const decoded = new TextDecoder("utf-8", { fatal: false }).decode(sample, { stream: true });
  let invalid = 0;
  let controls = 0;
  for (let i = 0; i < decoded.length; i++) {
    const code = decoded.charCodeAt(i);
    if (code === 0xfffd) invalid++;
    // C0 controls other than tab, LF, FF, CR and ESC (ANSI logs) rarely appear in text.
    else if (
      code < 0x20 && code !== 9 && code !== 10 && code !== 12 && code !== 13 && code !== 27
    ) {
      controls++;
    }
  }
  if (decoded.length === 0) return true;
  return (invalid + controls) / decoded.length <= MAX_INVALID_RATIO;
}

/**
 * Decodes text bytes: honours a UTF-8 or UTF-16 byte-order mark (and drops it), replaces invalid
 * UTF-8 sequences with U+FFFD.
 *
 * @example
 * ```ts
 * import { decodeText } from "./text_extract.ts";
 *
 * decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69])); // "hi"
 * ```
 */
export function decodeText(bytes: Uint8Array): string {
  const encoding = bomEncoding(bytes) ?? "utf-8";
  // TextDecoder strips the BOM itself unless told otherwise.
  return new TextDecoder(encoding, { fatal: false }).decode(bytes);
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "\u00a9",
  reg: "\u00ae",
  trade: "\u2122",
  hellip: "\u2026",
  mdash: "\u2014",
  ndash: "\u2013",
  lsquo: "\u2018",
  rsquo: "\u2019",
  ldquo: "\u201c",
  rdquo: "\u201d",
  laquo: "\u00ab",
  raquo: "\u00bb",
  middot: "\u00b7",
  bull: "\u2022",
  times: "\u00d7",
  divide: "\u00f7",
  deg: "\u00b0",
  plusmn: "\u00b1",
  para: "\u00b6",
  sect: "\u00a7",
  cent: "\u00a2",
  pound: "\u00a3",
  euro: "\u20ac",
  yen: "\u00a5",
  larr: "\u2190",
  rarr: "\u2192",
  uarr: "\u2191",
  darr: "\u2193",
  shy: "",
  zwj: "\u200d",
  zwnj: "\u200c",
};

/**
 * Decodes HTML character references: the common named ones and all numeric forms. Unknown names
 * are left as written rather than guessed.
 *
 * @example
 * ```ts
 * import { decodeHtmlEntities } from "./text_extract.ts";
 *
 * decodeHtmlEntities("a &lt; b &amp;&amp; c &#x2713; &#169;"); // "a < b && c ✓ ©"
 * ```
 */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (
    whole,
    body: string,
  ) => {
    if (body[0] === "#") {
      const hex = body[1] === "x" || body[1] === "X";
      const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
      // Out-of-range and surrogate code points become U+FFFD, as browsers do.
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[body] ?? NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAGS =
  "address|article|aside|blockquote|br|dd|details|div|dl|dt|figcaption|figure|footer|form|h[1-6]|" +
  "header|hr|li|main|nav|ol|p|pre|section|summary|table|tbody|td|tfoot|th|thead|tr|ul";
const BLOCK_TAG_RE = new RegExp(`<\\/?(?:${BLOCK_TAGS})\\b[^>]*>`, "gi");

/**
 * Reduces HTML to its readable text: drops comments, `<script>`, `<style>`, `<template>` and
 * `<head>` bodies, turns block elements into line breaks, removes other tags, decodes entities
 * and tidies whitespace.
 *
 * @example
 * ```ts
 * import { htmlToText } from "./text_extract.ts";
 *
 * htmlToText("<p>Hello <b>world</b></p><script>x()</script><p>&copy; 2025</p>");
 * // "Hello world\n\n© 2025"
 * ```
 */
export function htmlToText(html: string): string {
  const stripped = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<(script|style|template|noscript|head)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi, " ")
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/<!DOCTYPE[^>]*>/gi, " ")
    .replace(BLOCK_TAG_RE, "\n")
    .replace(/<\/?[a-zA-Z][^>]*>/g, "");
  return decodeHtmlEntities(stripped)
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0\r]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function htmlTitle(html: string): string | undefined {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html) ??
    /<h1\b[^>]*>([\s\S]*?)<\/h1\s*>/i.exec(html);
  if (!title) return undefined;
  const text = decodeHtmlEntities(title[1].replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
  return text || undefined;
}

/**
 * Title of a Markdown document: a `title:` in leading YAML front matter, else the first ATX
 * `# heading` outside code fences, else the first setext heading (`Title` over `===`).
 *
 * @example
 * ```ts
 * import { markdownTitle } from "./text_extract.ts";
 *
 * markdownTitle("intro\n\n# Vantage design\n\ntext"); // "Vantage design"
 * ```
 */
export function markdownTitle(markdown: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  let start = 0;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
    if (end > 0) {
      for (const line of lines.slice(1, end)) {
        const match = /^title:\s*(.+?)\s*$/.exec(line);
        if (match) {
          const value = match[1].replace(/^(["'])(.*)\1$/, "$2").trim();
          if (value) return value;
        }
      }
      start = end + 1;
    }
  }
  let fence: string | undefined;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const atx = /^ {0,3}#\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx && atx[1]) return atx[1];
    const next = lines[i + 1];
    if (next !== undefined && /^ {0,3}=+\s*$/.test(next) && line.trim() && !/^\s/.test(line)) {
      return line.trim();
    }
  }
  return undefined;
}

/**
 * Whether a path's file name says the file is binary (an image, archive,
 * font, …); unknown names say nothing and give false.
 *
 * @example
 * ```ts
 * import { namedAsBinary } from "./text_extract.ts";
 *
 * namedAsBinary("logo.png"); // true
 * namedAsBinary("app.ts"); // false
 * namedAsBinary("data.bin"); // false: the name does not say
 * ```
 */
export function namedAsBinary(path: string): boolean {
  const mime = mimeFromPath(path);
  return mime !== undefined && !isTextMime(mime);
}

function isTextMime(mime: string): boolean {
  return mime.startsWith("text/") || /(?:json|yaml|toml|xml|sql|graphql|jsonl)/.test(mime);
}

/**
 * Classifies a document and extracts the text to index.
 *
 * Code, plain text, Markdown, JSON, YAML and XML keep their text verbatim (line numbers must
 * stay true for grep and snippets); HTML is reduced to visible text. Binary content has no
 * `text` but still gets a MIME type and title.
 *
 * @example
 * ```ts
 * import { extractText } from "./text_extract.ts";
 *
 * const bytes = new TextEncoder().encode("# Notes\n\nBuy milk.");
 * extractText("notes/todo.md", bytes);
 * // { mime: "text/markdown", isText: true, text: "# Notes\n\nBuy milk.", title: "Notes" }
 * ```
 */
export function extractText(path: string, bytes: Uint8Array): ExtractedText {
  const fileName = posix.basename(path.replaceAll("\\", "/"));
  const fromName = mimeFromPath(path);
  const isText = isProbablyText(bytes);
  if (!isText) {
    const mime = fromName && !isTextMime(fromName) ? fromName : "application/octet-stream";
    return { mime, isText: false, title: fileName };
  }
  const mime = fromName && isTextMime(fromName) ? fromName : "text/plain";
  const decoded = decodeText(bytes);
  if (mime === "text/html") {
    return { mime, isText: true, text: htmlToText(decoded), title: htmlTitle(decoded) ?? fileName };
  }
  const title = mime === "text/markdown" ? markdownTitle(decoded) : undefined;
  return { mime, isText: true, text: decoded, title: title ?? fileName };
}
