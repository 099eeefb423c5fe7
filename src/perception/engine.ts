/**
 * Perception inside `serve`: every stored hook event updates the session's
 * recent activity, runs the anomaly rules, routes findings through
 * suppression (every emission recorded), and — for the hook events that can
 * carry context — answers with a `<vantage-context>` block holding only what
 * changed since the last injection, within a time budget or not at all.
 * Telemetry a session's agent exports runs the telemetry rules instead
 * ({@linkcode PerceptionEngine.onTelemetry}); their findings reach the agent
 * with its next context block.
 *
 * @module
 */
import { andThen, eachInTurn, type Eventually } from "../core/eventually.ts";
import type { Logger } from "../core/log.ts";
import { storedHookEvent } from "../agent/hooks/stored_hook_event.ts";
import type { AgentName, HookEvent, UsageRecord } from "../model/agent_records.ts";
import type { CompletedToolEvent } from "../store/agent/tool_outcomes.ts";
import type { DatabaseSync } from "../store/database.ts";
import type { PerceptionBundle, PerceptionQuery } from "../store/perception/perception_bundle.ts";
import type { AnomalyHistoryRow } from "../store/perception/anomalies.ts";
import type { BuildRunRow } from "../store/perception/build_runs.ts";
import type { FileChangeRow } from "../store/perception/file_changes.ts";
import type { PerceptionStore } from "../store/perception/perception_store.ts";
import type { Answer, StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import { ANOMALY_RULES, detectAnomalies } from "./anomaly_rules.ts";
import { composeSnapshot, CONTEXT_FILE_CHANGES, CONTEXT_WINDOW_MS } from "./context_snapshot.ts";
import {
  type AnomalyKind,
  DEFAULT_ANOMALY_CONFIG,
  type ObservedBuildRun,
  type ObservedFileChange,
  type SessionActivity,
  TELEMETRY_KINDS,
} from "./anomaly_types.ts";
import type { BuildError } from "./build_errors.ts";
import { type ContextSnapshot, renderContext } from "./context_renderer.ts";
import { ProjectSensors } from "./sensors.ts";
import { applySuppression, type EmissionEntry } from "./suppression.ts";
import { readTelemetryActivity } from "./telemetry_activity.ts";

/** Hook events whose answer can carry context into the agent's next model call. */
const CONTEXT_EVENTS = new Set([
  "SessionStart",
  "UserPromptSubmit",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "PreCompact",
]);

/** How far back the rules look. */
const ACTIVITY_WINDOW_MS = 2 * 60 * 60_000;
/**
 * The rules a hook event runs (telemetry's run when telemetry arrives). Each run settles only
 * its own family's anomalies: a family that did not run has not seen them clear.
 */
const HOOK_KINDS = (Object.keys(ANOMALY_RULES) as AnomalyKind[]).filter((kind) =>
  !TELEMETRY_KINDS.includes(kind)
);
/** Most events kept per session. */
const EVENTS_KEPT = 400;
/** Most file changes the rules look at. */
const RULE_FILE_CHANGES = 500;
/** What a context answer shows at most: recent files, git moves. */
const CONTEXT_RECENT_FILES = 8;
const CONTEXT_GIT_MOVES = 10;

/** Options for {@link PerceptionEngine}. */
export interface PerceptionOptions<M extends StoreMode = "sync"> {
  /** The store the rules read and record through (either backend). */
  store: Store<M>;
  /**
   * The SQLite connection the file, git and project sensors write through; without it the
   * sensors do not run (a team server on PostgreSQL watches no files: its laptops do).
   */
  db?: DatabaseSync;
  /** Where to log. */
  log: Logger;
  /** Answer hooks with context (default true; `VANTAGE_DISABLE_INJECTION=1` turns it off). */
  inject?: boolean;
  /** Time budget for the context answer, ms (default 100). */
  budgetMs?: number;
  /** Run the file, git and project sensors (default true). */
  sensors?: boolean;
  /** Folders never watched. */
  refuseWatching?: readonly string[];
  /** The clock. */
  now?: () => number;
}

/** The agent-facing answer to a hook. */
export interface HookAnswer {
  /** The JSON the hook prints for the agent, when there is something to say. */
  output?: unknown;
  /** Anomalies emitted by this event. */
  emitted: number;
}

interface SessionCache {
  events: HookEvent[];
  project?: string;
}

/**
 * The perception engine of one server. On SQLite (`M` = "sync") every method answers at once,
 * so a hook's rules run inside the write that stores the hook; on a server backend they answer
 * with promises. The steps are one implementation for both (see core/eventually.ts).
 */
export class PerceptionEngine<M extends StoreMode = "sync"> {
  #options: PerceptionOptions<M>;
  #store: Store<StoreMode>;
  #sessions = new Map<string, SessionCache>();
  #sensors: ProjectSensors | undefined;

  /** Creates the engine (sensors start as projects become active). */
  constructor(options: PerceptionOptions<M>) {
    this.#options = options;
    this.#store = options.store;
    if (options.sensors !== false && options.db !== undefined) {
      this.#sensors = new ProjectSensors({
        db: options.db,
        log: options.log,
        recentEvents: (project) => this.#recentEventsIn(project),
        refuse: options.refuseWatching,
      });
    }
  }

  /** The sensors (for `project refresh` and tests). */
  get sensors(): ProjectSensors | undefined {
    return this.#sensors;
  }

  /**
   * Takes one stored hook event; returns what to tell the agent. Everything it reads about the
   * session comes from one store call; only the active anomalies, which the rules write, are
   * read after them.
   */
  onHookEvent(event: HookEvent): Answer<HookAnswer, M> {
    const started = performance.now();
    const now = this.#now();
    const cached = this.#sessions.get(event.session_id);
    const injecting = this.#options.inject !== false && CONTEXT_EVENTS.has(event.event_type);
    const force = event.event_type === "SessionStart" || event.event_type === "PreCompact";
    const read = this.#store.perception.readPerceptionBundle({
      ...ruleQuery(event.session_id, now, event.project ?? event.cwd ?? cached?.project),
      // The event being handled is already stored: it is the cache's newest once rebuilt.
      ...(cached === undefined ? { events: EVENTS_KEPT } : {}),
      ...(injecting ? { context: contextQuery("session", !force) } : {}),
    });
    const answered = andThen(read, (bundle) => {
      const cache = cached ?? this.#rebuild(event.session_id, bundle, true);
      cache.events.push(event);
      if (cache.events.length > EVENTS_KEPT) {
        cache.events.splice(0, cache.events.length - EVENTS_KEPT);
      }
      const project = bundle.project;
      if (project !== undefined) cache.project = project;
      this.#sensors?.touch(project);
      const ruled = this.#runRules(event.session_id, cache, project, now, bundle);
      return andThen(ruled, (emitted): Eventually<HookAnswer> => {
        const answer: HookAnswer = { emitted };
        const context = bundle.context;
        if (!injecting || context === undefined) return answer;
        // A Stop answer makes the agent continue: only worth it when something new must be said.
        if (event.event_type === "Stop" && emitted === 0) return answer;
        const active = this.#store.perception.activeAnomalies(event.session_id, SNAPSHOT_ANOMALIES);
        return andThen(active, (anomalies) => {
          const snapshot = composeSnapshot(
            event.session_id,
            bundle,
            context,
            anomalies,
            now,
            cache.events,
          );
          const previousText = force ? undefined : context.injection?.snapshot;
          const previous = previousText === undefined
            ? undefined
            : JSON.parse(previousText) as ContextSnapshot;
          const rendered = renderContext(snapshot, previous, {
            force,
            header: event.event_type === "PreCompact"
              ? "Keep through the compaction — current state:"
              : undefined,
          });
          if (rendered.text === "") return answer;
          if (performance.now() - started > (this.#options.budgetMs ?? 100)) {
            // Late context is worse than none: the agent has moved on.
            this.#options.log.warn("context answer skipped: over budget", {
              ms: Math.round(performance.now() - started),
            });
            return answer;
          }
          const saved = this.#store.perception.saveInjection(
            event.session_id,
            JSON.stringify(snapshot),
            now,
          );
          return andThen(saved, () => {
            answer.output = hookOutput(event, rendered.text);
            return answer;
          });
        });
      });
    });
    return answered as Answer<HookAnswer, M>;
  }

  /**
   * A transcript told how a tool call ended after its hook event was stored with the outcome
   * unknown (Codex): the event takes it and the session's rules run again, so a failure counts
   * as one. Returns the anomalies emitted; the agent hears of them with its next hook answer.
   */
  onToolOutcome(completed: CompletedToolEvent): Answer<number, M> {
    const now = this.#now();
    const cached = this.#sessions.get(completed.session_id);
    const read = this.#store.perception.readPerceptionBundle({
      ...ruleQuery(completed.session_id, now, cached?.project),
      ...(cached === undefined ? { events: EVENTS_KEPT } : {}),
    });
    return andThen(read, (bundle) => this.#outcomeRules(completed, cached, bundle, now)) as Answer<
      number,
      M
    >;
  }

  #outcomeRules(
    completed: CompletedToolEvent,
    cached: SessionCache | undefined,
    bundle: PerceptionBundle,
    now: number,
  ): Eventually<number> {
    // Not cached: rebuilt from the store, whose events already hold the outcome.
    const cache = cached ?? this.#rebuild(completed.session_id, bundle, false);
    if (cached !== undefined) {
      for (const event of cache.events) {
        if (event.tool_use_id !== completed.tool_use_id || event.success !== undefined) continue;
        if (event.event_type !== "PostToolUse" && event.event_type !== "PostToolUseFailure") {
          continue;
        }
        event.success = completed.success;
        if (completed.error !== undefined) event.error = completed.error;
      }
    }
    return this.#runRules(completed.session_id, cache, cache.project, now, bundle);
  }

  /**
   * Telemetry arrived for a session: the telemetry rules (API error bursts, costly calls,
   * slow tools) run over what it now holds. Returns the anomalies emitted; the agent hears of
   * them with its next hook answer that carries context.
   */
  onTelemetry(sessionId: string): Answer<number, M> {
    const store = this.#store;
    const now = this.#now();
    const settled = andThen(store.agent.getSession(sessionId), (session) =>
      andThen(
        readTelemetryActivity(store.telemetry, sessionId, now, DEFAULT_ANOMALY_CONFIG),
        (telemetry) =>
          andThen(store.perception.anomalyHistory(sessionId), (history) =>
            this.#settle(
              sessionId,
              session?.project ?? session?.cwd ?? undefined,
              now,
              TELEMETRY_KINDS,
              { session_id: sessionId, now, events: [], telemetry },
              history,
            )),
      ));
    return settled as Answer<number, M>;
  }

  /** What Vantage would tell a session now (the whole picture, not a diff). */
  snapshot(sessionId: string, projectHint?: string): Answer<ContextSnapshot, M> {
    const events = this.#sessions.get(sessionId)?.events ?? [];
    return buildSnapshot(
      this.#store.perception,
      sessionId,
      projectHint,
      this.#now(),
      events,
    ) as Answer<ContextSnapshot, M>;
  }

  /** Stops the sensors. */
  close(): void {
    this.#sensors?.close();
  }

  #runRules(
    sessionId: string,
    cache: SessionCache,
    project: string | undefined,
    now: number,
    bundle: PerceptionBundle,
  ): Eventually<number> {
    const since = now - ACTIVITY_WINDOW_MS;
    const session = bundle.session;
    const activity: SessionActivity = {
      session_id: sessionId,
      now,
      // 0 is a start that is not known: the rules then take the first event.
      started_at: session !== undefined && session.started_at > 0 ? session.started_at : undefined,
      model: session?.model ?? undefined,
      events: cache.events,
      file_changes: project === undefined
        ? []
        : observedChanges(bundle.file_changes.filter((c) => c.ts >= since)),
      build_runs: bundle.build_runs.map(observedBuild),
      usage: bundle.usage.map((u) => ({
        agent: (session?.agent ?? "claude_code") as AgentName,
        session_id: sessionId,
        ts: u.ts,
        model: u.model ?? undefined,
        usage_key: u.usage_key,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        cache_read_tokens: u.cache_read_tokens,
        cache_write_tokens: u.cache_write_tokens,
        reasoning_tokens: u.reasoning_tokens,
        ...(u.context_window !== null ? { context_window: u.context_window } : {}),
      } satisfies UsageRecord)),
    };
    return this.#settle(sessionId, project, now, HOOK_KINDS, activity, bundle.anomaly_history);
  }

  /**
   * Runs `kinds` over `activity`, passes the findings through suppression against the
   * session's `history` of those kinds, and records what was emitted or resolved.
   */
  #settle(
    sessionId: string,
    project: string | undefined,
    now: number,
    kinds: readonly AnomalyKind[],
    activity: SessionActivity,
    history: readonly AnomalyHistoryRow[],
  ): Eventually<number> {
    const findings = detectAnomalies(activity, { kinds });
    const log: EmissionEntry[] = [];
    for (const row of history) {
      if (!kinds.includes(row.kind as AnomalyKind)) continue;
      log.push({
        fingerprint: row.fingerprint,
        event: "emitted",
        ts: row.last_emitted_at,
        first_emitted_at: row.first_emitted_at,
      });
      if (row.resolved_at !== null) {
        log.push({ fingerprint: row.fingerprint, event: "resolved", ts: row.resolved_at });
      }
    }
    const decision = applySuppression(findings, log, now);
    const byFingerprint = new Map(decision.emit.map((f) => [f.fingerprint, f]));
    // Nothing to record is the common case: no write, so no wait for the writer lock.
    if (decision.entries.length === 0) return decision.emit.length;
    const recorded = this.#store.transaction((store) =>
      eachInTurn(decision.entries, (entry) => {
        if (entry.event === "resolved") {
          return store.perception.resolveAnomaly(sessionId, entry.fingerprint, now);
        }
        const finding = byFingerprint.get(entry.fingerprint);
        if (finding === undefined) return undefined;
        return store.perception.recordEmission({
          session_id: sessionId,
          project: project ?? null,
          kind: finding.kind,
          severity: finding.severity,
          channel: finding.channel,
          fingerprint: finding.fingerprint,
          evidence: finding.evidence,
          suggestion: finding.suggestion,
          related_files: finding.related_files,
          first_emitted_at: finding.first_emitted_at,
        }, now);
      })
    );
    return andThen(recorded, () => decision.emit.length);
  }

  /**
   * A session's cache rebuilt from the events the store holds, as their intake normalized them
   * (first event since start-up, or one evicted). Without `dropNewest` every stored event stays
   * (a transcript's news); with it the newest is left for the caller, which pushes it itself.
   */
  #rebuild(sessionId: string, bundle: PerceptionBundle, dropNewest: boolean): SessionCache {
    const cache: SessionCache = { events: [] };
    for (const row of bundle.events ?? []) {
      const event = storedHookEvent(row);
      if (event === undefined) continue;
      cache.events.push(event);
      if (event.project ?? event.cwd) cache.project = event.project ?? event.cwd;
    }
    if (dropNewest) cache.events.pop();
    this.#sessions.set(sessionId, cache);
    if (this.#sessions.size > 200) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    return cache;
  }

  #recentEventsIn(project: string): HookEvent[] {
    const events: HookEvent[] = [];
    const since = this.#now() - 60_000;
    for (const cache of this.#sessions.values()) {
      if (cache.project !== project) continue;
      for (let i = cache.events.length - 1; i >= 0 && cache.events[i].ts >= since; i--) {
        events.push(cache.events[i]);
      }
    }
    return events;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}

/**
 * The hook answer carrying context, in the shape the agent reads: Claude's
 * `hookSpecificOutput.additionalContext` (Claude Code, Codex, Copilot's VS Code compatible
 * hooks), or a top-level `additionalContext` for Copilot CLI's own camelCase hooks, which
 * ignore the nested form.
 */
function hookOutput(event: HookEvent, text: string): unknown {
  const camelCase = event.agent === "copilot_cli" && event.raw.hook_event_name === undefined &&
    event.raw.hookEventName === undefined;
  if (camelCase) return { additionalContext: text };
  return { hookSpecificOutput: { hookEventName: event.event_type, additionalContext: text } };
}

function observedChanges(changes: readonly FileChangeRow[]): ObservedFileChange[] {
  return changes.toReversed().map((c) => ({
    path: c.path,
    kind: c.kind as ObservedFileChange["kind"],
    ts: c.ts,
    attribution: c.source === "agent" ? "agent" : "unknown",
    ...(c.session_id !== null ? { session_id: c.session_id } : {}),
  }));
}

function observedBuild(run: BuildRunRow): ObservedBuildRun {
  return {
    command_line: run.command,
    exit_code: run.exit_code,
    started_at: run.started_at,
    duration_ms: run.duration_ms,
    errors: JSON.parse(run.errors) as BuildError[],
    tag: run.tag,
    output_tail: run.output_tail,
    ...(run.cwd !== null ? { cwd: run.cwd } : {}),
  };
}

/** What the rules read: the activity window of a session in a project. */
function ruleQuery(sessionId: string, now: number, project: string | undefined): PerceptionQuery {
  return {
    session_id: sessionId,
    since: now - ACTIVITY_WINDOW_MS,
    ...(project !== undefined ? { project } : {}),
    fileChanges: RULE_FILE_CHANGES,
    rules: true,
  };
}

/** What a context answer reads about `project` (`session`: the session's own). */
function contextQuery(
  project: string | "session" | undefined,
  injection: boolean,
): PerceptionQuery["context"] {
  return {
    project,
    recentFiles: CONTEXT_RECENT_FILES,
    gitMoves: CONTEXT_GIT_MOVES,
    injection,
  };
}

/** How many active anomalies a snapshot shows, most severe first. */
const SNAPSHOT_ANOMALIES = 10;

/** A snapshot's read of a session without the rules: builds and changes of the last 30 min. */
function snapshotQuery(sessionId: string, now: number): PerceptionQuery {
  return {
    session_id: sessionId,
    since: now - CONTEXT_WINDOW_MS,
    fileChanges: CONTEXT_FILE_CHANGES,
    rules: false,
  };
}

/**
 * Builds the context snapshot of a session from the store, on either backend: `project` is
 * the project it describes, `events` the session's recent hook events (their tool calls are
 * counted).
 */
export async function buildSnapshot(
  store: PerceptionStore<StoreMode>,
  sessionId: string,
  project: string | undefined,
  now: number,
  events: readonly HookEvent[] = [],
): Promise<ContextSnapshot> {
  const bundle = await store.readPerceptionBundle({
    ...snapshotQuery(sessionId, now),
    ...(project !== undefined ? { project } : {}),
    context: contextQuery(project, false),
  });
  const anomalies = await store.activeAnomalies(sessionId, SNAPSHOT_ANOMALIES);
  return composeSnapshot(sessionId, bundle, bundle.context!, anomalies, now, events);
}
