/**
 * Everything search needs from one document, written when it is stored and
 * removed when it is superseded or deleted: its full-text row (title, path,
 * body), its embedding vectors (a few pieces of its text), the words it adds
 * to the fuzzy vocabulary, and its code graph.
 *
 * Budgets keep ingest fast on large files while leaving them fully stored
 * and greppable: the keyword index takes the first {@linkcode MAX_INDEXED_BYTES}
 * of text, embeddings the first {@linkcode MAX_EMBED_PIECES} pieces, the
 * vocabulary the first {@linkcode MAX_VOCABULARY_CHARS} characters and the
 * graph files up to {@linkcode MAX_GRAPH_CHARS} characters.
 *
 * @module
 */
import { dirname, posix } from "node:path";
import type { DatabaseSync } from "../store/database.ts";
import { allTerms, deleteFtsRow, insertFtsRow, insertTerms } from "../store/docs_fts.ts";
import { deleteGraph, insertGraph } from "../store/docs_graph.ts";
import { bumpCounter, readState, writeState } from "../store/docs_statements.ts";
import { deleteVectors, insertVector } from "../store/docs_vectors.ts";
import { setVectorModel } from "../store/docs_documents.ts";
import { extractCodeGraph, languageFromPath } from "./code_graph.ts";
import { type Embedder, vectorToBytes } from "./embedder.ts";

/** Bytes of a document's text that go into the keyword index. */
export const MAX_INDEXED_BYTES = 1024 * 1024;
/** Pieces of text embedded per document. */
export const MAX_EMBED_PIECES = 8;
/** Target characters per embedded piece. */
export const EMBED_PIECE_CHARS = 1200;
/** Characters of a document scanned for fuzzy-vocabulary words. */
export const MAX_VOCABULARY_CHARS = 4 * 1024;
/** Largest text (characters) whose code graph is extracted. */
export const MAX_GRAPH_CHARS = 1024 * 1024;

/** What indexing needs to know about one document. */
export interface IndexInput {
  /** Document id. */
  id: number;
  /** Its path (absolute for files). */
  path: string;
  /** Its title. */
  title: string;
  /** Its extracted text (already limited to the indexing budget); undefined for binaries. */
  text?: string;
  /** The row already names the embedding model (it was inserted with it). */
  modelRecorded?: boolean;
}

/** How documents are embedded while they are indexed. */
export interface IndexContext {
  /** Id of the embedding model vectors are stored under. */
  model: string;
  /** Synchronous embedding, when the embedder has one; otherwise vectors are added later. */
  embed?: (text: string) => Float32Array;
}

/**
 * Writes a document's index rows. Binaries are stored and listed but not
 * indexed: they get no rows at all.
 */
export function indexDocument(db: DatabaseSync, context: IndexContext, input: IndexInput): void {
  if (input.text === undefined) return;
  const text = input.text;
  insertFtsRow(db, input.id, input.title, input.path, text);
  addVocabulary(db, `${input.title} ${input.path} ${text.slice(0, MAX_VOCABULARY_CHARS)}`);
  if (context.embed !== undefined) {
    const pieces = embeddingPieces(input.title, text);
    for (const [seq, piece] of pieces.entries()) {
      insertVector(db, input.id, seq, context.model, vectorToBytes(context.embed(piece)));
    }
    if (!input.modelRecorded) setVectorModel(db, input.id, context.model);
  }
  if (text.length <= MAX_GRAPH_CHARS && languageFromPath(input.path) !== undefined) {
    storeGraph(db, input.id, input.path, text);
  }
}

/** Removes a document's index rows (keyword row, vectors, graph). */
export function unindexDocument(db: DatabaseSync, id: number): void {
  deleteFtsRow(db, id);
  if (deleteVectors(db, id) > 0) bumpCounter(db, "vector_removals");
  deleteGraph(db, id);
}

/**
 * Splits text into the pieces that get embedded: paragraphs packed up to
 * {@linkcode EMBED_PIECE_CHARS}, overlong ones cut at a line or word break,
 * at most {@linkcode MAX_EMBED_PIECES}. The title leads the first piece
 * unless the text already starts with it.
 *
 * @example
 * ```ts
 * import { embeddingPieces } from "./doc_index.ts";
 * embeddingPieces("Notes", "short text"); // ["Notes\nshort text"]
 * ```
 */
export function embeddingPieces(title: string, text: string): string[] {
  const pieces: string[] = [];
  let current = "";
  const flush = () => {
    if (current.trim() !== "") pieces.push(current);
    current = "";
  };
  const paragraphs = text.slice(0, EMBED_PIECE_CHARS * MAX_EMBED_PIECES * 2).split(/\n\s*\n/);
  for (const paragraph of paragraphs) {
    if (pieces.length >= MAX_EMBED_PIECES) break;
    let rest = paragraph;
    while (rest.length > EMBED_PIECE_CHARS) {
      flush();
      const cut = breakPoint(rest, EMBED_PIECE_CHARS);
      current = rest.slice(0, cut);
      rest = rest.slice(cut);
      flush();
      if (pieces.length >= MAX_EMBED_PIECES) break;
    }
    if (current.length + rest.length + 2 > EMBED_PIECE_CHARS) flush();
    current = current === "" ? rest : `${current}\n\n${rest}`;
  }
  flush();
  const limited = pieces.slice(0, MAX_EMBED_PIECES);
  const trimmedTitle = title.trim();
  if (trimmedTitle !== "" && !text.trimStart().startsWith(trimmedTitle)) {
    if (limited.length === 0) limited.push(trimmedTitle);
    else limited[0] = `${trimmedTitle}\n${limited[0]}`;
  }
  return limited;
}

function breakPoint(text: string, limit: number): number {
  const line = text.lastIndexOf("\n", limit);
  if (line > limit / 2) return line + 1;
  const space = text.lastIndexOf(" ", limit);
  if (space > limit / 2) return space + 1;
  return limit;
}

// ---------------------------------------------------------------------------------------------
// Fuzzy vocabulary

const KNOWN_TERMS = new WeakMap<DatabaseSync, Set<string>>();

/**
 * The words of a text that belong in the fuzzy vocabulary: lowercase, 3–32
 * characters, without digits (numbers, hashes and numbered identifiers are
 * not what people misspell, and they would swamp the vocabulary). Letters,
 * digits and `_` make words; any non-ASCII character counts as a letter.
 */
export function vocabularyWords(text: string): Set<string> {
  // A hand-written scan: this runs over every stored text, and a Unicode-class regex was
  // several times slower.
  const words = new Set<string>();
  let start = -1;
  let digit = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const isDigit = c >= 48 && c <= 57;
    const isWord = isDigit || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 ||
      (c > 127 && c !== 0xa0 && !(c >= 0x2000 && c <= 0x206f) && c !== 0x3000);
    if (isWord) {
      if (start < 0) {
        start = i;
        digit = false;
      }
      if (isDigit) digit = true;
    } else if (start >= 0) {
      const length = i - start;
      if (length >= 3 && length <= 32 && !digit) words.add(text.slice(start, i).toLowerCase());
      start = -1;
    }
  }
  return words;
}

function addVocabulary(db: DatabaseSync, text: string): void {
  let known = KNOWN_TERMS.get(db);
  if (known === undefined) {
    known = new Set(allTerms(db));
    KNOWN_TERMS.set(db, known);
  }
  const fresh: string[] = [];
  for (const word of vocabularyWords(text)) {
    if (!known.has(word)) {
      known.add(word);
      fresh.push(word);
    }
  }
  if (fresh.length > 0) insertTerms(db, fresh);
}

/**
 * Forgets this process's copy of the vocabulary (after a rolled-back
 * transaction, words it recorded may not have been stored).
 */
export function forgetVocabulary(db: DatabaseSync): void {
  KNOWN_TERMS.delete(db);
}

// ---------------------------------------------------------------------------------------------
// Code graph

function storeGraph(db: DatabaseSync, id: number, path: string, text: string): void {
  const graph = extractCodeGraph(path, text);
  if (graph.edges.length === 0) return;
  // Only what this file defines (itself and its symbols) is stored as a node: references,
  // modules and links are fully described by their keys, so storing them again per file would
  // only cost writes.
  const nodes = graph.nodes.filter((node) =>
    node.key.startsWith("symbol:") || node.key === `file:${path.replaceAll("\\", "/")}`
  ).map((node) => ({ node_key: node.key, type: node.type, name: node.name, line: node.line }));
  const edges = graph.edges.map((edge) => ({
    src: edge.from,
    dst: edge.to,
    relation: edge.relation as string,
    line: edge.line,
  }));
  const fileKey = `file:${path.replaceAll("\\", "/")}`;
  for (const edge of graph.edges) {
    if (edge.relation !== "IMPORTS" && edge.relation !== "INCLUDES") continue;
    if (!edge.to.startsWith("module:")) continue;
    const target = resolveModule(path, edge.to.slice("module:".length));
    if (target === undefined) continue;
    const key = `file:${target}`;
    edges.push({ src: fileKey, dst: key, relation: edge.relation, line: edge.line });
  }
  insertGraph(db, id, nodes, edges);
}

/**
 * The file a relative import most likely names, as a path (without guessing
 * an extension the import left out): `./x` and `../x` from the importing
 * file's folder, Python's `.x.y` / `..x`, and quoted C includes of headers.
 */
export function resolveModule(fromPath: string, spec: string): string | undefined {
  const base = dirname(fromPath.replaceAll("\\", "/"));
  if (spec.startsWith("./") || spec.startsWith("../")) return posix.normalize(`${base}/${spec}`);
  const python = /^(\.+)([\w.]*)$/.exec(spec);
  if (python !== null && fromPath.endsWith(".py")) {
    let folder = base;
    for (let i = 1; i < python[1].length; i++) folder = posix.dirname(folder);
    const rest = python[2].replaceAll(".", "/");
    return rest === "" ? `${folder}/__init__.py` : `${folder}/${rest}.py`;
  }
  if (/\.(h|hh|hpp|hxx|inc)$/i.test(spec) && !spec.startsWith("/")) {
    return posix.normalize(`${base}/${spec}`);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Vectors for embedders without a synchronous path

/** A document whose vectors an asynchronous embedder must compute. */
export interface PendingVectors {
  /** Document id. */
  id: number;
  /** Its title. */
  title: string;
  /** Its extracted text. */
  text: string;
}

const COMPLETE_KEY = "vectors_complete_for";

/** Whether every latest text document has vectors from `model`. */
export function vectorsComplete(db: DatabaseSync, model: string): boolean {
  return readState(db, COMPLETE_KEY) === model;
}

/** Records that every latest text document has vectors from `model`. */
export function markVectorsComplete(db: DatabaseSync, model: string): void {
  writeState(db, COMPLETE_KEY, model);
}

/** Records that some documents may lack vectors (they will be embedded by a later search). */
export function markVectorsIncomplete(db: DatabaseSync): void {
  writeState(db, COMPLETE_KEY, undefined);
}

/** Replaces documents' vectors using a synchronous embedder (inside the caller's transaction). */
export function storeVectorsSync(
  db: DatabaseSync,
  model: string,
  embed: (text: string) => Float32Array,
  documents: readonly PendingVectors[],
): void {
  for (const doc of documents) {
    if (deleteVectors(db, doc.id) > 0) bumpCounter(db, "vector_removals");
    for (const [seq, piece] of embeddingPieces(doc.title, doc.text).entries()) {
      insertVector(db, doc.id, seq, model, vectorToBytes(embed(piece)));
    }
    setVectorModel(db, doc.id, model);
  }
  bumpCounter(db, "index_generation");
}

/**
 * Embeds documents with an asynchronous embedder, then stores the vectors in
 * one short synchronous write (so no transaction spans the network call).
 */
export async function embedPending(
  db: DatabaseSync,
  embedder: Embedder,
  documents: readonly PendingVectors[],
  write: (work: () => void) => void,
): Promise<number> {
  let stored = 0;
  for (let i = 0; i < documents.length; i += 32) {
    const batch = documents.slice(i, i + 32);
    const pieces = batch.map((doc) => embeddingPieces(doc.title, doc.text));
    const vectors = await embedder.embed(pieces.flat());
    write(() => {
      let next = 0;
      for (const [index, doc] of batch.entries()) {
        if (deleteVectors(db, doc.id) > 0) bumpCounter(db, "vector_removals");
        for (let seq = 0; seq < pieces[index].length; seq++) {
          insertVector(db, doc.id, seq, embedder.id, vectorToBytes(vectors[next++]));
        }
        setVectorModel(db, doc.id, embedder.id);
        stored++;
      }
      bumpCounter(db, "index_generation");
    });
  }
  return stored;
}
