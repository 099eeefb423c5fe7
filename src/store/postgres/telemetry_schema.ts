/**
 * The telemetry area's tables on PostgreSQL: the same tables, columns and
 * keys as SQLite's (../telemetry/schema.ts), so a resent span, log record
 * or API error is stored once on either backend. Times and counters are
 * `bigint`, durations and money `double precision`, attributes JSON text.
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The telemetry area's PostgreSQL migrations, oldest first. */
export const PG_TELEMETRY_MIGRATIONS: readonly Migration[] = [
  {
    version: 18,
    name:
      "OpenTelemetry intake: spans, log records, metric points, and the model calls, tool calls and API errors read from them",
    sql: `
      CREATE TABLE telemetry_spans (
        id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        trace_id       text COLLATE "C" NOT NULL,
        span_id        text COLLATE "C" NOT NULL,
        parent_span_id text,
        name           text NOT NULL,
        kind           integer NOT NULL DEFAULT 0,
        service        text,
        agent          text,
        session_id     text COLLATE "C",
        start_ts       bigint NOT NULL,
        duration_ms    double precision NOT NULL,
        status_code    integer NOT NULL DEFAULT 0,
        status_message text,
        attributes     text NOT NULL,
        received_at    bigint NOT NULL,
        UNIQUE (trace_id, span_id)
      );
      CREATE INDEX telemetry_spans_start ON telemetry_spans (start_ts);
      CREATE INDEX telemetry_spans_session ON telemetry_spans (session_id, start_ts)
        WHERE session_id IS NOT NULL;

      CREATE TABLE telemetry_logs (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        dedupe_key  text COLLATE "C" UNIQUE,
        ts          bigint NOT NULL,
        service     text,
        agent       text,
        session_id  text COLLATE "C",
        event_name  text,
        severity    integer,
        body        text,
        attributes  text NOT NULL,
        trace_id    text,
        span_id     text,
        received_at bigint NOT NULL
      );
      CREATE INDEX telemetry_logs_ts ON telemetry_logs (ts);
      CREATE INDEX telemetry_logs_session ON telemetry_logs (session_id, ts)
        WHERE session_id IS NOT NULL;

      CREATE TABLE telemetry_metric_points (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name        text NOT NULL,
        unit        text,
        kind        text NOT NULL,
        temporality integer,
        monotonic   integer,
        ts          bigint NOT NULL,
        start_ts    bigint,
        value       double precision,
        count       bigint,
        sum         double precision,
        min         double precision,
        max         double precision,
        service     text,
        agent       text,
        session_id  text COLLATE "C",
        attributes  text NOT NULL,
        received_at bigint NOT NULL
      );
      CREATE INDEX telemetry_metric_points_name_ts ON telemetry_metric_points (name, ts);

      CREATE TABLE telemetry_sessions (
        session_id      text COLLATE "C" PRIMARY KEY,
        agent           text NOT NULL,
        service         text,
        service_version text,
        user_id         text,
        user_email      text,
        organization_id text,
        host_name       text,
        host_arch       text,
        os_type         text,
        terminal_type   text,
        first_seen      bigint NOT NULL,
        last_seen       bigint NOT NULL
      );

      CREATE TABLE telemetry_model_calls (
        call_key           text COLLATE "C" PRIMARY KEY,
        agent              text NOT NULL,
        session_id         text COLLATE "C" NOT NULL,
        ts                 bigint NOT NULL,
        model              text,
        request_id         text COLLATE "C",
        prompt_id          text,
        trace_id           text,
        span_id            text,
        input_tokens       bigint,
        output_tokens      bigint,
        cache_read_tokens  bigint,
        cache_write_tokens bigint,
        reasoning_tokens   bigint,
        cost_usd           double precision,
        duration_ms        double precision,
        ttft_ms            double precision,
        finish_reason      text,
        success            integer,
        query_source       text,
        outside_transcript integer,
        usage_key          text COLLATE "C",
        counted            integer NOT NULL DEFAULT 0,
        user_id            text,
        host_name          text
      );
      CREATE INDEX telemetry_model_calls_ts ON telemetry_model_calls (ts);
      CREATE INDEX telemetry_model_calls_session ON telemetry_model_calls (session_id, ts);
      CREATE INDEX telemetry_model_calls_request ON telemetry_model_calls (request_id)
        WHERE request_id IS NOT NULL;

      CREATE TABLE telemetry_tool_calls (
        call_key        text COLLATE "C" PRIMARY KEY,
        agent           text NOT NULL,
        session_id      text COLLATE "C" NOT NULL,
        ts              bigint NOT NULL,
        tool_name       text,
        tool_use_id     text,
        prompt_id       text,
        duration_ms     double precision,
        success         integer,
        error_type      text,
        error           text,
        decision        text,
        decision_source text,
        trace_id        text,
        span_id         text,
        counted         integer NOT NULL DEFAULT 0,
        user_id         text,
        host_name       text
      );
      CREATE INDEX telemetry_tool_calls_ts ON telemetry_tool_calls (ts);
      CREATE INDEX telemetry_tool_calls_tool ON telemetry_tool_calls (tool_name, ts);
      CREATE INDEX telemetry_tool_calls_session ON telemetry_tool_calls (session_id, ts);

      CREATE TABLE telemetry_api_errors (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        error_key   text COLLATE "C" NOT NULL UNIQUE,
        agent       text NOT NULL,
        session_id  text COLLATE "C" NOT NULL,
        ts          bigint NOT NULL,
        model       text,
        request_id  text,
        prompt_id   text,
        status_code integer,
        error       text,
        duration_ms double precision,
        attempt     integer,
        user_id     text,
        host_name   text
      );
      CREATE INDEX telemetry_api_errors_ts ON telemetry_api_errors (ts);

      -- A Claude Code call's usage key is '<message id>:<request id>': found by its request id.
      CREATE INDEX usage_claude_request ON usage (substr(usage_key, strpos(usage_key, ':') + 1))
        WHERE agent = 'claude_code';
    `,
  },
  {
    version: 21,
    name: "OpenTelemetry intake keeps only the indexes something reads",
    sql: `
      -- As SQLite's migration 21: no read goes through these, and each costs every record
      -- stored.
      DROP INDEX telemetry_spans_start;
      DROP INDEX telemetry_spans_session;
      DROP INDEX telemetry_logs_ts;
      DROP INDEX telemetry_logs_session;
      DROP INDEX telemetry_model_calls_request;
      DROP INDEX telemetry_tool_calls_tool;
    `,
  },
];
