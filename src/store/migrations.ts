/**
 * The schema, as numbered migrations applied in order at open. A migration
 * is never edited once shipped: a later change is a new number.
 *
 * @module
 */

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
  {
    version: 15,
    name: "sub-agent sessions: their own counts, nested under the parent whose totals include them",
    sql: `
      -- is_subagent: a run of parent_session_id (a Claude Code Task/Agent call, the compaction
      -- agent). Its counters hold its own messages, tool calls and tokens; the parent's hold its
      -- own plus every sub-agent's, as ccusage counts a session. Other parent links (forks,
      -- Codex threads) keep is_subagent = 0 and add nothing to anyone.
      ALTER TABLE sessions ADD COLUMN is_subagent INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN subagent_type TEXT;
      CREATE INDEX sessions_subagents ON sessions (parent_session_id, started_at)
        WHERE is_subagent = 1;

      -- Claude Code sub-agent rows written before: '<parent>/agent-<id>', empty, their records
      -- filed under the parent with messages.subagent_id set.
      UPDATE sessions SET is_subagent = 1
      WHERE agent = 'claude_code' AND parent_session_id IS NOT NULL
        AND substr(session_id, 1, length(parent_session_id) + 7) = parent_session_id || '/agent-';
      UPDATE sessions SET subagent_type = 'compact'
      WHERE is_subagent = 1 AND session_id LIKE '%/agent-acompact-%';

      -- Their messages move to their own session (the parent's counters already include them).
      UPDATE messages SET session_id = session_id || '/agent-' || subagent_id
      WHERE agent = 'claude_code' AND subagent_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM sessions c
        WHERE c.session_id = messages.session_id || '/agent-' || messages.subagent_id
          AND c.is_subagent = 1
      );

      -- A usage row was stored under the parent too, with no sub-agent mark: it belongs to the
      -- sub-agent whose assistant message has its time, when exactly one sub-agent does and
      -- the parent itself has no assistant message then.
      CREATE TEMP TABLE subagent_usage AS
        SELECT u.usage_key AS usage_key, min(m.session_id) AS session_id
        FROM usage u
        JOIN sessions c ON c.parent_session_id = u.session_id AND c.is_subagent = 1
        JOIN messages m ON m.session_id = c.session_id AND m.ts = u.ts AND m.role = 'assistant'
        WHERE u.agent = 'claude_code' AND NOT EXISTS (
          SELECT 1 FROM messages p
          WHERE p.session_id = u.session_id AND p.ts = u.ts AND p.role = 'assistant'
        )
        GROUP BY u.usage_key HAVING count(DISTINCT m.session_id) = 1;
      UPDATE usage SET session_id = (
        SELECT t.session_id FROM subagent_usage t WHERE t.usage_key = usage.usage_key
      ) WHERE usage_key IN (SELECT usage_key FROM subagent_usage);
      DROP TABLE subagent_usage;

      UPDATE sessions SET
        message_count = (SELECT count(*) FROM messages m WHERE m.session_id = sessions.session_id),
        tool_calls = (
          SELECT count(*) FROM messages m
          WHERE m.session_id = sessions.session_id AND m.message_type = 'tool_use'
        ),
        last_activity_at = max(last_activity_at, coalesce(
          (SELECT max(ts) FROM messages m WHERE m.session_id = sessions.session_id), 0)),
        input_tokens = (SELECT coalesce(sum(input_tokens), 0) FROM usage u WHERE u.session_id = sessions.session_id),
        output_tokens = (SELECT coalesce(sum(output_tokens), 0) FROM usage u WHERE u.session_id = sessions.session_id),
        cache_read_tokens = (SELECT coalesce(sum(cache_read_tokens), 0) FROM usage u WHERE u.session_id = sessions.session_id),
        cache_write_tokens = (SELECT coalesce(sum(cache_write_tokens), 0) FROM usage u WHERE u.session_id = sessions.session_id),
        reasoning_tokens = (SELECT coalesce(sum(reasoning_tokens), 0) FROM usage u WHERE u.session_id = sessions.session_id),
        cost_usd = (SELECT coalesce(sum(cost_usd), 0) FROM usage u WHERE u.session_id = sessions.session_id)
      WHERE is_subagent = 1;

      -- A parent's transcript names its sub-agents' types and tasks: read those files again
      -- from the start (message and usage keys keep that from counting anything twice).
      DELETE FROM transcript_files WHERE path IN (
        SELECT p.transcript_path FROM sessions p
        WHERE p.transcript_path IS NOT NULL AND p.session_id IN (
          SELECT parent_session_id FROM sessions WHERE is_subagent = 1
        )
      );
    `,
  },
  {
    version: 16,
    name: "tool outcomes read from transcripts, for hooks that carry no exit status",
    sql: `
      -- How a tool call ended, as the agent's transcript recorded it (Codex: the exit code of a
      -- command whose hook carried only its output). One row per call; the first record wins.
      -- A hook event of the same call that arrives later, or arrived before with its outcome
      -- unknown, takes success and error from here.
      CREATE TABLE tool_outcomes (
        session_id  TEXT NOT NULL,
        tool_use_id TEXT NOT NULL,
        agent       TEXT NOT NULL,
        ts          INTEGER NOT NULL,
        success     INTEGER NOT NULL CHECK (success IN (0, 1)),
        exit_code   INTEGER,
        error       TEXT,
        PRIMARY KEY (session_id, tool_use_id)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 17,
    name: "usage: what prices a call, unpriced calls, and times that are never the epoch",
    sql: `
      -- What changes a call's price, kept so a call can be priced again when prices change.
      ALTER TABLE usage ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage ADD COLUMN web_search_requests INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE usage ADD COLUMN service_tier TEXT;
      ALTER TABLE usage ADD COLUMN speed TEXT;
      ALTER TABLE usage ADD COLUMN inference_geo TEXT;
      ALTER TABLE usage ADD COLUMN reported_cost_usd REAL;
      -- A row may sum several calls (Copilot CLI reports totals per model).
      ALTER TABLE usage ADD COLUMN calls INTEGER NOT NULL DEFAULT 1;
      -- 0: no price fits the model; its cost_usd is 0 and means "unpriced", not free.
      ALTER TABLE usage ADD COLUMN priced INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE sessions ADD COLUMN unpriced_calls INTEGER NOT NULL DEFAULT 0;
      UPDATE usage SET priced = 0
      WHERE cost_usd = 0 AND input_tokens + output_tokens + cache_read_tokens + cache_write_tokens > 0;
      -- A parent's counters include its sub-agents' (migration 15), and so does this one.
      UPDATE sessions SET unpriced_calls = (
        SELECT count(*) FROM usage u
        WHERE u.priced = 0 AND (u.session_id = sessions.session_id OR u.session_id IN (
          SELECT c.session_id FROM sessions c
          WHERE c.parent_session_id = sessions.session_id AND c.is_subagent = 1
        ))
      );

      -- Records read before their file showed a time were stored at 0 (1970): they take their
      -- session's earliest real time, and a session without one keeps 0, read as "unknown".
      UPDATE messages SET ts = coalesce((
        SELECT min(m.ts) FROM messages m WHERE m.session_id = messages.session_id AND m.ts > 0
      ), 0) WHERE ts <= 0;
      UPDATE usage SET ts = coalesce(
        (SELECT min(m.ts) FROM messages m WHERE m.session_id = usage.session_id AND m.ts > 0),
        (SELECT min(u.ts) FROM usage u WHERE u.session_id = usage.session_id AND u.ts > 0),
        0
      ) WHERE ts <= 0;
      UPDATE sessions SET started_at = coalesce(
        (SELECT min(m.ts) FROM messages m WHERE m.session_id = sessions.session_id AND m.ts > 0),
        (SELECT min(e.ts) FROM events e WHERE e.session_id = sessions.session_id AND e.ts > 0),
        (SELECT min(u.ts) FROM usage u WHERE u.session_id = sessions.session_id AND u.ts > 0),
        0
      ) WHERE started_at <= 0;

      -- Claude Code usage was stored from the first line of each answer (a partial output
      -- count): reading Claude transcripts again merges every call up to its final figures.
      DELETE FROM transcript_files WHERE agent = 'claude_code';
    `,
  },
  {
    version: 18,
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
    version: 19,
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
];
