/**
 * The perception area's schema: what the sensors record and the anomaly
 * engine emits.
 *
 * Tables, as the migration below leaves them:
 *
 * - `build_runs`: builds and tests observed (tag, command, cwd, project,
 *   start, duration, exit code, parsed errors as JSON, output tail).
 * - `file_changes`: files changed in a project, with who changed them when
 *   the watcher could attribute it (`source`, `session_id`, `agent`).
 * - `git_moves`: commits, branch switches, resets, with refs and summary.
 * - `anomalies`: one row per finding per session (`fingerprint` unique in
 *   its session): kind, severity, channel, evidence, suggestion, related
 *   files (JSON), first and last emission, count, resolution time.
 * - `anomaly_emissions`: every time an anomaly was shown.
 * - `project_state`: each project root's sensed state (JSON).
 * - `injections`: the context snapshot last injected into each session.
 *
 * A migration is never edited once shipped: a change is a new number, added
 * to this list (numbers are unique across areas; see ../migrations.ts).
 *
 * @module
 */
import type { Migration } from "../migrations.ts";

/** The perception area's migrations, oldest first. */
export const PERCEPTION_MIGRATIONS: readonly Migration[] = [
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
];
