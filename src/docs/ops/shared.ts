/**
 * What the `docs` and `doc_session` operations share: the store, clock and
 * embedder from the context, and the parameter schemas several of them use
 * (session scope, tags, metadata).
 *
 * @module
 */
import { z } from "zod";
import type { VantagePaths } from "../../core/config.ts";
import type { WriteRoots } from "../../core/confined_write.ts";
import {
  hasControlCharacter,
  ID_MAX_CHARS,
  LABEL_MAX_CHARS,
  NAME_MAX_CHARS,
  PATH_MAX_CHARS,
} from "../../core/limits.ts";
import type { IngestReport } from "../doc_ingest.ts";
import { configuredEmbedder } from "../embedding_config.ts";
import type { ServerDocs } from "../server_ingest/server_docs.ts";
import type { Embedder } from "../embedder.ts";
import type { DatabaseSync } from "../../store/database.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { PgDocsSearch } from "../../store/postgres/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { OperationContext } from "../../ops/operation.ts";
import { CLOCK, DATABASE, DOCUMENT_SEARCH, PATHS, ROOTS, STORE } from "../../ops/service_keys.ts";

/** Everything a document operation reads from its context. */
export interface DocsContext {
  /**
   * The data home's SQLite connection, for the parts of the engine that work on SQLite's own
   * files (chunk packs, the search index file, sealed vectors). Opened when first read; on a
   * PostgreSQL store reading it throws `unavailable`, naming the part.
   */
  readonly db: DatabaseSync;
  /** The document store on whichever backend this process serves from (await every answer). */
  readonly store: DocsStore<StoreMode>;
  /**
   * A database server's keyword search over documents; undefined on SQLite, whose search reads
   * the data home's index file.
   */
  readonly serverSearch: PgDocsSearch | undefined;
  /** Now, ms. */
  now: number;
  /** The embedder configured for this process. */
  embedder: Embedder;
  /** The data home, never itself added as documents. */
  home?: string;
  /** Where files may be written for the caller: inside the roots, never the data home. */
  writeRoots: WriteRoots;
}

/** Reads the store, clock and embedder from an operation context. */
export function docsContext(context: OperationContext): DocsContext {
  const services = context.services;
  const paths: VantagePaths | undefined = services.has(PATHS) ? services.get(PATHS) : undefined;
  return {
    get db() {
      return services.get(DATABASE);
    },
    get store() {
      return services.get(STORE).docs;
    },
    serverSearch: services.has(DOCUMENT_SEARCH) ? services.get(DOCUMENT_SEARCH) : undefined,
    now: services.has(CLOCK) ? services.get(CLOCK)() : Date.now(),
    embedder: configuredEmbedder(),
    home: paths?.home,
    writeRoots: {
      roots: services.has(ROOTS) ? services.get(ROOTS) : [],
      dataHome: paths?.home,
    },
  };
}

/**
 * The document engine's handle on a database server (the whole store, for its writes, and the
 * server's keyword search), or undefined on SQLite, whose engine works on the data home's file.
 */
export function serverDocsOf(
  context: OperationContext,
  docs: DocsContext,
): ServerDocs | undefined {
  const search = docs.serverSearch;
  return search === undefined ? undefined : { store: context.services.get(STORE), search };
}

/**
 * The data home's SQLite connection when this process serves from SQLite, for the parts of an
 * answer only SQLite has (pack files, the search index file, recorded damage); undefined on a
 * database server, which answers those parts its own way.
 */
export function sqliteConnection(docs: DocsContext): DatabaseSync | undefined {
  return docs.serverSearch === undefined ? docs.db : undefined;
}

/** Whether a name can be stored and found again: no control characters, no unpaired surrogates. */
function isPlain(text: string): boolean {
  return !hasControlCharacter(text) && text.isWellFormed();
}

const PLAIN = { message: "must be plain text: no control characters or unpaired surrogates" };

/**
 * A stored name or path: at most `max` characters of plain text. A NUL or
 * an unpaired surrogate would not survive the store (or the file system)
 * unchanged, so the thing could never be named again.
 */
function plainString(max: number) {
  return z.string().min(1).max(max).refine(isPlain, PLAIN);
}

/** A collection name (a label: a document is in any number of collections). */
export const collectionSchema = plainString(NAME_MAX_CHARS);

/** A snapshot id (stored; default a timestamp). */
export const snapshotIdSchema = plainString(ID_MAX_CHARS);

/** A human label of a snapshot or a session (stored). */
export const labelSchema = plainString(LABEL_MAX_CHARS);

/** A session name (stored, and named again to resume, stop or pin). */
export const sessionNameSchema = plainString(NAME_MAX_CHARS);

/** A file system path, or a document's name (stored as the document's path). */
export const pathSchema = plainString(PATH_MAX_CHARS);

/** The session-scope parameters of search, list, grep and suggest_context. */
export const sessionScopeFields = {
  use_session: z.boolean().default(false).describe("Only the current session's documents"),
  session: sessionNameSchema.optional().describe("Only this session's documents"),
  global_search: z.boolean().default(false).describe("Ignore session scoping"),
};

/** Tags: an array, or one comma-separated string; each tag at most 128 characters of plain text. */
export const tagsSchema = z.union([
  z.array(plainString(NAME_MAX_CHARS)),
  z.string().refine(isPlain, PLAIN).refine(
    (text) => text.split(",").every((tag) => tag.trim().length <= NAME_MAX_CHARS),
    { message: `each tag is at most ${NAME_MAX_CHARS} characters` },
  ),
]);

/** Normalizes tags given either way. */
export function tagList(value: string[] | string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : value.split(",");
  const tags = list.map((tag) => tag.trim()).filter((tag) => tag !== "");
  return [...new Set(tags)];
}

/** Metadata: YAMS `key=value` strings, or an object. */
export const metadataSchema = z.union([
  z.array(z.string()),
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
]);

/** Read-only operation hints, under the short name this cassette's operations use. */
export { READ_ONLY_ANNOTATIONS as READ_ONLY } from "../../ops/operation.ts";

/** Globs: an array, or one comma-separated string. */
export const globsSchema = z.union([
  z.array(z.string().max(PATH_MAX_CHARS)),
  z.string().max(PATH_MAX_CHARS),
]);

/** One glob over stored paths; bounded, because it becomes a regular expression. */
export const globSchema = z.string().min(1).max(PATH_MAX_CHARS);

/** Most documents listed one by one in an add's result. */
export const LISTED_DOCUMENTS = 100;

/** The result of an add (also used by download and watch). */
export const ingestOutput = z.object({
  hash: z.string().optional().describe("The document's hash when one document was added"),
  path: z.string().optional(),
  snapshot_id: z.string(),
  session_id: z.string().nullable(),
  files_scanned: z.number().int(),
  documents_added: z.number().int(),
  documents_updated: z.number().int(),
  documents_unchanged: z.number().int(),
  bytes: z.number().int(),
  new_chunks: z.number().int(),
  new_bytes: z.number().int(),
  stored_bytes: z.number().int(),
  documents: z.array(z.object({
    id: z.number().int(),
    hash: z.string(),
    path: z.string(),
    name: z.string(),
    size: z.number().int(),
    mime: z.string(),
    status: z.enum(["added", "updated", "unchanged"]),
  })),
  documents_truncated: z.boolean(),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  warnings: z.array(z.string()).optional(),
});

/** Shapes an ingest report as an operation result. */
export function ingestResult(report: IngestReport): z.infer<typeof ingestOutput> {
  const single = report.documents.length === 1 ? report.documents[0] : undefined;
  return {
    ...(single !== undefined ? { hash: single.hash, path: single.path } : {}),
    snapshot_id: report.snapshot_id,
    session_id: report.session_id,
    files_scanned: report.files_scanned,
    documents_added: report.documents_added,
    documents_updated: report.documents_updated,
    documents_unchanged: report.documents_unchanged,
    bytes: report.bytes,
    new_chunks: report.new_chunks,
    new_bytes: report.new_bytes,
    stored_bytes: report.stored_bytes,
    documents: report.documents.slice(0, LISTED_DOCUMENTS),
    documents_truncated: report.documents.length > LISTED_DOCUMENTS,
    skipped: report.skipped.slice(0, LISTED_DOCUMENTS),
    ...(report.warnings.length > 0 ? { warnings: report.warnings } : {}),
  };
}

/** Splits comma-separated globs given as one string. */
export function globList(value: string[] | string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : value.split(",");
  return list.map((item) => item.trim()).filter((item) => item !== "");
}

/** A document as the read operations report it. */
export const documentInfoSchema = z.object({
  id: z.number().int(),
  hash: z.string(),
  name: z.string(),
  path: z.string(),
  title: z.string(),
  mime: z.string(),
  type: z.enum(["text", "binary"]),
  size: z.number().int(),
  created: z.string(),
  modified: z.string(),
  indexed: z.string(),
  collections: z.array(z.string()),
  snapshot_id: z.string().nullable(),
  session_id: z.string().nullable(),
  source_url: z.string().nullable(),
  person: z.string().optional().describe("Team mode: who added it (absent: the server owner)"),
  latest: z.boolean(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.string()),
});

/** A node reached in the code graph. */
export const graphNodeSchema = z.object({
  node_key: z.string(),
  type: z.string(),
  name: z.string(),
  depth: z.number().int(),
  relation: z.string().optional(),
  from: z.string().optional(),
  line: z.number().int().optional(),
  document_id: z.number().int().optional(),
  hash: z.string().optional(),
  path: z.string().optional(),
});
