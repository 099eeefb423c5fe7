/**
 * The perception area's tables on PostgreSQL: the same tables, columns and
 * keys as SQLite's (../perception/schema.ts). Times and counters are
 * `bigint`; JSON columns stay text, as there, so both backends answer the
 * same rows; `id`s are identities, growing as SQLite's rowids do (the change
 * feed follows `build_runs.id`).
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The perception area's PostgreSQL migrations, oldest first. */
export const PG_PERCEPTION_MIGRATIONS: readonly Migration[] = [
  {
    version: 3,
    name: "perception: builds, file changes, git moves, anomalies, project state, injections",
    sql: `
      CREATE TABLE build_runs (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tag         text NOT NULL,
        command     text NOT NULL,
        cwd         text,
        project     text COLLATE "C",
        started_at  bigint NOT NULL,
        duration_ms bigint NOT NULL,
        exit_code   bigint NOT NULL,
        errors      text NOT NULL DEFAULT '[]',
        output_tail text NOT NULL DEFAULT ''
      );
      CREATE INDEX build_runs_tag_started ON build_runs (tag, started_at DESC);
      CREATE INDEX build_runs_started ON build_runs (started_at DESC);

      CREATE TABLE file_changes (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project    text COLLATE "C" NOT NULL,
        path       text COLLATE "C" NOT NULL,
        kind       text NOT NULL,
        ts         bigint NOT NULL,
        source     text NOT NULL,
        session_id text COLLATE "C",
        agent      text
      );
      CREATE INDEX file_changes_project_ts ON file_changes (project, ts DESC);
      CREATE INDEX file_changes_ts ON file_changes (ts DESC);

      CREATE TABLE git_moves (
        id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project  text COLLATE "C" NOT NULL,
        ts       bigint NOT NULL,
        kind     text NOT NULL,
        branch   text,
        from_ref text,
        to_ref   text,
        summary  text
      );
      CREATE INDEX git_moves_project_ts ON git_moves (project, ts DESC);

      CREATE TABLE anomalies (
        id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id       text COLLATE "C" NOT NULL,
        project          text COLLATE "C",
        kind             text NOT NULL,
        severity         text NOT NULL,
        channel          text NOT NULL,
        fingerprint      text COLLATE "C" NOT NULL,
        evidence         text NOT NULL,
        suggestion       text NOT NULL,
        related_files    text NOT NULL DEFAULT '[]',
        first_emitted_at bigint NOT NULL,
        last_emitted_at  bigint NOT NULL,
        emit_count       bigint NOT NULL DEFAULT 1,
        resolved_at      bigint,
        UNIQUE (session_id, fingerprint)
      );
      CREATE INDEX anomalies_session ON anomalies (session_id, last_emitted_at DESC);
      CREATE INDEX anomalies_emitted ON anomalies (last_emitted_at DESC);

      CREATE TABLE anomaly_emissions (
        id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        anomaly_id bigint NOT NULL REFERENCES anomalies (id) ON DELETE CASCADE,
        ts         bigint NOT NULL,
        channel    text NOT NULL
      );
      CREATE INDEX anomaly_emissions_anomaly ON anomaly_emissions (anomaly_id);

      CREATE TABLE project_state (
        root         text COLLATE "C" PRIMARY KEY,
        state        text NOT NULL,
        refreshed_at bigint NOT NULL
      );

      CREATE TABLE injections (
        session_id text COLLATE "C" PRIMARY KEY,
        snapshot   text NOT NULL,
        ts         bigint NOT NULL
      );
    `,
  },
];
