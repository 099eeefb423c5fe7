/**
 * `deno run --allow-read scripts/code_graph_digest.ts <folder>…`: prints a SHA-256 over the code
 * graph rows extracted from every source file below the folders, with counts. Run it before and
 * after a change to the extractor: the same digest means the same rows, byte for byte.
 * `--per-file` also prints each file's own digest, to find which file changed.
 */
import { extractCodeGraph } from "../src/docs/code_graph.ts";
import { corpusFiles, digestFiles } from "./lib/code_graph_digest.ts";

const perFile = Deno.args.includes("--per-file");
const roots = Deno.args.filter((arg) => arg !== "--per-file");
if (roots.length === 0) {
  console.error("usage: code_graph_digest.ts [--per-file] <folder>…");
  Deno.exit(2);
}
const inputs = roots.flatMap((root, i) =>
  // Each folder's files are named under its position, so two folders may hold the same paths.
  corpusFiles(root).map((input) => ({ ...input, path: `${i}/${input.path}` }))
);
const started = performance.now();
const result = digestFiles(inputs, (path, text) => extractCodeGraph(path, text));
const seconds = (performance.now() - started) / 1000;
if (perFile) { for (const [path, hash] of result.perFile) console.log(`${hash}  ${path}`); }
console.log(`files: ${JSON.stringify(result.files)}`);
console.log(`nodes: ${result.nodes}, edges: ${result.edges}, ${seconds.toFixed(1)} s`);
console.log(`digest: ${result.digest}`);
