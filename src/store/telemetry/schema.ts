/**
 * The telemetry area's schema: what OpenTelemetry exporters sent, kept as
 * received, and the model calls, tool calls and API errors read from it.
 *
 * Tables, as the migrations below leave them:
 *
 * - `telemetry_spans`, `telemetry_logs`, `telemetry_metric_points`: the raw
 *   signals (attributes as JSON, secrets redacted); a resent span or agent
 *   event is stored once. Spans and log records carry only their unique
 *   keys (migration 21): nothing of Vantage reads them by time or session,
 *   and each index would cost every record an export stores.
 * - `telemetry_sessions`: the user and host each session's telemetry named.
 * - `telemetry_model_calls`: one row per model call, merged from every
 *   record describing it, linked by `usage_key` to the usage row that counts
 *   it (the transcript's, or telemetry's own `otel:…` while `counted`).
 * - `telemetry_tool_calls`: one row per tool call (decision, result, span).
 * - `telemetry_api_errors`: model API errors, once per error key.
 *
 * It also indexes the agent area's `usage` by a Claude Code call's request
 * id, which is how a call seen in both is counted once (settle.ts).
 *
 * A migration is never edited once shipped: a change is a new number, added
 * to this list (numbers are unique across areas; see ../migrations.ts).
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The telemetry area's migrations, oldest first. */
export const TELEMETRY_MIGRATIONS: readonly Migration[] = [
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
    version: 21,
    name: "OpenTelemetry intake keeps only the indexes something reads",
    sql: `
      -- Every index costs each span, log record and call stored, and intake is the busiest
      -- writer there is; no read of Vantage's goes through these (raw spans and log records are
      -- read only by ad hoc queries, calls by time, session and key).
      DROP INDEX telemetry_spans_start;
      DROP INDEX telemetry_spans_session;
      DROP INDEX telemetry_logs_ts;
      DROP INDEX telemetry_logs_session;
      DROP INDEX telemetry_model_calls_request;
      DROP INDEX telemetry_tool_calls_tool;
    `,
  },
];
