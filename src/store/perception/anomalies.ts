/**
 * Anomalies: one row per finding per session, every emission of it logged,
 * resolved when the agent fixed what it was about; read back for the rules'
 * suppression, a session's active findings, the dashboard's feed with its
 * facets, the overview's counts and the change feed.
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader, type RowShape } from "../rows.ts";
import { prepared } from "../statements.ts";

/** A stored anomaly. */
export interface AnomalyRow {
  /** Row id. */
  id: number;
  /** Session. */
  session_id: string;
  /** Project. */
  project: string | null;
  /** Rule kind. */
  kind: string;
  /** info, warning or critical. */
  severity: string;
  /** next_prompt, post_tool or stop. */
  channel: string;
  /** Identity of the finding, for suppression. */
  fingerprint: string;
  /** What was seen. */
  evidence: string;
  /** What to do. */
  suggestion: string;
  /** JSON array of paths. */
  related_files: string;
  /** First emission, ms. */
  first_emitted_at: number;
  /** Latest emission, ms. */
  last_emitted_at: number;
  /** Emissions. */
  emit_count: number;
  /** When the agent resolved it, ms. */
  resolved_at: number | null;
}

const ANOMALY_SHAPE: RowShape<AnomalyRow> = {
  id: "number",
  session_id: "text",
  project: "text?",
  kind: "text",
  severity: "text",
  channel: "text",
  fingerprint: "text",
  evidence: "text",
  suggestion: "text",
  related_files: "text",
  first_emitted_at: "number",
  last_emitted_at: "number",
  emit_count: "number",
  resolved_at: "number?",
};

const ANOMALY = new RowReader<AnomalyRow>("anomaly", ANOMALY_SHAPE);

/** A session's unresolved anomalies, newest first. */
export function activeAnomalies(db: DatabaseSync, sessionId: string, limit = 50): AnomalyRow[] {
  return ANOMALY.all(
    prepared(
      db,
      `SELECT ${ANOMALY.columns} FROM anomalies WHERE session_id = ? AND resolved_at IS NULL
     ORDER BY last_emitted_at DESC LIMIT ?`,
    ).all(sessionId, limit),
  );
}

/** What the rules need to know of a finding they emitted before. */
export interface AnomalyHistoryRow {
  /** Rule kind (each rule family settles only its own). */
  kind: string;
  /** Identity of the finding. */
  fingerprint: string;
  /** First emission, ms. */
  first_emitted_at: number;
  /** Latest emission, ms. */
  last_emitted_at: number;
  /** When it was resolved, ms. */
  resolved_at: number | null;
}

const ANOMALY_HISTORY = new RowReader<AnomalyHistoryRow>("anomaly history", {
  kind: "text",
  fingerprint: "text",
  first_emitted_at: "number",
  last_emitted_at: "number",
  resolved_at: "number?",
});

/** A session's anomaly history, for suppression: one row per fingerprint. */
export function anomalyHistory(db: DatabaseSync, sessionId: string): AnomalyHistoryRow[] {
  return ANOMALY_HISTORY.all(
    prepared(
      db,
      `SELECT ${ANOMALY_HISTORY.columns} FROM anomalies WHERE session_id = ?`,
    ).all(sessionId),
  );
}

/** An anomaly being emitted to an agent: its row's fields that the rules decide. */
export type AnomalyEmission =
  & Pick<
    AnomalyRow,
    | "session_id"
    | "project"
    | "kind"
    | "severity"
    | "channel"
    | "fingerprint"
    | "evidence"
    | "suggestion"
    | "first_emitted_at"
  >
  & {
    /** Related paths. */
    related_files: readonly string[];
  };

const RECORD_EMISSION = `
      INSERT INTO anomalies (session_id, project, kind, severity, channel, fingerprint, evidence, suggestion,
        related_files, first_emitted_at, last_emitted_at, emit_count, resolved_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, NULL)
      ON CONFLICT (session_id, fingerprint) DO UPDATE SET
        severity = excluded.severity, channel = excluded.channel, evidence = excluded.evidence,
        suggestion = excluded.suggestion, related_files = excluded.related_files,
        first_emitted_at = excluded.first_emitted_at, last_emitted_at = excluded.last_emitted_at,
        emit_count = anomalies.emit_count + 1, resolved_at = NULL
    `;

const LOG_EMISSION = `
      INSERT INTO anomaly_emissions (anomaly_id, ts, channel)
      SELECT id, ?, ? FROM anomalies WHERE session_id = ? AND fingerprint = ?
    `;

/** Records one emission (every emission is logged) and marks the anomaly active. */
export function recordEmission(db: DatabaseSync, emission: AnomalyEmission, now: number): void {
  return writing(db, () => {
    prepared(db, RECORD_EMISSION).run(
      emission.session_id,
      emission.project,
      emission.kind,
      emission.severity,
      emission.channel,
      emission.fingerprint,
      emission.evidence,
      emission.suggestion,
      JSON.stringify(emission.related_files),
      emission.first_emitted_at,
      now,
    );
    prepared(db, LOG_EMISSION).run(
      now,
      emission.channel,
      emission.session_id,
      emission.fingerprint,
    );
  });
}

/** Marks an anomaly resolved (the agent fixed what it was about). */
export function resolveAnomaly(
  db: DatabaseSync,
  sessionId: string,
  fingerprint: string,
  now: number,
): void {
  return writing(db, () => {
    prepared(
      db,
      "UPDATE anomalies SET resolved_at = ? WHERE session_id = ? AND fingerprint = ? AND resolved_at IS NULL",
    ).run(now, sessionId, fingerprint);
  });
}

const SEVERITY_COUNT = new RowReader<{ severity: string; count: number }>("severity count", {
  severity: "text",
  count: "number",
});

/** Unresolved anomalies emitted since a time, per severity. */
export function openAnomalyCounts(
  db: DatabaseSync,
  since: number,
): Array<{ severity: string; count: number }> {
  return SEVERITY_COUNT.all(
    prepared(
      db,
      `SELECT severity, count(*) AS count FROM anomalies
     WHERE last_emitted_at >= ? AND resolved_at IS NULL GROUP BY severity`,
    ).all(since),
  );
}

/** A stored anomaly with the session it belongs to. */
export interface AnomalyFeedRow extends Omit<AnomalyRow, "fingerprint"> {
  /** The session's agent. */
  agent: string | null;
  /** The session's title. */
  title: string | null;
}

const { fingerprint: _fingerprint, ...FEED_ANOMALY_SHAPE } = ANOMALY_SHAPE;

const ANOMALY_FEED_ROW = new RowReader<AnomalyFeedRow>("anomaly feed", {
  ...FEED_ANOMALY_SHAPE,
  agent: "text?",
  title: "text?",
});

/** Filters of {@linkcode anomalyFeed}. */
export interface AnomalyFeedFilter {
  /** Emitted at or after, ms. */
  since: number;
  /** Only this kind. */
  kind?: string;
  /** Only this project. */
  project?: string;
  /** Only this severity. */
  severity?: string;
  /** Only this session. */
  sessionId?: string;
  /** Include resolved anomalies. */
  includeResolved: boolean;
  /** Rows to return. */
  limit: number;
}

function anomalyWhere(
  filter: AnomalyFeedFilter,
  skip: "kind" | "project" | "none",
): { sql: string; params: SQLInputValue[] } {
  const where = ["a.last_emitted_at >= ?"];
  const params: SQLInputValue[] = [filter.since];
  if (filter.kind !== undefined && skip !== "kind") {
    where.push("a.kind = ?");
    params.push(filter.kind);
  }
  if (filter.project !== undefined && skip !== "project") {
    where.push("coalesce(a.project, '') = ?");
    params.push(filter.project);
  }
  if (filter.severity !== undefined) {
    where.push("a.severity = ?");
    params.push(filter.severity);
  }
  if (filter.sessionId !== undefined) {
    where.push("a.session_id = ?");
    params.push(filter.sessionId);
  }
  if (!filter.includeResolved) where.push("a.resolved_at IS NULL");
  return { sql: where.join(" AND "), params };
}

/** The anomaly columns of a feed row (the session's agent and title come from its join). */
const FEED_COLUMNS = ANOMALY_FEED_ROW.columnsOf("a", ["agent", "title"]);

/** Anomalies matching the filter, most recently emitted first. */
export function anomalyFeed(db: DatabaseSync, filter: AnomalyFeedFilter): AnomalyFeedRow[] {
  const { sql, params } = anomalyWhere(filter, "none");
  return ANOMALY_FEED_ROW.all(
    prepared(
      db,
      `SELECT ${FEED_COLUMNS}, s.agent, s.title
     FROM anomalies a LEFT JOIN sessions s ON s.session_id = a.session_id
     WHERE ${sql} ORDER BY a.last_emitted_at DESC, a.id DESC LIMIT ?`,
    ).all(...params, filter.limit),
  );
}

/** One value of a facet and how many anomalies have it. */
export interface FacetCount {
  /** The value. */
  value: string;
  /** Anomalies with it. */
  count: number;
}

const FACET_COUNT = new RowReader<FacetCount>("facet count", { value: "text", count: "number" });

/**
 * Counts per kind and per project of the anomalies the filter selects; each
 * facet ignores its own filter so the other values stay visible as choices.
 */
export function anomalyFacets(
  db: DatabaseSync,
  filter: AnomalyFeedFilter,
): { kinds: FacetCount[]; projects: FacetCount[] } {
  const byKind = anomalyWhere(filter, "kind");
  const byProject = anomalyWhere(filter, "project");
  return {
    kinds: FACET_COUNT.all(
      prepared(
        db,
        `SELECT a.kind AS value, count(*) AS count FROM anomalies a WHERE ${byKind.sql}
       GROUP BY a.kind ORDER BY count DESC LIMIT 50`,
      ).all(...byKind.params),
    ),
    projects: FACET_COUNT.all(
      prepared(
        db,
        `SELECT coalesce(a.project, '') AS value, count(*) AS count FROM anomalies a
       WHERE ${byProject.sql} GROUP BY value ORDER BY count DESC LIMIT 50`,
      ).all(...byProject.params),
    ),
  };
}

/**
 * An anomaly emission as the change feed announces it (a type, not an interface: the
 * feed passes it on as a plain record).
 */
export type EmittedAnomalyRow = {
  /** Session. */
  session_id: string;
  /** Project. */
  project: string | null;
  /** Rule kind. */
  kind: string;
  /** Severity. */
  severity: string;
  /** Latest emission, ms. */
  last_emitted_at: number;
};

const EMITTED_ANOMALY = new RowReader<EmittedAnomalyRow>("emitted anomaly", {
  session_id: "text",
  project: "text?",
  kind: "text",
  severity: "text",
  last_emitted_at: "number",
});

/** Anomalies emitted after a time, oldest first. */
export function anomaliesEmittedAfter(
  db: DatabaseSync,
  ts: number,
  limit: number,
): EmittedAnomalyRow[] {
  return EMITTED_ANOMALY.all(
    prepared(
      db,
      `SELECT ${EMITTED_ANOMALY.columns} FROM anomalies
     WHERE last_emitted_at > ? ORDER BY last_emitted_at LIMIT ?`,
    ).all(ts, limit),
  );
}
