/**
 * The daemon's hook pipeline: intake → perception → event bus. A delivery
 * is checked and normalized once; the event and what perception records
 * about it are stored in one write (a hook waits for the writer lock once,
 * however busy the store is); then the transcript it names is pointed out
 * to the tailer and the live events go out.
 *
 * The same pipeline runs on a server backend (PostgreSQL): there each
 * statement commits on its own connection of the pool, so the event is
 * stored first and perception's writes follow; the steps chain with
 * `andThen`, which keeps the SQLite path synchronous inside its write.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import {
  awaitsToolOutcome,
  type HookDelivery,
  type IntakeResult,
  type PreparedDelivery,
  prepareHookDelivery,
  storePreparedEventIn,
} from "../agent/hooks/hook_intake.ts";
import type { HookEvent } from "../model/agent_records.ts";
import { andThen, type Eventually } from "../core/eventually.ts";
import { type DatabaseSync, savepoint, writing } from "../store/database.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import { noticeDamageIn } from "../store/store_health.ts";
import type { EventBus } from "./event_bus.ts";

/**
 * How long a live tool result without its outcome waits for the tailer to read the transcript
 * its hook names, ms: well inside the hook's own 300 ms, as reading the few new lines takes a
 * few ms.
 */
const OUTCOME_WAIT_MS = 120;

/** What taking one delivery answers: the intake's result and what to tell the agent. */
export type HookTaken = IntakeResult & { output?: unknown };

/** What the pipeline asks of perception for each stored event. */
export interface HookPerception {
  /** Runs the rules on a stored event; the answer for the agent and the anomalies emitted. */
  onHookEvent(event: HookEvent): Eventually<{ output?: unknown; emitted: number }>;
}

/** What the pipeline asks of the transcript tailer. */
export interface TranscriptAccess {
  /** A hook named this transcript: read it soon. */
  notice(path: string): void;
  /** Read this transcript now, waiting at most `waitMs`. */
  readNow(path: string, waitMs: number): Promise<void>;
}

/** The hook pipeline of one daemon. */
export interface HookPipeline {
  /**
   * Takes a live delivery (over HTTP). A tool result whose outcome only its transcript tells
   * (Codex) first lets the tailer read that transcript, for a bounded time.
   */
  take(delivery: HookDelivery): Promise<HookTaken>;
  /**
   * Takes a spooled delivery at once (on SQLite, synchronously): the tailer completes an
   * outcome left unknown later.
   */
  takeNow(delivery: HookDelivery): Eventually<HookTaken>;
  /** Hooks stored since the pipeline started. */
  readonly stored: number;
  /** Connects the tailer (it starts after the spool is first replayed). */
  attachTranscripts(access: TranscriptAccess): void;
}

/** What {@linkcode createHookPipeline} wires together. */
export interface HookPipelineOptions {
  /** The store (either backend). */
  store: Store<StoreMode>;
  /**
   * SQLite: the connection under `store`, whose write holds the event and perception's writes
   * together (perception's in a savepoint of their own). Absent on a server backend.
   */
  db?: DatabaseSync;
  /** The perception of stored events. */
  perception: HookPerception;
  /** Where live events go. */
  events: EventBus;
  /** Where failures are logged. */
  log: Logger;
  /** The data home, where damage met on a write is recorded. */
  home: string;
  /**
   * Hands each delivery this store took (or had already) on to a team server
   * (`serve --upstream`); called after the write, and must return at once.
   */
  forward?: (delivery: HookDelivery) => void;
}

/**
 * Creates the pipeline; until {@linkcode HookPipeline.attachTranscripts}
 * is called, transcripts are neither noticed nor read.
 *
 * @example
 * ```ts ignore
 * const pipeline = createHookPipeline({ db, perception, events, log, home });
 * const taken = await pipeline.take(delivery);
 * ```
 */
export function createHookPipeline(options: HookPipelineOptions): HookPipeline {
  const { store, db, perception, events, log, home, forward } = options;
  let transcripts: TranscriptAccess | undefined;
  let stored = 0;

  // Perception must never cost the agent its hook: its failure is logged, the event stays.
  const perceptionFailed = (error: unknown): undefined => {
    log.error("perception failed on a hook event", { error: String(error) });
    return undefined;
  };
  const perceive = (
    event: HookEvent,
  ): Eventually<{ output?: unknown; emitted: number } | undefined> => {
    try {
      // On SQLite a failure undoes only perception's own writes: the event is stored either way.
      const answer = db !== undefined
        ? savepoint(db, () => perception.onHookEvent(event))
        : perception.onHookEvent(event);
      return answer instanceof Promise ? answer.catch(perceptionFailed) : answer;
    } catch (error) {
      return perceptionFailed(error);
    }
  };

  const storeWithPerception = (prepared: PreparedDelivery & { ok: true }): Eventually<{
    result: HookTaken;
    emitted: number;
  }> => {
    const work = () =>
      andThen(
        storePreparedEventIn(store.agent, prepared.delivery_id, prepared.event),
        (intake) => {
          const taken: HookTaken = intake;
          if (!taken.stored) return { result: taken, emitted: 0 };
          return andThen(perceive(taken.event), (answer) => {
            if (answer?.output !== undefined) taken.output = answer.output;
            return { result: taken, emitted: answer?.emitted ?? 0 };
          });
        },
      );
    const damaged = (error: unknown): never => {
      noticeDamageIn(home, error);
      throw error;
    };
    try {
      const done = db !== undefined ? writing(db, work) : work();
      return done instanceof Promise ? done.catch(damaged) : done;
    } catch (error) {
      return damaged(error);
    }
  };

  const publish = (event: HookEvent, emitted: number): void => {
    if (event.transcript_path !== undefined) transcripts?.notice(event.transcript_path);
    if (emitted > 0) events.publish("anomaly", { session_id: event.session_id, emitted });
    stored++;
    events.publish("hook", {
      agent: event.agent,
      session_id: event.session_id,
      event_type: event.event_type,
      ts: event.ts,
      ...(event.project ?? event.cwd ? { project: event.project ?? event.cwd } : {}),
      ...(event.tool_name !== undefined ? { tool_name: event.tool_name } : {}),
      ...(event.success !== undefined ? { success: event.success } : {}),
      ...(event.person !== undefined ? { person: event.person } : {}),
      ...(event.host !== undefined ? { host: event.host } : {}),
    });
  };

  const takePrepared = (prepared: PreparedDelivery): Eventually<HookTaken> => {
    if (!prepared.ok) return { stored: false, duplicate: false, reason: prepared.reason };
    return andThen(storeWithPerception(prepared), ({ result, emitted }) => {
      if (result.stored) publish(result.event, emitted);
      return result;
    });
  };

  // Stored here first, then handed on: a refused delivery is not the team's either.
  const forwarded = (delivery: HookDelivery, taken: HookTaken): HookTaken => {
    // A hook a person's token sent is theirs to send on, not this server's owner's.
    if (
      forward !== undefined && delivery.person === undefined && (taken.stored || taken.duplicate)
    ) {
      try {
        forward(delivery);
      } catch (error) {
        log.error("forwarding a hook failed", { error: String(error) });
      }
    }
    return taken;
  };

  return {
    async take(delivery) {
      const prepared = prepareHookDelivery(delivery);
      // Codex writes the exit code to its transcript just before the hook fires.
      if (
        transcripts !== undefined && prepared.ok && awaitsToolOutcome(prepared.event) &&
        await store.agent.findToolOutcome(
            prepared.event.session_id,
            prepared.event.tool_use_id!,
          ) ===
          undefined
      ) {
        await transcripts.readNow(prepared.event.transcript_path!, OUTCOME_WAIT_MS);
      }
      return forwarded(delivery, await takePrepared(prepared));
    },
    takeNow: (delivery) =>
      andThen(takePrepared(prepareHookDelivery(delivery)), (taken) => forwarded(delivery, taken)),
    get stored() {
      return stored;
    },
    attachTranscripts(access) {
      transcripts = access;
    },
  };
}
