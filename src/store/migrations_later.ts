/**
 * The migrations from 15 on (sub-agents, tool outcomes, what prices a call, telemetry), kept
 * apart from the first fourteen only so neither file grows past a reader's patience. A
 * migration is never edited once shipped.
 *
 * @module
 */
import type { Migration } from "./migrations.ts";

/** Migrations 15 and later, oldest first; {@linkcode MIGRATIONS} ends with them. */
export const LATER_MIGRATIONS: readonly Migration[] = [
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
    name:
      "OpenTelemetry intake: spans, log records, metric points, and the model calls, tool calls and API errors read from them",
    sql: `
      -- What OTLP exporters sent, kept as received (attributes as JSON, secrets redacted).
      -- An exporter may send a batch again after a lost answer: a span is stored once per
      -- trace and span id, an agent event once per session and sequence number.
      CREATE TABLE telemetry_spans (
        id             INTEGER PRIMARY KEY,
        trace_id       TEXT NOT NULL,
        span_id        TEXT NOT NULL,
        parent_span_id TEXT,
        name           TEXT NOT NULL,
        kind           INTEGER NOT NULL DEFAULT 0,
        service        TEXT,
        agent          TEXT,
        session_id     TEXT,
        start_ts       INTEGER NOT NULL,
        duration_ms    REAL NOT NULL,
        status_code    INTEGER NOT NULL DEFAULT 0,
        status_message TEXT,
        attributes     TEXT NOT NULL,
        received_at    INTEGER NOT NULL,
        UNIQUE (trace_id, span_id)
      ) STRICT;
      CREATE INDEX telemetry_spans_start ON telemetry_spans (start_ts);
      CREATE INDEX telemetry_spans_session ON telemetry_spans (session_id, start_ts)
        WHERE session_id IS NOT NULL;

      CREATE TABLE telemetry_logs (
        id          INTEGER PRIMARY KEY,
        dedupe_key  TEXT UNIQUE,
        ts          INTEGER NOT NULL,
        service     TEXT,
        agent       TEXT,
        session_id  TEXT,
        event_name  TEXT,
        severity    INTEGER,
        body        TEXT,
        attributes  TEXT NOT NULL,
        trace_id    TEXT,
        span_id     TEXT,
        received_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX telemetry_logs_ts ON telemetry_logs (ts);
      CREATE INDEX telemetry_logs_session ON telemetry_logs (session_id, ts)
        WHERE session_id IS NOT NULL;

      CREATE TABLE telemetry_metric_points (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL,
        unit        TEXT,
        kind        TEXT NOT NULL,
        temporality INTEGER,
        monotonic   INTEGER,
        ts          INTEGER NOT NULL,
        start_ts    INTEGER,
        value       REAL,
        count       INTEGER,
        sum         REAL,
        min         REAL,
        max         REAL,
        service     TEXT,
        agent       TEXT,
        session_id  TEXT,
        attributes  TEXT NOT NULL,
        received_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX telemetry_metric_points_name_ts ON telemetry_metric_points (name, ts);

      -- Who ran a session where: the user and host attributes its telemetry carried.
      CREATE TABLE telemetry_sessions (
        session_id      TEXT PRIMARY KEY,
        agent           TEXT NOT NULL,
        service         TEXT,
        service_version TEXT,
        user_id         TEXT,
        user_email      TEXT,
        organization_id TEXT,
        host_name       TEXT,
        host_arch       TEXT,
        os_type         TEXT,
        terminal_type   TEXT,
        first_seen      INTEGER NOT NULL,
        last_seen       INTEGER NOT NULL
      ) STRICT;

      -- One row per model call, merged from every record that describes it (Claude Code's
      -- api_request event and llm_request span share the request id). usage_key names the usage
      -- row that counts its tokens: the transcript's when the transcript has the call, else
      -- telemetry's own ('otel:…', counted = 1) while no transcript of the session was read.
      -- outside_transcript = 1: a call the agent writes to no transcript (Claude Code's side
      -- requests for titles, summaries, classifiers), never in a session's totals.
      CREATE TABLE telemetry_model_calls (
        call_key           TEXT PRIMARY KEY,
        agent              TEXT NOT NULL,
        session_id         TEXT NOT NULL,
        ts                 INTEGER NOT NULL,
        model              TEXT,
        request_id         TEXT,
        prompt_id          TEXT,
        trace_id           TEXT,
        span_id            TEXT,
        input_tokens       INTEGER,
        output_tokens      INTEGER,
        cache_read_tokens  INTEGER,
        cache_write_tokens INTEGER,
        reasoning_tokens   INTEGER,
        cost_usd           REAL,
        duration_ms        REAL,
        ttft_ms            REAL,
        finish_reason      TEXT,
        success            INTEGER,
        query_source       TEXT,
        outside_transcript INTEGER,
        usage_key          TEXT,
        counted            INTEGER NOT NULL DEFAULT 0,
        user_id            TEXT,
        host_name          TEXT
      ) STRICT;
      CREATE INDEX telemetry_model_calls_ts ON telemetry_model_calls (ts);
      CREATE INDEX telemetry_model_calls_session ON telemetry_model_calls (session_id, ts);
      CREATE INDEX telemetry_model_calls_request ON telemetry_model_calls (request_id)
        WHERE request_id IS NOT NULL;

      -- One row per tool call (decision, result and span merged by the call's id); counted = 1
      -- while it is in its session's tool_calls because no transcript of the session was read.
      CREATE TABLE telemetry_tool_calls (
        call_key        TEXT PRIMARY KEY,
        agent           TEXT NOT NULL,
        session_id      TEXT NOT NULL,
        ts              INTEGER NOT NULL,
        tool_name       TEXT,
        tool_use_id     TEXT,
        prompt_id       TEXT,
        duration_ms     REAL,
        success         INTEGER,
        error_type      TEXT,
        error           TEXT,
        decision        TEXT,
        decision_source TEXT,
        trace_id        TEXT,
        span_id         TEXT,
        counted         INTEGER NOT NULL DEFAULT 0,
        user_id         TEXT,
        host_name       TEXT
      ) STRICT;
      CREATE INDEX telemetry_tool_calls_ts ON telemetry_tool_calls (ts);
      CREATE INDEX telemetry_tool_calls_tool ON telemetry_tool_calls (tool_name, ts);
      CREATE INDEX telemetry_tool_calls_session ON telemetry_tool_calls (session_id, ts);

      CREATE TABLE telemetry_api_errors (
        id          INTEGER PRIMARY KEY,
        error_key   TEXT NOT NULL UNIQUE,
        agent       TEXT NOT NULL,
        session_id  TEXT NOT NULL,
        ts          INTEGER NOT NULL,
        model       TEXT,
        request_id  TEXT,
        prompt_id   TEXT,
        status_code INTEGER,
        error       TEXT,
        duration_ms REAL,
        attempt     INTEGER,
        user_id     TEXT,
        host_name   TEXT
      ) STRICT;
      CREATE INDEX telemetry_api_errors_ts ON telemetry_api_errors (ts);

      -- A Claude Code call's usage key is '<message id>:<request id>': found by its request id.
      CREATE INDEX usage_claude_request ON usage (substr(usage_key, instr(usage_key, ':') + 1))
        WHERE agent = 'claude_code';
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
];
