/**
 * The document-memory area's schema, and that of its search index file.
 *
 * Tables in the store, as the migrations below leave them:
 *
 * - `docs_state`: key/value bookkeeping (change counters, the current pack,
 *   the index file in use).
 * - `docs_chunks`: content-addressed chunks (SHA-256 of the raw bytes), their
 *   sizes and reference count; small ones hold their bytes in `data`,
 *   larger ones name their `pack` file and `pack_offset`.
 * - `docs_contents` and `docs_content_chunks`: one row per distinct document
 *   content and its ordered chunk list (none for a one-chunk content).
 * - `docs_documents`: one row per (path, content hash): names, type, size,
 *   title, times, snapshot, session, source URL, `is_latest`, and the model
 *   of its stored vectors; `docs_tags`, `docs_metadata` and
 *   `docs_collection_members` (collections as labels, each with the path the
 *   document has in it) hang off it.
 * - `docs_snapshots` and `docs_snapshot_members`: what each add covered.
 * - `docs_vectors`: embeddings, one per piece of a document's text, ids
 *   never reused; `docs_vector_segments` names the sealed column files
 *   (`docs-vectors/`) runs of them are kept in, and `docs_vector_removed`
 *   (filled by a trigger) the removed ones those files still hold.
 * - `docs_graph_nodes` (with the `parent` that defines each) and
 *   `docs_graph_edges`: the code graph, owned by the documents it came from.
 * - `docs_sessions`, `docs_session_pins`, `docs_suggestions_served`:
 *   document sessions (named periods of work, not agent sessions).
 * - `docs_index_queue`: index changes waiting for the search index file.
 *
 * The search index lives in its own file (`docs-index.db`), made by
 * {@linkcode DOCS_INDEX_SCHEMA}: an FTS5 table of title, path and body, the
 * fuzzy vocabulary and its trigram index, and the index's own state.
 *
 * A migration is never edited once shipped: a change is a new number, added
 * to this list (numbers are unique across areas; see ../migrations.ts).
 *
 * Imports nothing at run time, so the index worker of a large add may use it.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The document-memory area's migrations, oldest first. */
export const DOCS_MIGRATIONS: readonly Migration[] = [
  {
    version: 10,
    name: "document memory: chunks, contents, documents, tags, metadata, snapshots, indexes",
    sql: `
      CREATE TABLE docs_state (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      CREATE TABLE docs_chunks (
        hash        TEXT PRIMARY KEY,
        size        INTEGER NOT NULL,
        stored_size INTEGER NOT NULL,
        ref_count   INTEGER NOT NULL DEFAULT 0,
        data        BLOB NOT NULL
      ) STRICT;
      CREATE INDEX docs_chunks_unreferenced ON docs_chunks (ref_count) WHERE ref_count <= 0;

      CREATE TABLE docs_contents (
        hash        TEXT PRIMARY KEY,
        size        INTEGER NOT NULL,
        chunk_count INTEGER NOT NULL,
        created_at  INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE docs_content_chunks (
        content_hash TEXT NOT NULL REFERENCES docs_contents (hash) ON DELETE CASCADE,
        seq          INTEGER NOT NULL,
        chunk_hash   TEXT NOT NULL,
        offset       INTEGER NOT NULL,
        length       INTEGER NOT NULL,
        PRIMARY KEY (content_hash, seq)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE docs_documents (
        id            INTEGER PRIMARY KEY,
        hash          TEXT NOT NULL REFERENCES docs_contents (hash),
        path          TEXT NOT NULL,
        relative_path TEXT NOT NULL,
        name          TEXT NOT NULL,
        extension     TEXT NOT NULL,
        mime          TEXT NOT NULL,
        is_text       INTEGER NOT NULL,
        size          INTEGER NOT NULL,
        title         TEXT NOT NULL,
        created_at    INTEGER NOT NULL,
        modified_at   INTEGER NOT NULL,
        indexed_at    INTEGER NOT NULL,
        collection    TEXT,
        snapshot_id   TEXT,
        session_id    TEXT,
        source_url    TEXT,
        is_latest     INTEGER NOT NULL DEFAULT 1,
        vector_model  TEXT,
        UNIQUE (path, hash)
      ) STRICT;
      CREATE INDEX docs_documents_hash ON docs_documents (hash);
      CREATE INDEX docs_documents_collection ON docs_documents (collection) WHERE collection IS NOT NULL;
      CREATE INDEX docs_documents_snapshot ON docs_documents (snapshot_id);
      CREATE INDEX docs_documents_session ON docs_documents (session_id) WHERE session_id IS NOT NULL;
      CREATE INDEX docs_documents_indexed ON docs_documents (indexed_at);

      CREATE TABLE docs_tags (
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        tag         TEXT NOT NULL,
        PRIMARY KEY (document_id, tag)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX docs_tags_tag ON docs_tags (tag);

      CREATE TABLE docs_metadata (
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        PRIMARY KEY (document_id, key)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE docs_snapshots (
        snapshot_id    TEXT PRIMARY KEY,
        label          TEXT,
        created_at     INTEGER NOT NULL,
        directory_path TEXT,
        collection     TEXT,
        session_id     TEXT,
        git_commit     TEXT,
        git_branch     TEXT,
        git_remote     TEXT,
        files_count    INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX docs_snapshots_created ON docs_snapshots (created_at);

      CREATE TABLE docs_snapshot_members (
        snapshot_id TEXT NOT NULL REFERENCES docs_snapshots (snapshot_id) ON DELETE CASCADE,
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        PRIMARY KEY (snapshot_id, document_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX docs_snapshot_members_document ON docs_snapshot_members (document_id);

      CREATE VIRTUAL TABLE docs_fts USING fts5(
        title, path, body,
        content = '', contentless_delete = 1,
        tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
      );

      CREATE TABLE docs_terms (
        id   INTEGER PRIMARY KEY,
        term TEXT NOT NULL UNIQUE
      ) STRICT;
      CREATE VIRTUAL TABLE docs_terms_fts USING fts5(
        term, content = 'docs_terms', content_rowid = 'id', tokenize = 'trigram'
      );

      CREATE TABLE docs_vectors (
        id          INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        model       TEXT NOT NULL,
        vector      BLOB NOT NULL
      ) STRICT;
      CREATE INDEX docs_vectors_document ON docs_vectors (document_id);

      CREATE TABLE docs_graph_nodes (
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        node_key    TEXT NOT NULL,
        type        TEXT NOT NULL,
        name        TEXT NOT NULL,
        line        INTEGER NOT NULL,
        PRIMARY KEY (document_id, node_key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX docs_graph_nodes_key ON docs_graph_nodes (node_key);
      CREATE INDEX docs_graph_nodes_name ON docs_graph_nodes (name);

      CREATE TABLE docs_graph_edges (
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        src         TEXT NOT NULL,
        dst         TEXT NOT NULL,
        relation    TEXT NOT NULL,
        line        INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX docs_graph_edges_src ON docs_graph_edges (src, relation);
      CREATE INDEX docs_graph_edges_dst ON docs_graph_edges (dst, relation);
      CREATE INDEX docs_graph_edges_document ON docs_graph_edges (document_id);
    `,
  },
  {
    version: 11,
    name: "document sessions: current session, pins, served suggestions",
    sql: `
      CREATE TABLE docs_sessions (
        session_id  TEXT PRIMARY KEY,
        label       TEXT,
        description TEXT,
        started_at  INTEGER NOT NULL,
        stopped_at  INTEGER,
        is_current  INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE UNIQUE INDEX docs_sessions_current ON docs_sessions (is_current) WHERE is_current = 1;

      CREATE TABLE docs_session_pins (
        session_id  TEXT NOT NULL REFERENCES docs_sessions (session_id) ON DELETE CASCADE,
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        pinned_at   INTEGER NOT NULL,
        PRIMARY KEY (session_id, document_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX docs_session_pins_document ON docs_session_pins (document_id);

      CREATE TABLE docs_suggestions_served (
        id         INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        query_key  TEXT NOT NULL,
        served     TEXT NOT NULL,
        ts         INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX docs_suggestions_served_lookup ON docs_suggestions_served (session_id, query_key, id);
    `,
  },
  {
    version: 12,
    name: "document memory: the search index moves to its own file, fed by a queue",
    sql: `
      DROP TABLE IF EXISTS docs_terms_fts;
      DROP TABLE IF EXISTS docs_terms;
      DROP TABLE IF EXISTS docs_fts;
      DELETE FROM docs_state WHERE key = 'terms_indexed_through';

      -- op: 1 = index the document's text, 0 = remove it. A row leaves the queue once the index
      -- (docs-index.db) has committed it. queued_at (ms) tells a search whether the process that
      -- queued it is likely still at work (0: apply at once).
      CREATE TABLE docs_index_queue (
        seq         INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id INTEGER NOT NULL,
        op          INTEGER NOT NULL CHECK (op IN (0, 1)),
        queued_at   INTEGER NOT NULL DEFAULT 0
      ) STRICT;
    `,
  },
  {
    version: 13,
    name: "code graph: a symbol names the node that defines it instead of a DEFINES edge row",
    sql: `
      -- Every stored symbol had exactly one DEFINES edge, from its file or class, on its own
      -- line: the node now says it (parent), and DEFINES edges are read from the nodes. That is
      -- one row and three index entries fewer per definition.
      ALTER TABLE docs_graph_nodes ADD COLUMN parent TEXT;
      UPDATE docs_graph_nodes SET parent = (
        SELECT e.src FROM docs_graph_edges e
        WHERE e.dst = docs_graph_nodes.node_key AND e.relation = 'DEFINES'
          AND e.document_id = docs_graph_nodes.document_id
        ORDER BY e.rowid LIMIT 1
      );
      DELETE FROM docs_graph_edges
      WHERE relation = 'DEFINES' AND EXISTS (
        SELECT 1 FROM docs_graph_nodes n
        WHERE n.document_id = docs_graph_edges.document_id AND n.node_key = docs_graph_edges.dst
          AND n.parent = docs_graph_edges.src
      );
      CREATE INDEX docs_graph_nodes_parent ON docs_graph_nodes (parent) WHERE parent IS NOT NULL;
    `,
  },
  {
    version: 14,
    name: "document memory: larger chunks' bytes move to pack files beside the database",
    sql: `
      -- pack/pack_offset say where a chunk's stored bytes are in docs-packs/pack-<pack>.vpk;
      -- such a row's data is empty. Rows stored before keep their bytes inline and stay readable.
      ALTER TABLE docs_chunks ADD COLUMN pack INTEGER;
      ALTER TABLE docs_chunks ADD COLUMN pack_offset INTEGER;
      CREATE INDEX docs_chunks_pack ON docs_chunks (pack, stored_size) WHERE pack IS NOT NULL;
    `,
  },
  {
    version: 19,
    name: "document memory: collections are labels, a document in any number of them",
    sql: `
      -- A document belongs to every collection it was added (or moved) into, as tags are
      -- many-to-many. relative_path is where the document sits below the folder it was added
      -- from into that collection, so each collection restores the layout it was given.
      CREATE TABLE docs_collection_members (
        collection    TEXT NOT NULL,
        document_id   INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        relative_path TEXT NOT NULL,
        PRIMARY KEY (collection, document_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX docs_collection_members_document ON docs_collection_members (document_id);
      INSERT INTO docs_collection_members (collection, document_id, relative_path)
        SELECT collection, id, relative_path FROM docs_documents WHERE collection IS NOT NULL;
      DROP INDEX docs_documents_collection;
      ALTER TABLE docs_documents DROP COLUMN collection;
    `,
  },
  {
    version: 20,
    name: "document vectors: ids never reused, sealed into column files a search reads in part",
    sql: `
      -- A vector's id now names it for good (AUTOINCREMENT): the column files below name the
      -- vectors they hold by id, and a removed id must never come back as another vector.
      CREATE TABLE docs_vectors_new (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id INTEGER NOT NULL REFERENCES docs_documents (id) ON DELETE CASCADE,
        seq         INTEGER NOT NULL,
        model       TEXT NOT NULL,
        vector      BLOB NOT NULL
      ) STRICT;
      INSERT INTO docs_vectors_new (id, document_id, seq, model, vector)
        SELECT id, document_id, seq, model, vector FROM docs_vectors ORDER BY id;
      DROP TABLE docs_vectors;
      ALTER TABLE docs_vectors_new RENAME TO docs_vectors;
      CREATE INDEX docs_vectors_document ON docs_vectors (document_id);

      -- Sealed runs of one model's vectors, each an immutable file in docs-vectors/ laid out one
      -- dimension after another, so a search reads only the dimensions its query uses. Vectors
      -- with ids past a model's last sealed id are read from docs_vectors.
      CREATE TABLE docs_vector_segments (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        model      TEXT NOT NULL,
        file       TEXT NOT NULL UNIQUE,
        rows       INTEGER NOT NULL,
        dimensions INTEGER NOT NULL,
        first_id   INTEGER NOT NULL,
        last_id    INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX docs_vector_segments_model ON docs_vector_segments (model, last_id);

      -- Every removed vector (deleted documents, replaced vectors, cascades included): a sealed
      -- file still holds it, and readers skip it until the file is rewritten without it.
      CREATE TABLE docs_vector_removed (
        vector_id INTEGER PRIMARY KEY,
        model     TEXT NOT NULL
      ) STRICT;
      CREATE INDEX docs_vector_removed_model ON docs_vector_removed (model, vector_id);
      CREATE TRIGGER docs_vectors_removed AFTER DELETE ON docs_vectors BEGIN
        INSERT OR IGNORE INTO docs_vector_removed (vector_id, model) VALUES (old.id, old.model);
        INSERT INTO docs_state (key, value) VALUES ('vector_removals', '1')
          ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT);
      END;
    `,
  },
  {
    version: 24,
    name: "document memory: the person who added a document through a team server",
    sql: `
      -- NULL for documents the server's owner or a local process added.
      ALTER TABLE docs_documents ADD COLUMN person TEXT;
    `,
  },
];

/**
 * The index file's schema. The FTS5 table is contentless (the text stays in
 * the content store) and deletable by rowid. Its in-memory term buffer is
 * raised from 1 MiB to 64 MiB and segments merge 16 at a time instead of 4
 * ({@linkcode DOCS_INDEX_SETTINGS}): a bulk add then writes a few large
 * segments instead of rewriting many small ones, which made indexing about a
 * third faster.
 */
export const DOCS_INDEX_SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    title, path, body,
    content = '', contentless_delete = 1,
    tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
  );
  CREATE TABLE IF NOT EXISTS docs_terms (
    id   INTEGER PRIMARY KEY,
    term TEXT NOT NULL UNIQUE
  ) STRICT;
  CREATE VIRTUAL TABLE IF NOT EXISTS docs_terms_fts USING fts5(
    term, content = 'docs_terms', content_rowid = 'id', tokenize = 'trigram'
  );
  CREATE TABLE IF NOT EXISTS docs_index_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
`;

/** Settings of a new index file's FTS5 table (see {@linkcode DOCS_INDEX_SCHEMA}). */
export const DOCS_INDEX_SETTINGS: readonly string[] = [
  "INSERT INTO docs_fts (docs_fts, rank) VALUES ('hashsize', 67108864)",
  "INSERT INTO docs_fts (docs_fts, rank) VALUES ('automerge', 16)",
];
