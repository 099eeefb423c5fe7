/**
 * Anomalies on PostgreSQL: one row per finding per session, every emission logged, resolved
 * when the agent fixed what it was about, and the reads behind the rules' suppression, the
 * feed with its facets, the overview's counts and the change feed — SQLite's statements
 * (../../perception/anomalies.ts) in PostgreSQL's dialect.
 *
 * @module
 */
import type {
  AnomalyEmission,
  AnomalyFeedFilter,
  AnomalyFeedRow,
  AnomalyHistoryRow,
  AnomalyRow,
  EmittedAnomalyRow,
  FacetCount,
} from "../../perception/anomalies.ts";
import { RowReader, type RowShape } from "../../rows.ts";
import { Params } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";

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
export async function activeAnomalies(
  q: PgQueryable,
  sessionId: string,
  limit = 50,
): Promise<AnomalyRow[]> {
  return ANOMALY.all(
    await q.query(
      `SELECT ${ANOMALY.columns} FROM anomalies WHERE session_id = $1 AND resolved_at IS NULL
       ORDER BY last_emitted_at DESC, id DESC LIMIT $2`,
      [sessionId, limit],
    ),
  );
}

const ANOMALY_HISTORY = new RowReader<AnomalyHistoryRow>("anomaly history", {
  kind: "text",
  fingerprint: "text",
  first_emitted_at: "number",
  last_emitted_at: "number",
  resolved_at: "number?",
});

/** A session's anomaly history, for suppression: one row per fingerprint. */
export async function anomalyHistory(
  q: PgQueryable,
  sessionId: string,
): Promise<AnomalyHistoryRow[]> {
  return ANOMALY_HISTORY.all(
    await q.query(
      `SELECT ${ANOMALY_HISTORY.columns} FROM anomalies WHERE session_id = $1 ORDER BY id`,
      [sessionId],
    ),
  );
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
      [
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
      ],
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

const SEVERITY_COUNT = new RowReader<{ severity: string; count: number }>("severity count", {
  severity: "text",
  count: "number",
});

/** Unresolved anomalies emitted since a time, per severity. */
export async function openAnomalyCounts(
  q: PgQueryable,
  since: number,
): Promise<Array<{ severity: string; count: number }>> {
  return SEVERITY_COUNT.all(
    await q.query(
      `SELECT severity, count(*) AS count FROM anomalies
       WHERE last_emitted_at >= $1 AND resolved_at IS NULL
       GROUP BY severity ORDER BY severity COLLATE "C"`,
      [since],
    ),
  );
}

const { fingerprint: _fingerprint, ...FEED_ANOMALY_SHAPE } = ANOMALY_SHAPE;

const ANOMALY_FEED_ROW = new RowReader<AnomalyFeedRow>("anomaly feed", {
  ...FEED_ANOMALY_SHAPE,
  agent: "text?",
  title: "text?",
});

/** The feed filter's conditions, leaving out one facet's own (SQLite's `anomalyWhere`). */
function anomalyWhere(
  filter: AnomalyFeedFilter,
  skip: "kind" | "project" | "none",
  p: Params,
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

const FEED_COLUMNS = ANOMALY_FEED_ROW.columnsOf("a", ["agent", "title"]);

/** Anomalies matching the filter, most recently emitted first. */
export async function anomalyFeed(
  q: PgQueryable,
  filter: AnomalyFeedFilter,
): Promise<AnomalyFeedRow[]> {
  const p = new Params();
  const where = anomalyWhere(filter, "none", p);
  return ANOMALY_FEED_ROW.all(
    await q.query(
      `SELECT ${FEED_COLUMNS}, s.agent, s.title
       FROM anomalies a LEFT JOIN sessions s ON s.session_id = a.session_id
       WHERE ${where} ORDER BY a.last_emitted_at DESC, a.id DESC LIMIT ${p.add(filter.limit)}`,
      p.values,
    ),
  );
}

const FACET_COUNT = new RowReader<FacetCount>("facet count", { value: "text", count: "number" });

/** Counts per kind and per project of the selected anomalies, each facet ignoring its own filter. */
export async function anomalyFacets(
  q: PgQueryable,
  filter: AnomalyFeedFilter,
): Promise<{ kinds: FacetCount[]; projects: FacetCount[] }> {
  const byKind = new Params();
  const kindWhere = anomalyWhere(filter, "kind", byKind);
  const byProject = new Params();
  const projectWhere = anomalyWhere(filter, "project", byProject);
  return {
    kinds: FACET_COUNT.all(
      await q.query(
        `SELECT a.kind AS value, count(*) AS count FROM anomalies a WHERE ${kindWhere}
         GROUP BY a.kind ORDER BY count DESC, a.kind COLLATE "C" LIMIT 50`,
        byKind.values,
      ),
    ),
    projects: FACET_COUNT.all(
      await q.query(
        `SELECT coalesce(a.project, '') AS value, count(*) AS count FROM anomalies a
         WHERE ${projectWhere} GROUP BY 1 ORDER BY count DESC, 1 LIMIT 50`,
        byProject.values,
      ),
    ),
  };
}

const EMITTED_ANOMALY = new RowReader<EmittedAnomalyRow>("emitted anomaly", {
  session_id: "text",
  project: "text?",
  kind: "text",
  severity: "text",
  last_emitted_at: "number",
});

/** Anomalies emitted after a time, oldest first. */
export async function anomaliesEmittedAfter(
  q: PgQueryable,
  ts: number,
  limit: number,
): Promise<EmittedAnomalyRow[]> {
  return EMITTED_ANOMALY.all(
    await q.query(
      `SELECT ${EMITTED_ANOMALY.columns} FROM anomalies
       WHERE last_emitted_at > $1 ORDER BY last_emitted_at, id LIMIT $2`,
      [ts, limit],
    ),
  );
}
