/**
 * What the sensors record and the anomaly engine emits: build runs, file
 * changes, git moves, anomalies, project state and the last context
 * injection per session.
 *
 * @module
 */
import { type DatabaseSync, writing } from "./database.ts";

/** A recorded build or test run. */
export interface BuildRunRow {
  /** Row id. */
  id: number;
  /** Watcher tag. */
  tag: string;
  /** Command line. */
  command: string;
  /** Working directory. */
  cwd: string | null;
  /** Project root. */
  project: string | null;
  /** Start, ms. */
  started_at: number;
  /** Duration, ms. */
  duration_ms: number;
  /** Exit code. */
  exit_code: number;
  /** Parsed errors (JSON array). */
  errors: string;
  /** Last lines of output. */
  output_tail: string;
}

/** A build run to record. */
export type BuildRunInput = Omit<BuildRunRow, "id">;

/** Records a build run; returns its id. */
export function insertBuildRun(db: DatabaseSync, run: BuildRunInput): number {
  return writing(db, () => {
    const result = db.prepare(
      `INSERT INTO build_runs (tag, command, cwd, project, started_at, duration_ms, exit_code, errors, output_tail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      run.tag,
      run.command,
      run.cwd,
      run.project,
      run.started_at,
      run.duration_ms,
      run.exit_code,
      run.errors,
      run.output_tail,
    );
    return Number(result.lastInsertRowid);
  });
}

/** The latest build runs, of one tag or of any, newest first. */
export function latestBuildRuns(
  db: DatabaseSync,
  tag: string | undefined,
  limit: number,
): BuildRunRow[] {
  const columns =
    "id, tag, command, cwd, project, started_at, duration_ms, exit_code, errors, output_tail";
  if (tag === undefined) {
    return db.prepare(`SELECT ${columns} FROM build_runs ORDER BY started_at DESC, id DESC LIMIT ?`)
      .all(
        limit,
      ) as unknown as BuildRunRow[];
  }
  return db.prepare(
    `SELECT ${columns} FROM build_runs WHERE tag = ? ORDER BY started_at DESC, id DESC LIMIT ?`,
  ).all(tag, limit) as unknown as BuildRunRow[];
}

/** A file change seen by the watcher. */
export interface FileChangeRow {
  /** Project root. */
  project: string;
  /** Path. */
  path: string;
  /** create, modify or remove. */
  kind: string;
  /** Time, ms. */
  ts: number;
  /** agent or unknown. */
  source: string;
  /** Session that made it, when attributed. */
  session_id: string | null;
  /** Agent that made it, when attributed. */
  agent: string | null;
}

/** Records a file change. */
export function insertFileChange(db: DatabaseSync, change: FileChangeRow): void {
  return writing(db, () => {
    db.prepare(
      `INSERT INTO file_changes (project, path, kind, ts, source, session_id, agent) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      change.project,
      change.path,
      change.kind,
      change.ts,
      change.source,
      change.session_id,
      change.agent,
    );
  });
}

/** File changes in a project (or every project when null) since a time, newest first. */
export function fileChangesSince(
  db: DatabaseSync,
  project: string | null,
  since: number,
  limit: number,
): FileChangeRow[] {
  const columns = "project, path, kind, ts, source, session_id, agent";
  if (project === null) {
    return db.prepare(`SELECT ${columns} FROM file_changes WHERE ts >= ? ORDER BY ts DESC LIMIT ?`)
      .all(
        since,
        limit,
      ) as unknown as FileChangeRow[];
  }
  return db.prepare(
    `SELECT ${columns} FROM file_changes WHERE (project = ? OR path >= ? AND path < ?) AND ts >= ?
     ORDER BY ts DESC LIMIT ?`,
  ).all(project, project + "/", project + "/\uffff", since, limit) as unknown as FileChangeRow[];
}

/** A commit or branch move. */
export interface GitMoveRow {
  /** Project root. */
  project: string;
  /** Time, ms. */
  ts: number;
  /** commit, branch_switch, reset, … */
  kind: string;
  /** Branch after the move. */
  branch: string | null;
  /** Ref before. */
  from_ref: string | null;
  /** Ref after. */
  to_ref: string | null;
  /** Commit subject or description. */
  summary: string | null;
}

/** Records a git move. */
export function insertGitMove(db: DatabaseSync, move: GitMoveRow): void {
  return writing(db, () => {
    db.prepare(
      `INSERT INTO git_moves (project, ts, kind, branch, from_ref, to_ref, summary) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(move.project, move.ts, move.kind, move.branch, move.from_ref, move.to_ref, move.summary);
  });
}

/** Git moves in a project (or all when null) since a time, newest first. */
export function gitMovesSince(
  db: DatabaseSync,
  project: string | null,
  since: number,
  limit: number,
): GitMoveRow[] {
  const columns = "project, ts, kind, branch, from_ref, to_ref, summary";
  if (project === null) {
    return db.prepare(`SELECT ${columns} FROM git_moves WHERE ts >= ? ORDER BY ts DESC LIMIT ?`)
      .all(
        since,
        limit,
      ) as unknown as GitMoveRow[];
  }
  return db.prepare(
    `SELECT ${columns} FROM git_moves WHERE project = ? AND ts >= ? ORDER BY ts DESC LIMIT ?`,
  ).all(project, since, limit) as unknown as GitMoveRow[];
}

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

const ANOMALY_COLUMNS =
  `id, session_id, project, kind, severity, channel, fingerprint, evidence, suggestion,
  related_files, first_emitted_at, last_emitted_at, emit_count, resolved_at`;

/** A session's unresolved anomalies, newest first. */
export function activeAnomalies(db: DatabaseSync, sessionId: string, limit = 50): AnomalyRow[] {
  return db.prepare(
    `SELECT ${ANOMALY_COLUMNS} FROM anomalies WHERE session_id = ? AND resolved_at IS NULL
     ORDER BY last_emitted_at DESC LIMIT ?`,
  ).all(sessionId, limit) as unknown as AnomalyRow[];
}

/** Anomalies across sessions since a time, newest first (for feeds). */
export function recentAnomalies(db: DatabaseSync, since: number, limit: number): AnomalyRow[] {
  return db.prepare(
    `SELECT ${ANOMALY_COLUMNS} FROM anomalies WHERE last_emitted_at >= ? ORDER BY last_emitted_at DESC LIMIT ?`,
  ).all(since, limit) as unknown as AnomalyRow[];
}

/** The stored project state of a root, if indexed. */
export function getProjectState(
  db: DatabaseSync,
  root: string,
): { state: string; refreshed_at: number } | undefined {
  return db.prepare("SELECT state, refreshed_at FROM project_state WHERE root = ?").get(root) as
    | { state: string; refreshed_at: number }
    | undefined;
}

/** The indexed root that contains `path` most closely, if any. */
export function projectRootFor(db: DatabaseSync, path: string): string | undefined {
  const rows = db.prepare("SELECT root FROM project_state").all() as Array<{ root: string }>;
  let best: string | undefined;
  for (const { root } of rows) {
    if (
      (path === root || path.startsWith(root + "/")) &&
      (best === undefined || root.length > best.length)
    ) {
      best = root;
    }
  }
  return best;
}

/** Saves a project's indexed state. */
export function saveProjectState(
  db: DatabaseSync,
  root: string,
  state: string,
  refreshedAt: number,
): void {
  return writing(db, () => {
    db.prepare(
      `INSERT INTO project_state (root, state, refreshed_at) VALUES (?, ?, ?)
       ON CONFLICT (root) DO UPDATE SET state = excluded.state, refreshed_at = excluded.refreshed_at`,
    ).run(root, state, refreshedAt);
  });
}

/** A session's anomaly history, for suppression: one row per fingerprint. */
export function anomalyHistory(
  db: DatabaseSync,
  sessionId: string,
): Array<
  {
    kind: string;
    fingerprint: string;
    first_emitted_at: number;
    last_emitted_at: number;
    resolved_at: number | null;
  }
> {
  return db.prepare(
    "SELECT kind, fingerprint, first_emitted_at, last_emitted_at, resolved_at FROM anomalies WHERE session_id = ?",
  ).all(sessionId) as unknown as Array<
    {
      kind: string;
      fingerprint: string;
      first_emitted_at: number;
      last_emitted_at: number;
      resolved_at: number | null;
    }
  >;
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

/** Records one emission (every emission is logged) and marks the anomaly active. */
export function recordEmission(db: DatabaseSync, emission: AnomalyEmission, now: number): void {
  return writing(db, () => {
    db.prepare(`
      INSERT INTO anomalies (session_id, project, kind, severity, channel, fingerprint, evidence, suggestion,
        related_files, first_emitted_at, last_emitted_at, emit_count, resolved_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, NULL)
      ON CONFLICT (session_id, fingerprint) DO UPDATE SET
        severity = excluded.severity, channel = excluded.channel, evidence = excluded.evidence,
        suggestion = excluded.suggestion, related_files = excluded.related_files,
        first_emitted_at = excluded.first_emitted_at, last_emitted_at = excluded.last_emitted_at,
        emit_count = anomalies.emit_count + 1, resolved_at = NULL
    `).run(
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
    db.prepare(`
      INSERT INTO anomaly_emissions (anomaly_id, ts, channel)
      SELECT id, ?, ? FROM anomalies WHERE session_id = ? AND fingerprint = ?
    `).run(now, emission.channel, emission.session_id, emission.fingerprint);
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
    db.prepare(
      "UPDATE anomalies SET resolved_at = ? WHERE session_id = ? AND fingerprint = ? AND resolved_at IS NULL",
    ).run(now, sessionId, fingerprint);
  });
}

/** The snapshot last injected into a session, if any. */
export function getInjection(
  db: DatabaseSync,
  sessionId: string,
): { snapshot: string; ts: number } | undefined {
  return db.prepare("SELECT snapshot, ts FROM injections WHERE session_id = ?").get(sessionId) as
    | { snapshot: string; ts: number }
    | undefined;
}

/** Saves what was just injected into a session. */
export function saveInjection(
  db: DatabaseSync,
  sessionId: string,
  snapshot: string,
  now: number,
): void {
  return writing(db, () => {
    db.prepare(
      `INSERT INTO injections (session_id, snapshot, ts) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET snapshot = excluded.snapshot, ts = excluded.ts`,
    ).run(sessionId, snapshot, now);
  });
}

/** A session's hook events since a time (agent, time and stored payload), oldest first. */
export function eventPayloadsSince(
  db: DatabaseSync,
  sessionId: string,
  since: number,
  limit: number,
): Array<
  {
    agent: string;
    ts: number;
    raw: string;
    event_type: string;
    success: number | null;
    error: string | null;
  }
> {
  return (db.prepare(
    `SELECT agent, ts, raw, event_type, success, error FROM events WHERE session_id = ? AND ts >= ? ORDER BY ts DESC, id DESC LIMIT ?`,
  ).all(sessionId, since, limit) as unknown as Array<
    {
      agent: string;
      ts: number;
      raw: string;
      event_type: string;
      success: number | null;
      error: string | null;
    }
  >)
    .reverse();
}

/** A session's usage records since a time, oldest first. */
export function usageSince(
  db: DatabaseSync,
  sessionId: string,
  since: number,
): Array<{
  usage_key: string;
  ts: number;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  context_window: number | null;
}> {
  return db.prepare(
    `SELECT usage_key, ts, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
       reasoning_tokens, context_window FROM usage WHERE session_id = ? AND ts >= ? ORDER BY ts LIMIT 2000`,
  ).all(sessionId, since) as never;
}

/** Build runs started since a time, oldest first. */
export function buildRunsSince(db: DatabaseSync, since: number): BuildRunRow[] {
  return (db.prepare(
    `SELECT id, tag, command, cwd, project, started_at, duration_ms, exit_code, errors, output_tail
     FROM build_runs WHERE started_at >= ? ORDER BY started_at DESC LIMIT 200`,
  ).all(since) as unknown as BuildRunRow[]).reverse();
}

/** Project roots with recent hook activity, most recent first. */
export function activeProjects(db: DatabaseSync, since: number, limit: number): string[] {
  return (db.prepare(
    `SELECT project FROM sessions WHERE has_hooks = 1 AND project IS NOT NULL AND last_activity_at >= ?
     GROUP BY project ORDER BY max(last_activity_at) DESC LIMIT ?`,
  ).all(since, limit) as Array<{ project: string }>).map((row) => row.project);
}
