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
import { type DatabaseSync, storeFailure, transaction } from "../store/database.ts";
import { documentById, setVectorModel } from "../store/docs/documents.ts";
import { deleteGraph, insertGraph } from "../store/docs/graph.ts";
import {
  clearIndexChanges,
  docsIndex,
  indexChangesQueued,
  openDocsIndex,
  queuedIndexChanges,
  queueIndexChange,
} from "../store/docs/search_index.ts";
import {
  allTerms,
  applyIndexChanges,
  type IndexChange,
  KnownWords,
  MAX_VOCABULARY_CHARS,
} from "../store/docs/search_index_apply.ts";
import { bumpCounter, readState, writeState } from "../store/docs/state.ts";
import { deleteVectors, insertVector } from "../store/docs/vectors.ts";
import { readContentPrefix } from "./content_store.ts";
import { extractText } from "./text_extract.ts";
import { extractCodeGraph, languageFromPath } from "./code_graph.ts";
import { type Embedder, vectorToBytes } from "./embedder.ts";

/** Bytes of a document's text that go into the keyword index. */
export const MAX_INDEXED_BYTES = 1024 * 1024;
/** Pieces of text embedded per document. */
export const MAX_EMBED_PIECES = 8;
/** Target characters per embedded piece. */
export const EMBED_PIECE_CHARS = 1200;
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
 * Writes a document's index rows (inside the caller's store transaction):
 * vectors and code graph now, the full-text row by queueing a change, which
 * is returned for the caller to apply (see {@linkcode applyOwnChanges}).
 * Binaries are stored and listed but not indexed: they get no rows at all.
 */
export function indexDocument(
  db: DatabaseSync,
  context: IndexContext,
  input: IndexInput,
): IndexChange | undefined {
  if (input.text === undefined) return undefined;
  const text = input.text;
  const seq = queueIndexChange(db, input.id, "add");
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
  return { seq, op: "add", id: input.id, title: input.title, path: input.path, text };
}

/**
 * Removes a document's index rows (inside the caller's store transaction):
 * vectors and graph now, the full-text row by queueing a change, which is
 * returned for the caller to apply.
 */
export function unindexDocument(db: DatabaseSync, id: number): IndexChange {
  const seq = queueIndexChange(db, id, "remove");
  if (deleteVectors(db, id) > 0) bumpCounter(db, "vector_removals");
  deleteGraph(db, id);
  return { seq, op: "remove", id };
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
// Applying queued changes to the full-text index

/** Words known to be in each index connection's vocabulary (saves a write per repeated word). */
const KNOWN_TERMS = new WeakMap<DatabaseSync, KnownWords>();

/** Changes this process has handed to an index worker and not yet seen applied. */
const IN_FLIGHT = new WeakMap<DatabaseSync, Set<number>>();

function knownTerms(index: DatabaseSync): KnownWords {
  let known = KNOWN_TERMS.get(index);
  if (known === undefined) {
    known = new KnownWords(allTerms(index));
    KNOWN_TERMS.set(index, known);
  }
  return known;
}

/**
 * Applies changes this process queued (their texts in hand) to the index,
 * then takes them off the queue. Must not run inside a store transaction.
 */
export function applyOwnChanges(db: DatabaseSync, changes: readonly IndexChange[]): void {
  if (changes.length === 0) return;
  const { connection: index, path } = openDocsIndex(db);
  const known = knownTerms(index);
  try {
    transaction(index, () => applyIndexChanges(index, changes, known, MAX_VOCABULARY_CHARS));
  } catch (error) {
    // Words cached by the rolled-back transaction may not be stored.
    KNOWN_TERMS.delete(index);
    throw storeFailure(error, "updating the document search index", path);
  }
  // Only once the index has committed: a crash in between applies them again, harmlessly.
  transaction(db, () => clearIndexChanges(db, changes.map((change) => change.seq), path));
}

/** Marks changes as being applied by this process's index worker (a catch-up skips them). */
export function markInFlight(db: DatabaseSync, seqs: readonly number[], inFlight: boolean): void {
  let set = IN_FLIGHT.get(db);
  if (set === undefined) {
    set = new Set();
    IN_FLIGHT.set(db, set);
  }
  for (const seq of seqs) {
    if (inFlight) set.add(seq);
    else set.delete(seq);
  }
}

/**
 * The indexable text of a stored document, read back from the content
 * store; empty when the document is damaged (get and grep report that).
 */
export function storedText(
  db: DatabaseSync,
  doc: { id: number; hash: string; path: string },
): string {
  try {
    const bytes = readContentPrefix(
      db,
      doc.hash,
      { path: doc.path, id: doc.id },
      MAX_INDEXED_BYTES,
    );
    return extractText(doc.path, bytes).text ?? "";
  } catch {
    return "";
  }
}

/**
 * How long a queued change waits before another process applies it. The
 * process that queued it applies it within moments; one still queued after
 * this was most likely left by a process that stopped (or is a very large
 * add still at work, whose documents another add would otherwise index a
 * second time, slowly, on the spot).
 */
export const ABANDONED_AFTER_MS = 10_000;

/**
 * Applies whatever has been queued for {@linkcode ABANDONED_AFTER_MS} (or
 * `minAgeMs`) and is not being applied by this process. Texts are read back
 * from the content store; applying a change twice is harmless. Costs one
 * query when nothing is waiting. Must not run inside a store transaction.
 * {@linkcode catchUpDocsIndexGently} is the form an add uses.
 */
export function catchUpDocsIndex(db: DatabaseSync, minAgeMs = ABANDONED_AFTER_MS): number {
  const catchUp = new CatchUp(db, minAgeMs);
  while (catchUp.step(256));
  return catchUp.applied;
}

/**
 * {@linkcode catchUpDocsIndex} in small steps with a pause between them, so
 * an add that finds thousands of changes left by a killed add does not
 * hold its process (a whole server) for seconds.
 */
export async function catchUpDocsIndexGently(
  db: DatabaseSync,
  minAgeMs = ABANDONED_AFTER_MS,
): Promise<number> {
  const catchUp = new CatchUp(db, minAgeMs);
  while (catchUp.step(16)) await new Promise((resolve) => setTimeout(resolve, 0));
  return catchUp.applied;
}

/** One catch-up's position in the queue. */
class CatchUp {
  applied = 0;
  #after = 0;
  #done: boolean;

  constructor(readonly db: DatabaseSync, readonly minAgeMs: number) {
    docsIndex(db);
    this.#done = !indexChangesQueued(db, minAgeMs);
  }

  /** Applies up to `limit` more changes; false once none are left. */
  step(limit: number): boolean {
    if (this.#done) return false;
    const db = this.db;
    const page = queuedIndexChanges(db, limit, this.#after, this.minAgeMs);
    if (page.length === 0) {
      this.#done = true;
      return false;
    }
    this.#after = page[page.length - 1].seq;
    const inFlight = IN_FLIGHT.get(db) ?? new Set<number>();
    const changes: IndexChange[] = page.filter((change) => !inFlight.has(change.seq)).map(
      (change) => {
        if (change.op !== "add") return change;
        const doc = documentById(db, change.id);
        // Superseded or deleted since: its own remove is queued too, or it is gone.
        if (doc === undefined || doc.is_latest !== 1) return { ...change, op: "remove" };
        // A damaged document (no text) is still found by its title and path.
        return { ...change, title: doc.title, path: doc.path, text: storedText(db, doc) };
      },
    );
    applyOwnChanges(db, changes);
    this.applied += changes.length;
    return true;
  }
}

// ---------------------------------------------------------------------------------------------
// Code graph

function storeGraph(db: DatabaseSync, id: number, path: string, text: string): void {
  const graph = extractCodeGraph(path, text);
  if (graph.edges.length === 0) return;
  // Only what this file defines (itself and its symbols) is stored as a node: references,
  // modules and links are fully described by their keys, so storing them again per file would
  // only cost writes.
  // A symbol's DEFINES edge is stored as its node's parent (see docs_graph.ts).
  const parents = new Map<string, string>();
  for (const edge of graph.edges) if (edge.relation === "DEFINES") parents.set(edge.to, edge.from);
  const nodes = graph.nodes.filter((node) =>
    node.key.startsWith("symbol:") || node.key === `file:${path.replaceAll("\\", "/")}`
  ).map((node) => ({
    node_key: node.key,
    type: node.type,
    name: node.name,
    line: node.line,
    parent: parents.get(node.key) ?? null,
  }));
  const edges = graph.edges.filter((edge) =>
    edge.relation !== "DEFINES" || !edge.to.startsWith("symbol:")
  ).map((edge) => ({
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

/** The state key naming the model every latest text document has vectors from. */
export const VECTORS_COMPLETE_STATE = "vectors_complete_for";

/** Whether every latest text document has vectors from `model`. */
export function vectorsComplete(db: DatabaseSync, model: string): boolean {
  return readState(db, VECTORS_COMPLETE_STATE) === model;
}

/** Records that every latest text document has vectors from `model`. */
export function markVectorsComplete(db: DatabaseSync, model: string): void {
  writeState(db, VECTORS_COMPLETE_STATE, model);
}

/** Records that some documents may lack vectors (searches embed them for themselves until an add or a repair stores them). */
export function markVectorsIncomplete(db: DatabaseSync): void {
  writeState(db, VECTORS_COMPLETE_STATE, undefined);
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
