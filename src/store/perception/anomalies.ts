/**
 * Anomalies: one row per finding per session, every emission of it logged,
 * resolved when the agent fixed what it was about; read back for the rules'
 * suppression, a session's active findings, the dashboard's feed with its
 * facets, the overview's counts and the change feed.
 *
 * @module
 */
import { type DatabaseSync, writing } from "../database.ts";
import { builtRows, type SqlParams } from "../params.ts";
import { RowReader, type RowShape, type SqlParam } from "../rows.ts";
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

/** Reads {@linkcode AnomalyRow} rows (on either backend). */
export const ANOMALY = new RowReader<AnomalyRow>("anomaly", ANOMALY_SHAPE);

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

/** Reads {@linkcode AnomalyHistoryRow} rows (on either backend). */
export const ANOMALY_HISTORY = new RowReader<AnomalyHistoryRow>("anomaly history", {
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

/**
 * The parameters of the upsert of an emitted anomaly (`session_id, project, kind, severity,
 * channel, fingerprint, evidence, suggestion, related_files, first_emitted_at,
 * last_emitted_at`, on both backends).
 */
export function emissionValues(emission: AnomalyEmission, now: number): SqlParam[] {
  return [
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
  ];
}

/** Records one emission (every emission is logged) and marks the anomaly active. */
export function recordEmission(db: DatabaseSync, emission: AnomalyEmission, now: number): void {
  return writing(db, () => {
    prepared(db, RECORD_EMISSION).run(...emissionValues(emission, now));
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

/** Reads counts per severity (on either backend). */
export const SEVERITY_COUNT = new RowReader<{ severity: string; count: number }>("severity count", {
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

/** Reads {@linkcode AnomalyFeedRow} rows (on either backend). */
export const ANOMALY_FEED_ROW = new RowReader<AnomalyFeedRow>("anomaly feed", {
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

/**
 * The conditions of the anomalies `filter` selects, over `anomalies` as `a`, but for one
 * facet's own (`skip`), so the facet keeps its other values as choices (both backends; values
 * go to `p`).
 */
export function anomalyWhere(
  filter: AnomalyFeedFilter,
  skip: "kind" | "project" | "none",
  p: SqlParams,
): string {
  const where = [`a.last_emitted_at >= ${p.add(filter.since)}`];
  if (filter.kind !== undefined && skip !== "kind") where.push(`a.kind = ${p.add(filter.kind)}`);
  if (filter.project !== undefined && skip !== "project") {
    where.push(`coalesce(a.project, '') = ${p.add(filter.project)}`);
  }
  if (filter.severity !== undefined) where.push(`a.severity = ${p.add(filter.severity)}`);
  if (filter.sessionId !== undefined) where.push(`a.session_id = ${p.add(filter.sessionId)}`);
  if (!filter.includeResolved) where.push("a.resolved_at IS NULL");
  return where.join(" AND ");
}

/** The anomaly columns of a feed row (the session's agent and title come from its join). */
const FEED_COLUMNS = ANOMALY_FEED_ROW.columnsOf("a", ["agent", "title"]);

/** The statement of {@linkcode anomalyFeed} (on either backend; its values go to `p`). */
export function anomalyFeedSql(filter: AnomalyFeedFilter, p: SqlParams): string {
  return `SELECT ${FEED_COLUMNS}, s.agent, s.title
    FROM anomalies a LEFT JOIN sessions s ON s.session_id = a.session_id
    WHERE ${anomalyWhere(filter, "none", p)}
    ORDER BY a.last_emitted_at DESC, a.id DESC LIMIT ${p.add(filter.limit)}`;
}

/** Anomalies matching the filter, most recently emitted first. */
export function anomalyFeed(db: DatabaseSync, filter: AnomalyFeedFilter): AnomalyFeedRow[] {
  return builtRows(db, ANOMALY_FEED_ROW, (p) => anomalyFeedSql(filter, p));
}

/** One value of a facet and how many anomalies have it. */
export interface FacetCount {
  /** The value. */
  value: string;
  /** Anomalies with it. */
  count: number;
}

/** Reads {@linkcode FacetCount} rows (on either backend). */
export const FACET_COUNT = new RowReader<FacetCount>("facet count", {
  value: "text",
  count: "number",
});

/**
 * Counts per kind and per project of the anomalies the filter selects; each
 * facet ignores its own filter so the other values stay visible as choices.
 */
export function anomalyFacets(
  db: DatabaseSync,
  filter: AnomalyFeedFilter,
): { kinds: FacetCount[]; projects: FacetCount[] } {
  return {
    kinds: builtRows(
      db,
      FACET_COUNT,
      (p) =>
        `SELECT a.kind AS value, count(*) AS count FROM anomalies a
        WHERE ${anomalyWhere(filter, "kind", p)} GROUP BY a.kind ORDER BY count DESC LIMIT 50`,
    ),
    projects: builtRows(
      db,
      FACET_COUNT,
      (p) =>
        `SELECT coalesce(a.project, '') AS value, count(*) AS count FROM anomalies a
        WHERE ${anomalyWhere(filter, "project", p)} GROUP BY value ORDER BY count DESC LIMIT 50`,
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

/** Reads {@linkcode EmittedAnomalyRow} rows (on either backend). */
export const EMITTED_ANOMALY = new RowReader<EmittedAnomalyRow>("emitted anomaly", {
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
