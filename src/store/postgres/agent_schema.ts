/**
 * The agent-activity area's tables on PostgreSQL: the same tables, columns
 * and keys as SQLite's (../agent/schema.ts, as its migrations leave them),
 * so the same delivery ids, message keys, usage keys and call ids dedupe a
 * record on either backend. What differs, and why:
 *
 * - Times and counters are `bigint`, flags stay 0/1 integers (the rows read
 *   are the same on both backends); money is `double precision`, as
 *   SQLite's REAL.
 * - Ids and paths that are compared as ranges or sorted (session ids,
 *   projects) use the "C" collation: byte order, as SQLite compares text,
 *   whatever the database's locale.
 * - `sessions.seq` stands for SQLite's rowid: the order sessions were
 *   created in, which the change feed follows. `usage.seq` too: the
 *   position `vantage sync` reads a store's calls from (a merge of grown
 *   figures updates the row and keeps it).
 * - `messages.search` is the full-text index SQLite keeps in a file of its
 *   own (search.db): a generated `tsvector` (the `simple` configuration: no
 *   stemming, as FTS5's unicode61) over the text — a tool message's first
 *   2,000 characters and its tool's name, as there — with a GIN index.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The agent-activity area's PostgreSQL migrations, oldest first. */
export const PG_AGENT_MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    name: "agent sessions, hook events, transcript messages with full-text search, usage, " +
      "transcript cursors, tool outcomes",
    sql: `
      CREATE TABLE sessions (
        session_id         text COLLATE "C" PRIMARY KEY,
        seq                bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        agent              text NOT NULL,
        cwd                text,
        project            text COLLATE "C",
        started_at         bigint NOT NULL,
        last_activity_at   bigint NOT NULL,
        model              text,
        git_branch         text,
        title              text,
        parent_session_id  text COLLATE "C",
        is_subagent        integer NOT NULL DEFAULT 0,
        subagent_type      text,
        transcript_path    text,
        has_hooks          integer NOT NULL DEFAULT 0,
        event_count        bigint NOT NULL DEFAULT 0,
        message_count      bigint NOT NULL DEFAULT 0,
        tool_calls         bigint NOT NULL DEFAULT 0,
        tool_failures      bigint NOT NULL DEFAULT 0,
        input_tokens       bigint NOT NULL DEFAULT 0,
        output_tokens      bigint NOT NULL DEFAULT 0,
        cache_read_tokens  bigint NOT NULL DEFAULT 0,
        cache_write_tokens bigint NOT NULL DEFAULT 0,
        reasoning_tokens   bigint NOT NULL DEFAULT 0,
        cost_usd           double precision NOT NULL DEFAULT 0,
        unpriced_calls     bigint NOT NULL DEFAULT 0,
        context_tokens     bigint,
        context_window     bigint
      );
      CREATE INDEX sessions_project_activity ON sessions (project, last_activity_at DESC);
      CREATE INDEX sessions_agent_activity ON sessions (agent, last_activity_at DESC);
      CREATE INDEX sessions_activity ON sessions (last_activity_at DESC);
      CREATE INDEX sessions_subagents ON sessions (parent_session_id, started_at)
        WHERE is_subagent = 1;

      CREATE TABLE events (
        id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id    text UNIQUE,
        agent          text NOT NULL,
        session_id     text COLLATE "C" NOT NULL,
        cwd            text,
        project        text COLLATE "C",
        event_type     text NOT NULL,
        ts             bigint NOT NULL,
        tool_name      text,
        tool_use_id    text,
        file_path      text,
        command        text,
        command_prefix text,
        success        integer,
        error          text,
        duration_ms    bigint,
        prompt         text,
        model          text,
        received_at    bigint NOT NULL,
        raw            text NOT NULL
      );
      CREATE INDEX events_session_ts ON events (session_id, ts);
      CREATE INDEX events_project_ts ON events (project, ts);
      CREATE INDEX events_ts ON events (ts);

      CREATE TABLE messages (
        id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id     text COLLATE "C" NOT NULL,
        agent          text NOT NULL,
        message_key    text COLLATE "C" NOT NULL,
        ts             bigint NOT NULL,
        role           text NOT NULL,
        message_type   text NOT NULL,
        text           text NOT NULL,
        tool_name      text,
        tool_use_id    text,
        is_error       integer,
        model          text,
        cwd            text,
        file_path      text,
        command_prefix text,
        subagent_id    text,
        -- As SQLite's index: a tool call or result by its tool's name and the first 2,000
        -- characters of its text; prose whole, up to 200,000 characters (a tsvector holds at
        -- most 1 MB). Punctuation splits words, as SQLite's unicode61 tokenizer splits them:
        -- PostgreSQL's parser would keep 'tests/login.test.ts' or 'a-b' whole, and a search
        -- for 'test' would miss them.
        search         tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig,
          regexp_replace(CASE WHEN message_type IN ('tool_use', 'tool_result')
            THEN coalesce(tool_name || ' ', '') || left(text, 2000)
            ELSE left(text, 200000) END, '[[:punct:]]+', ' ', 'g'))) STORED,
        UNIQUE (session_id, message_key)
      );
      CREATE INDEX messages_session_ts ON messages (session_id, ts);
      CREATE INDEX messages_search ON messages USING gin (search);

      CREATE TABLE usage (
        usage_key             text COLLATE "C" PRIMARY KEY,
        session_id            text COLLATE "C" NOT NULL,
        agent                 text NOT NULL,
        ts                    bigint NOT NULL,
        model                 text,
        input_tokens          bigint NOT NULL,
        output_tokens         bigint NOT NULL,
        cache_read_tokens     bigint NOT NULL,
        cache_write_tokens    bigint NOT NULL,
        cache_write_1h_tokens bigint NOT NULL DEFAULT 0,
        reasoning_tokens      bigint NOT NULL,
        web_search_requests   bigint NOT NULL DEFAULT 0,
        service_tier          text,
        speed                 text,
        inference_geo         text,
        context_window        bigint,
        reported_cost_usd     double precision,
        calls                 bigint NOT NULL DEFAULT 1,
        cost_usd              double precision NOT NULL,
        priced                integer NOT NULL DEFAULT 1
      );
      CREATE INDEX usage_session_ts ON usage (session_id, ts);
      CREATE INDEX usage_ts ON usage (ts);

      CREATE TABLE transcript_files (
        path          text COLLATE "C" PRIMARY KEY,
        agent         text NOT NULL,
        byte_offset   bigint NOT NULL,
        file_size     bigint NOT NULL,
        parser_state  text NOT NULL,
        lines         bigint NOT NULL DEFAULT 0,
        malformed     bigint NOT NULL DEFAULT 0,
        unknown_types bigint NOT NULL DEFAULT 0,
        updated_at    bigint NOT NULL
      );

      CREATE TABLE tool_outcomes (
        session_id  text COLLATE "C" NOT NULL,
        tool_use_id text COLLATE "C" NOT NULL,
        agent       text NOT NULL,
        ts          bigint NOT NULL,
        success     integer NOT NULL CHECK (success IN (0, 1)),
        exit_code   bigint,
        error       text,
        PRIMARY KEY (session_id, tool_use_id)
      );
    `,
  },
  {
    version: 23,
    name: "team mode: who sent each hook event and from which host, and the session's person",
    sql: `
      -- As SQLite's migration 23: person is the team member whose token sent the hook (NULL for
      -- the server's own token and local hooks), host the machine the hook said it ran on; a
      -- session keeps the person and host of the first hook that named it.
      ALTER TABLE events ADD COLUMN person text;
      ALTER TABLE events ADD COLUMN host text;
      ALTER TABLE sessions ADD COLUMN person text;
      ALTER TABLE sessions ADD COLUMN host text;
    `,
  },
  {
    version: 26,
    name: "a position for each model call, which vantage sync reads a store's calls by",
    sql: `
      -- SQLite's rowid, which a push of a SQLite store counts calls by; the calls stored before
      -- are numbered in the order the table holds them, and a push's first run sends them all.
      ALTER TABLE usage ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE;
    `,
  },
];
