/**
 * What a store holds of its documents, read back the same way from a laptop's SQLite store and a
 * team's store on PostgreSQL, so sync tests can say a team server holds exactly a laptop's
 * documents: each version once, whose, with its tags, metadata and collections, and its bytes.
 */
import assert from "node:assert/strict";
import { documentBytes, readContentFrom } from "../../src/docs/mod.ts";
import { DATABASE, STORE } from "../../src/ops/service_keys.ts";
import type { Services } from "../../src/ops/services.ts";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import type { DocumentRow } from "../../src/store/docs/documents.ts";
import { openPostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import type { StoreMode } from "../../src/store/repository.ts";
import { TEST_CONNECT_TIMEOUT_S } from "../helpers/postgres_cluster.ts";

/** A document as a store holds it: where, whose, what is attached, and its bytes' hash. */
export interface HeldDocument {
  path: string;
  person: string | null;
  tags: string[];
  metadata: Record<string, string>;
  collections: string[];
  hash: string;
  /** SHA-256 of the bytes read back (verified by the read, and compared here). */
  bytes: string;
}

/** Every document version a store holds, by path, its bytes read back with `read`. */
export async function heldDocuments(
  docs: DocsStore<StoreMode>,
  read: (row: DocumentRow) => Promise<Uint8Array> | Uint8Array,
): Promise<HeldDocument[]> {
  // Every version: a duplicate would show.
  const { rows } = await docs.listDocuments({ filter: { latestOnly: false } });
  const held: HeldDocument[] = [];
  for (const row of rows) {
    const bytes = await read(row);
    held.push({
      path: row.path,
      person: row.person,
      tags: await docs.tagsOf(row.id),
      metadata: await docs.metadataOf(row.id),
      collections: await docs.collectionsOf(row.id),
      hash: row.hash,
      bytes: await sha256(bytes),
    });
  }
  return held.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return new Uint8Array(digest).toHex();
}

/** The laptop's documents as a team server must hold them: under `<person>@<host>:`, theirs. */
export async function laptopDocuments(
  services: Services,
  person: string,
  host: string,
): Promise<HeldDocument[]> {
  const db = services.get(DATABASE);
  const here = await heldDocuments(
    services.get(STORE).docs,
    (row) => documentBytes(db, row),
  );
  return here.map((doc) => ({ ...doc, path: `${person}@${host}:${doc.path}`, person }));
}

/** A team store's documents, read from PostgreSQL. */
export async function teamDocuments(url: string): Promise<HeldDocument[]> {
  const location = parseStoreLocation(url);
  assert.equal(location.kind, "postgres");
  const opened = await openPostgresStore(
    location as Extract<typeof location, { kind: "postgres" }>,
    { max: 1, connectTimeoutS: TEST_CONNECT_TIMEOUT_S },
  );
  try {
    const docs = opened.store.docs;
    return await heldDocuments(docs, (row) => readContentFrom(docs, row.hash, row));
  } finally {
    await opened.close();
  }
}
