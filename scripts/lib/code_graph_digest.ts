/**
 * A fingerprint of what the code graph extractor makes of a set of files: every node and edge,
 * in the order extracted, hashed per file and over all files. Two versions of the extractor
 * that give the same digest for a corpus produced byte-identical graph rows for it, so a
 * refactoring of the extractor can be checked against the version before it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { type CodeGraph, languageFromPath } from "../../src/docs/code_graph.ts";

/** The extractor under test, so that an older copy of it can be fingerprinted too. */
export type Extract = (path: string, text: string) => CodeGraph;

/** What {@linkcode digestFiles} reports. */
export interface GraphDigest {
  /** SHA-256 over every file's rows, in path order. */
  digest: string;
  /** Files read, by language. */
  files: Record<string, number>;
  /** Nodes produced. */
  nodes: number;
  /** Edges produced. */
  edges: number;
  /** Each file's own SHA-256, by the path it was extracted under. */
  perFile: Map<string, string>;
}

/** One file to fingerprint: the path given to the extractor and its text. */
export interface DigestInput {
  /** Path as the extractor sees it (it picks the language from it and names nodes after it). */
  path: string;
  /** The file's text. */
  text: string;
}

/**
 * The rows of one file's graph as lines: a node as `N key type name line`, an edge as
 * `E from to relation line`, tab-separated, in the extractor's order.
 */
export function graphRows(graph: CodeGraph): string {
  const rows: string[] = [];
  for (const node of graph.nodes) {
    rows.push(`N\t${node.key}\t${node.type}\t${node.name}\t${node.line}`);
  }
  for (const edge of graph.edges) {
    rows.push(`E\t${edge.from}\t${edge.to}\t${edge.relation}\t${edge.line}`);
  }
  return rows.join("\n");
}

/** Fingerprints `inputs` (sorted by path first, so the order they come in does not matter). */
export function digestFiles(inputs: readonly DigestInput[], extract: Extract): GraphDigest {
  const all = createHash("sha256");
  const files: Record<string, number> = {};
  const perFile = new Map<string, string>();
  let nodes = 0;
  let edges = 0;
  const sorted = [...inputs].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const input of sorted) {
    const language = languageFromPath(input.path) ?? "none";
    files[language] = (files[language] ?? 0) + 1;
    const graph = extract(input.path, input.text);
    nodes += graph.nodes.length;
    edges += graph.edges.length;
    // Object keys in the order the extractor set them are part of what must stay the same.
    const rows = `${graphRows(graph)}\n${JSON.stringify(graph)}`;
    const fileHash = createHash("sha256").update(rows).digest("hex");
    perFile.set(input.path, fileHash);
    all.update(`${input.path}\u0000${fileHash}\n`);
  }
  return { digest: all.digest("hex"), files, nodes, edges, perFile };
}

/**
 * Every file below `root` the extractor has a language for, with its path relative to `root`
 * (symbolic links are not followed).
 */
export function corpusFiles(root: string): DigestInput[] {
  const found: DigestInput[] = [];
  const decoder = new TextDecoder();
  const walk = (folder: string): void => {
    for (const entry of Deno.readDirSync(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) walk(path);
      else if (entry.isFile && languageFromPath(entry.name) !== undefined) {
        const name = relative(root, path).replaceAll("\\", "/");
        found.push({ path: name, text: decoder.decode(Deno.readFileSync(path)) });
      }
    }
  };
  walk(root);
  return found;
}
