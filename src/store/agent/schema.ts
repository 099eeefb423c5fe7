/**
 * The agent-activity area's schema: what hooks and transcripts leave in the
 * store, and the message search index kept in a file of its own.
 *
 * Tables, as the migrations below leave them:
 *
 * - `sessions`: one row per agent session (the agent's own id): agent, cwd
 *   and project, `started_at` / `last_activity_at` (0 while unknown), model,
 *   git branch, title, `parent_session_id` with `is_subagent` and
 *   `subagent_type` (a sub-agent run's counts are also in its parent's),
 *   transcript path, `has_hooks`, and running totals kept by the writers
 *   (events, messages, tool calls and failures, the token columns, cost,
 *   unpriced calls, latest context size and window), and in team mode the
 *   `person` whose hook first named it and their `host`.
 * - `events`: one row per hook delivery (`delivery_id` unique): the
 *   normalized fields, the redacted payload (`raw`, JSON), and who sent it
 *   (`person`, null for the server's owner) from which `host`.
 * - `messages`: transcript messages, unique per `(session_id,
 *   message_key)`; `id` grows with insertion (the search index's cursor).
 * - `usage`: one row per model call (`usage_key`), its tokens, what prices
 *   it (tier, speed, region, web searches, 1-hour cache writes, reported
 *   cost, `calls` summed), its cost and whether it is `priced`.
 * - `transcript_files`: how far each transcript was read (byte offset,
 *   parser state, line counts).
 * - `tool_outcomes`: how each tool call ended, read from transcripts.
 *
 * The message search index (`search.db` beside the store) is a contentless
 * FTS5 table of message ids and the cursor of what it covers; it is made by
 * {@linkcode MESSAGE_INDEX_SCHEMA}, not by a migration, since the indexer
 * worker owns that file.
 *
 * A migration is never edited once shipped: a change is a new number, added
 * to the list of the area it belongs to (numbers are unique across areas;
 * see ../migrations.ts).
 *
 * Imports nothing at run time, so the index worker may use it.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The agent-activity area's migrations, oldest first. */
export const AGENT_MIGRATIONS: readonly Migration[] = [
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
    version: 23,
    name: "team mode: who sent each hook event and from which host, and the session's person",
    sql: `
      -- person: the name (team_people) whose token sent the hook; NULL for the server's own
      -- token and for local hooks. host: the machine the hook ran on, as it said.
      ALTER TABLE events ADD COLUMN person TEXT;
      ALTER TABLE events ADD COLUMN host TEXT;
      -- A session belongs to the person whose hook first named it, from that host.
      ALTER TABLE sessions ADD COLUMN person TEXT;
      ALTER TABLE sessions ADD COLUMN host TEXT;
      CREATE INDEX sessions_person_activity ON sessions (person, last_activity_at DESC)
        WHERE person IS NOT NULL;
    `,
  },
];

/**
 * The index file for a store file: `search.db` in the store's folder.
 *
 * @example
 * ```ts
 * import { messageIndexPath } from "./schema.ts";
 * messageIndexPath("/home/me/.vantage/vantage.db"); // "/home/me/.vantage/search.db"
 * ```
 */
export function messageIndexPath(storePath: string): string {
  if (storePath === ":memory:") return ":memory:";
  // The file name replaced by hand: node:path would slow the start of the message index worker, which
  // imports this module (see module_worker.ts).
  return storePath.replace(/[^/\\]*$/, "search.db");
}

/**
 * The message index schema. Tool inputs and outputs (file dumps, command
 * logs) are indexed by their first 2,000 characters: enough to find the
 * session, at a fraction of the cost; the full text stays in the store for
 * transcripts and the substring pass. `detail=none` keeps only which
 * messages hold a word — all a newest-first session search needs.
 */
export const MESSAGE_INDEX_SCHEMA = `
  CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    text, content = '', tokenize = 'unicode61 remove_diacritics 2', detail = none, columnsize = 0
  );
  CREATE TABLE IF NOT EXISTS index_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL) STRICT;
`;

/** Characters of a tool message that are indexed. */
export const TOOL_TEXT_INDEXED = 2000;

/**
 * Messages read and indexed per transaction. FTS5 writes a segment per transaction and merges
 * segments later: a backfill indexed in few large transactions writes and merges less.
 */
export const INDEX_BATCH = 2000;
