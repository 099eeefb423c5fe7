/**
 * A team server taking documents from a person's `vantage sync`. Each
 * version arrives with its bytes and what was attached to it (tags,
 * metadata, collections); the bytes must hash to what the sender says, and
 * the document engine stores them as an add would, so a version the server
 * has is found by its content and nothing is stored twice.
 *
 * Two laptops hold the same paths (`/home/me/notes.md`, a note named
 * `todo.md`), so a pushed document is kept under a path naming whose and
 * from where: `<person>@<host>:<path>` ({@linkcode teamDocumentPath}; the
 * server's owner is `(owner)`). It belongs to the person who pushed it, and
 * a path any version of which another person added is refused, never
 * superseded: one person's push cannot change another's documents.
 *
 * A server on SQLite stores them with the engine on its data home's file; a server on
 * PostgreSQL with the engine on the database ({@linkcode DocumentEngine}), which dedupes,
 * attributes and indexes them the same way.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import {
  type Embedder,
  ingestInline,
  ingestInlineOnServer,
  type IngestOptions,
  type IngestReport,
  type InlineDocument,
  type ServerDocs,
  sha256Hex,
} from "../docs/mod.ts";
import type { Pusher } from "./push_history.ts";
import type { SyncDocument } from "./wire.ts";

/** What one documents push did. */
export interface DocumentPushReport {
  /** New paths. */
  added: number;
  /** Known paths with a new version. */
  updated: number;
  /** Versions the server had. */
  unchanged: number;
  /** Bytes received. */
  bytes: number;
  /** Documents refused because their path is someone else's, and whose it is. */
  refused: Array<{ path: string; owner: string | null }>;
  /** Documents refused for what they are (bytes not matching their hash), with why. */
  invalid: Array<{ path: string; reason: string }>;
}

/**
 * Where a team server keeps a document pushed from a machine: the pusher's name (`(owner)`
 * for the server's owner), their host and the path there.
 *
 * @example
 * ```ts
 * import { teamDocumentPath } from "./push_documents.ts";
 * teamDocumentPath({ person: "ada", host: "ada-laptop" }, "/home/ada/notes.md");
 * // "ada@ada-laptop:/home/ada/notes.md"
 * ```
 */
export function teamDocumentPath(pusher: Pusher, path: string): string {
  return `${pusher.person ?? "(owner)"}@${pusher.host ?? "unknown-host"}:${path}`;
}

/** What storing documents needs besides the documents. */
export interface DocumentPushOptions {
  /** The embedder this server stores vectors with. */
  embedder: Embedder;
  /** Now, ms. */
  now: number;
  /** Stops a long push between batches of the add. */
  signal?: AbortSignal;
}

/**
 * The document engine that stores pushed versions: SQLite's, on the data home's file, or a
 * database server's, on the store's interface.
 */
export type DocumentEngine =
  | { readonly kind: "sqlite"; readonly db: DatabaseSync }
  | { readonly kind: "server"; readonly server: ServerDocs };

/** Stores inline documents with whichever engine the server runs. */
function ingestWith(
  engine: DocumentEngine,
  documents: InlineDocument[],
  options: IngestOptions,
): Promise<IngestReport> {
  return engine.kind === "sqlite"
    ? ingestInline(engine.db, documents, options)
    : ingestInlineOnServer(engine.server, documents, options);
}

interface Accepted {
  doc: SyncDocument;
  path: string;
  bytes: Uint8Array;
}

/**
 * Stores pushed document versions for `pusher`, in the order given, with their tags,
 * metadata and collections; answers what was new, refused or invalid.
 *
 * @example
 * ```ts ignore
 * const engine = { kind: "sqlite", db } as const;
 * const report = await pushDocuments(engine, store, documents, pusher, { embedder, now: Date.now() });
 * ```
 */
export async function pushDocuments(
  engine: DocumentEngine,
  store: Store<StoreMode>,
  documents: readonly SyncDocument[],
  pusher: Pusher,
  options: DocumentPushOptions,
): Promise<DocumentPushReport> {
  const report: DocumentPushReport = {
    added: 0,
    updated: 0,
    unchanged: 0,
    bytes: 0,
    refused: [],
    invalid: [],
  };
  const checked: Accepted[] = [];
  for (const doc of documents) {
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.fromBase64(doc.content_base64);
    } catch (error) {
      report.invalid.push({ path: doc.path, reason: `content_base64: ${String(error)}` });
      continue;
    }
    const hash = sha256Hex(bytes);
    if (hash !== doc.hash) {
      report.invalid.push({
        path: doc.path,
        reason: `its ${bytes.length} bytes hash to ${hash}, not to the ${doc.hash} sent with them`,
      });
      continue;
    }
    checked.push({ doc, path: teamDocumentPath(pusher, doc.path), bytes });
  }
  const others = new Map<string, string | null>();
  const paths = [...new Set(checked.map((entry) => entry.path))];
  for (const row of await store.docs.documentsForPaths(paths)) {
    if (row.person !== pusher.person && !others.has(row.path)) others.set(row.path, row.person);
  }
  const accepted = checked.filter((entry) => {
    if (!others.has(entry.path)) return true;
    report.refused.push({ path: entry.path, owner: others.get(entry.path)! });
    return false;
  });
  if (accepted.length === 0) return report;

  const inline: InlineDocument[] = accepted.map((entry) => ({
    name: entry.doc.relative_path,
    path: entry.path,
    bytes: entry.bytes,
    modified: entry.doc.modified_at,
  }));
  const added = await ingestWith(engine, inline, {
    session: null,
    person: pusher.person,
    snapshotLabel: `vantage sync from ${pusher.host ?? "an unnamed host"}`,
    embedder: options.embedder,
    now: options.now,
    signal: options.signal,
  });
  report.added = added.documents_added;
  report.updated = added.documents_updated;
  report.unchanged = added.documents_unchanged;
  report.bytes = added.bytes;
  const ids = new Map<string, number>();
  for (const stored of added.documents) ids.set(`${stored.path}\u0000${stored.hash}`, stored.id);
  for (const entry of accepted) {
    const id = ids.get(`${entry.path}\u0000${entry.doc.hash}`);
    if (id === undefined) continue;
    if (entry.doc.tags.length > 0) await store.docs.addTags(id, entry.doc.tags);
    if (Object.keys(entry.doc.metadata).length > 0) {
      await store.docs.setMetadata(id, entry.doc.metadata);
    }
    for (const collection of entry.doc.collections) {
      await store.docs.addToCollection(id, collection.name, collection.relative_path);
    }
  }
  return report;
}
