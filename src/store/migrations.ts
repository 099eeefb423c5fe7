/**
 * The schema, as numbered migrations applied in order at open. A migration
 * is never edited once shipped: a later change is a new number.
 *
 * @module
 */

import { LATER_MIGRATIONS } from "./migrations_later.ts";

/** One schema step. */
export interface Migration {
  /** Strictly increasing version number. */
  version: number;
  /** What the step adds, for the `schema_migrations` log. */
  name: string;
  /** The DDL, run inside one transaction. */
  sql: string;
}

/** Every migration Vantage ships, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "store metadata",
    sql: `
      CREATE TABLE store_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: "agent sessions, hook events, transcript messages, usage, tail offsets",
    sql: `
      CREATE TABLE sessions (
        session_id        TEXT PRIMARY KEY,
        agent             TEXT NOT NULL,
        cwd               TEXT,
        project           TEXT,
        started_at        INTEGER NOT NULL,
        last_activity_at  INTEGER NOT NULL,
        model             TEXT,
        git_branch        TEXT,
        title             TEXT,
        parent_session_id TEXT,
        transcript_path   TEXT,
        has_hooks         INTEGER NOT NULL DEFAULT 0,
        event_count       INTEGER NOT NULL DEFAULT 0,
        message_count     INTEGER NOT NULL DEFAULT 0,
        tool_calls        INTEGER NOT NULL DEFAULT 0,
        tool_failures     INTEGER NOT NULL DEFAULT 0,
        input_tokens      INTEGER NOT NULL DEFAULT 0,
        output_tokens     INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens  INTEGER NOT NULL DEFAULT 0,
        cost_usd          REAL NOT NULL DEFAULT 0,
        context_tokens    INTEGER,
        context_window    INTEGER
      ) STRICT;
      CREATE INDEX sessions_project_activity ON sessions (project, last_activity_at DESC);
      CREATE INDEX sessions_agent_activity ON sessions (agent, last_activity_at DESC);
      CREATE INDEX sessions_activity ON sessions (last_activity_at DESC);

      CREATE TABLE events (
        id              INTEGER PRIMARY KEY,
        delivery_id     TEXT UNIQUE,
        agent           TEXT NOT NULL,
        session_id      TEXT NOT NULL,
        cwd             TEXT,
        project         TEXT,
        event_type      TEXT NOT NULL,
        ts              INTEGER NOT NULL,
        tool_name       TEXT,
        tool_use_id     TEXT,
        file_path       TEXT,
        command         TEXT,
        command_prefix  TEXT,
        success         INTEGER,
        error           TEXT,
        duration_ms     INTEGER,
        prompt          TEXT,
        model           TEXT,
        received_at     INTEGER NOT NULL,
        raw             TEXT NOT NULL
      ) STRICT;
      CREATE INDEX events_session_ts ON events (session_id, ts);
      CREATE INDEX events_project_ts ON events (project, ts);
      CREATE INDEX events_ts ON events (ts);

      CREATE TABLE messages (
        id             INTEGER PRIMARY KEY,
        session_id     TEXT NOT NULL,
        agent          TEXT NOT NULL,
        message_key    TEXT NOT NULL,
        ts             INTEGER NOT NULL,
        role           TEXT NOT NULL,
        message_type   TEXT NOT NULL,
        text           TEXT NOT NULL,
        tool_name      TEXT,
        tool_use_id    TEXT,
        is_error       INTEGER,
        model          TEXT,
        cwd            TEXT,
        file_path      TEXT,
        command_prefix TEXT,
        subagent_id    TEXT,
        UNIQUE (session_id, message_key)
      ) STRICT;
      CREATE INDEX messages_session_ts ON messages (session_id, ts);

      CREATE TABLE usage (
        usage_key          TEXT PRIMARY KEY,
        session_id         TEXT NOT NULL,
        agent              TEXT NOT NULL,
        ts                 INTEGER NOT NULL,
        model              TEXT,
        input_tokens       INTEGER NOT NULL,
        output_tokens      INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        context_window     INTEGER,
        cost_usd           REAL NOT NULL
      ) STRICT;
      CREATE INDEX usage_session_ts ON usage (session_id, ts);
      CREATE INDEX usage_ts ON usage (ts);

      CREATE TABLE transcript_files (
        path          TEXT PRIMARY KEY,
        agent         TEXT NOT NULL,
        byte_offset   INTEGER NOT NULL,
        file_size     INTEGER NOT NULL,
        parser_state  TEXT NOT NULL,
        lines         INTEGER NOT NULL DEFAULT 0,
        malformed     INTEGER NOT NULL DEFAULT 0,
        unknown_types INTEGER NOT NULL DEFAULT 0,
        updated_at    INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: "perception: builds, file changes, git moves, anomalies, project state, injections",
    sql: `
      CREATE TABLE build_runs (
        id          INTEGER PRIMARY KEY,
        tag         TEXT NOT NULL,
        command     TEXT NOT NULL,
        cwd         TEXT,
        project     TEXT,
        started_at  INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        exit_code   INTEGER NOT NULL,
        errors      TEXT NOT NULL DEFAULT '[]',
        output_tail TEXT NOT NULL DEFAULT ''
      ) STRICT;
      CREATE INDEX build_runs_tag_started ON build_runs (tag, started_at DESC);
      CREATE INDEX build_runs_started ON build_runs (started_at DESC);

      CREATE TABLE file_changes (
        id         INTEGER PRIMARY KEY,
        project    TEXT NOT NULL,
        path       TEXT NOT NULL,
        kind       TEXT NOT NULL,
        ts         INTEGER NOT NULL,
        source     TEXT NOT NULL,
        session_id TEXT,
        agent      TEXT
      ) STRICT;
      CREATE INDEX file_changes_project_ts ON file_changes (project, ts DESC);
      CREATE INDEX file_changes_ts ON file_changes (ts DESC);

      CREATE TABLE git_moves (
        id       INTEGER PRIMARY KEY,
        project  TEXT NOT NULL,
        ts       INTEGER NOT NULL,
        kind     TEXT NOT NULL,
        branch   TEXT,
        from_ref TEXT,
        to_ref   TEXT,
        summary  TEXT
      ) STRICT;
      CREATE INDEX git_moves_project_ts ON git_moves (project, ts DESC);

      CREATE TABLE anomalies (
        id               INTEGER PRIMARY KEY,
        session_id       TEXT NOT NULL,
        project          TEXT,
        kind             TEXT NOT NULL,
        severity         TEXT NOT NULL,
        channel          TEXT NOT NULL,
        fingerprint      TEXT NOT NULL,
        evidence         TEXT NOT NULL,
        suggestion       TEXT NOT NULL,
        related_files    TEXT NOT NULL DEFAULT '[]',
        first_emitted_at INTEGER NOT NULL,
        last_emitted_at  INTEGER NOT NULL,
        emit_count       INTEGER NOT NULL DEFAULT 1,
        resolved_at      INTEGER,
        UNIQUE (session_id, fingerprint)
      ) STRICT;
      CREATE INDEX anomalies_session ON anomalies (session_id, last_emitted_at DESC);
      CREATE INDEX anomalies_emitted ON anomalies (last_emitted_at DESC);

      CREATE TABLE anomaly_emissions (
        id         INTEGER PRIMARY KEY,
        anomaly_id INTEGER NOT NULL REFERENCES anomalies (id) ON DELETE CASCADE,
        ts         INTEGER NOT NULL,
        channel    TEXT NOT NULL
      ) STRICT;

      CREATE TABLE project_state (
        root         TEXT PRIMARY KEY,
        state        TEXT NOT NULL,
        refreshed_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE injections (
        session_id TEXT PRIMARY KEY,
        snapshot   TEXT NOT NULL,
        ts         INTEGER NOT NULL
      ) STRICT;
    `,
  },
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
  ...LATER_MIGRATIONS,
];
