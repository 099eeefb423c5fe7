/**
 * Anomalies on PostgreSQL: one row per finding per session, every emission logged, resolved
 * when the agent fixed what it was about, and the reads behind the rules' suppression, the
 * feed with its facets, the overview's counts and the change feed — SQLite's statements
 * (../../perception/anomalies.ts, whose readers, parameters and feed filter are used as they
 * are) in PostgreSQL's dialect.
 *
 * @module
 */
import {
  ANOMALY,
  ANOMALY_FEED_ROW,
  ANOMALY_HISTORY,
  type AnomalyEmission,
  type AnomalyFeedFilter,
  type AnomalyFeedRow,
  anomalyFeedSql,
  type AnomalyHistoryRow,
  type AnomalyRow,
  anomalyWhere,
  emissionValues,
  EMITTED_ANOMALY,
  type EmittedAnomalyRow,
  FACET_COUNT,
  type FacetCount,
  SEVERITY_COUNT,
} from "../../perception/anomalies.ts";
import { Params } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { builtRows, readRows } from "../reads.ts";

/** A session's unresolved anomalies, newest first. */
export function activeAnomalies(
  q: PgQueryable,
  sessionId: string,
  limit = 50,
): Promise<AnomalyRow[]> {
  return readRows(
    q,
    ANOMALY,
    `SELECT ${ANOMALY.columns} FROM anomalies WHERE session_id = $1 AND resolved_at IS NULL
     ORDER BY last_emitted_at DESC, id DESC LIMIT $2`,
    [sessionId, limit],
  );
}

/** A session's anomaly history, for suppression: one row per fingerprint. */
export function anomalyHistory(q: PgQueryable, sessionId: string): Promise<AnomalyHistoryRow[]> {
  const sql = `SELECT ${ANOMALY_HISTORY.columns} FROM anomalies WHERE session_id = $1 ORDER BY id`;
  return readRows(q, ANOMALY_HISTORY, sql, [sessionId]);
}

/** Records one emission (every emission is logged) and marks the anomaly active. */
export function recordEmission(
  q: PgQueryable,
  emission: AnomalyEmission,
  now: number,
): Promise<void> {
  return q.write(async (w) => {
    const rows = await w.query(
      `INSERT INTO anomalies (session_id, project, kind, severity, channel, fingerprint, evidence,
         suggestion, related_files, first_emitted_at, last_emitted_at, emit_count, resolved_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, NULL)
       ON CONFLICT (session_id, fingerprint) DO UPDATE SET
         severity = excluded.severity, channel = excluded.channel, evidence = excluded.evidence,
         suggestion = excluded.suggestion, related_files = excluded.related_files,
         first_emitted_at = excluded.first_emitted_at, last_emitted_at = excluded.last_emitted_at,
         emit_count = anomalies.emit_count + 1, resolved_at = NULL
       RETURNING id`,
      emissionValues(emission, now),
    );
    await w.query("INSERT INTO anomaly_emissions (anomaly_id, ts, channel) VALUES ($1, $2, $3)", [
      Number(rows[0].id),
      now,
      emission.channel,
    ]);
  });
}

/** Marks an anomaly resolved (the agent fixed what it was about). */
export async function resolveAnomaly(
  q: PgQueryable,
  sessionId: string,
  fingerprint: string,
  now: number,
): Promise<void> {
  await q.query(
    `UPDATE anomalies SET resolved_at = $1
     WHERE session_id = $2 AND fingerprint = $3 AND resolved_at IS NULL`,
    [now, sessionId, fingerprint],
  );
}

/** Unresolved anomalies emitted since a time, per severity. */
export function openAnomalyCounts(
  q: PgQueryable,
  since: number,
): Promise<Array<{ severity: string; count: number }>> {
  return readRows(
    q,
    SEVERITY_COUNT,
    `SELECT severity, count(*) AS count FROM anomalies
     WHERE last_emitted_at >= $1 AND resolved_at IS NULL
     GROUP BY severity ORDER BY severity COLLATE "C"`,
    [since],
  );
}

/** Anomalies matching the filter, most recently emitted first (SQLite's statement). */
export function anomalyFeed(q: PgQueryable, filter: AnomalyFeedFilter): Promise<AnomalyFeedRow[]> {
  return builtRows(q, ANOMALY_FEED_ROW, (p) => anomalyFeedSql(filter, p));
}

/** Counts per kind and per project of the selected anomalies, each facet ignoring its own filter. */
export async function anomalyFacets(
  q: PgQueryable,
  filter: AnomalyFeedFilter,
): Promise<{ kinds: FacetCount[]; projects: FacetCount[] }> {
  const byKind = new Params();
  const kindWhere = anomalyWhere(filter, "kind", byKind);
  const byProject = new Params();
  const projectWhere = anomalyWhere(filter, "project", byProject);
  const [kinds, projects] = await Promise.all([
    readRows(
      q,
      FACET_COUNT,
      `SELECT a.kind AS value, count(*) AS count FROM anomalies a WHERE ${kindWhere}
       GROUP BY a.kind ORDER BY count DESC, a.kind COLLATE "C" LIMIT 50`,
      byKind.values,
    ),
    readRows(
      q,
      FACET_COUNT,
      `SELECT coalesce(a.project, '') AS value, count(*) AS count FROM anomalies a
       WHERE ${projectWhere} GROUP BY 1 ORDER BY count DESC, 1 LIMIT 50`,
      byProject.values,
    ),
  ]);
  return { kinds, projects };
}

/** Anomalies emitted after a time, oldest first. */
export function anomaliesEmittedAfter(
  q: PgQueryable,
  ts: number,
  limit: number,
): Promise<EmittedAnomalyRow[]> {
  return readRows(
    q,
    EMITTED_ANOMALY,
    `SELECT ${EMITTED_ANOMALY.columns} FROM anomalies
     WHERE last_emitted_at > $1 ORDER BY last_emitted_at, id LIMIT $2`,
    [ts, limit],
  );
}
