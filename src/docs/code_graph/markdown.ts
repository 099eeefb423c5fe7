/**
 * Markdown: inline links and images, reference definitions, autolinks and wiki links, as
 * `LINKS_TO` edges to files (resolved against the document's folder), URLs and wiki pages.
 * Code spans and fenced blocks are masked, so links shown as code are not links.
 *
 * @module
 */
import { posix } from "node:path";
import type { LanguageRules, Source } from "./facts.ts";

function maskMarkdown(text: string): string {
  const lines = text.split("\n");
  let fence: string | undefined;
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (marker) {
      if (fence === undefined) fence = marker[1];
      else if (marker[1][0] === fence[0] && marker[1].length >= fence.length) fence = undefined;
      return " ".repeat(line.length);
    }
    if (fence !== undefined) return " ".repeat(line.length);
    return line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (code) => " ".repeat(code.length));
  }).join("\n");
}

function extractMarkdown(source: Source): void {
  const { path, masked, facts, index } = source;
  const directory = posix.dirname(path);
  const addTarget = (rawTarget: string, at: number) => {
    const target = rawTarget.trim().replace(/^<|>$/g, "");
    if (target === "" || target.startsWith("#")) return;
    const line = index.lineOf(at);
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(target)) {
      facts.links.push({ key: `url:${target}`, type: "url", name: target, line });
      return;
    }
    let local = target.replace(/[#?].*$/, "");
    try {
      local = decodeURI(local);
    } catch {
      // Keep the raw text when it is not valid percent-encoding.
    }
    const resolved = local.startsWith("/")
      ? posix.normalize(local.slice(1))
      : posix.normalize(posix.join(directory, local));
    facts.links.push({ key: `file:${resolved}`, type: "file", name: resolved, line });
  };
  for (
    const match of masked.matchAll(
      /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+["'(][^)]*)?\)/g,
    )
  ) {
    addTarget(match[1], match.index);
  }
  for (const match of masked.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm)) {
    addTarget(match[1], match.index);
  }
  for (const match of masked.matchAll(/<((?:https?|mailto|ftp):[^>\s]+)>/g)) {
    addTarget(match[1], match.index);
  }
  for (const match of masked.matchAll(/\[\[([^\]|#\n]+)(?:#[^\]|\n]*)?(?:\|[^\]\n]*)?\]\]/g)) {
    const page = match[1].trim();
    if (page) {
      facts.links.push({
        key: `wiki:${page}`,
        type: "wiki",
        name: page,
        line: index.lineOf(match.index),
      });
    }
  }
}

/** The rules for Markdown. */
export const markdownRules: LanguageRules = { mask: maskMarkdown, extract: extractMarkdown };
