/**
 * The daemon's transcript tailers: every agent's session files read into
 * the store as they grow. What a file's new lines bring is passed on: new
 * messages to the message index and the event bus, tool outcomes a hook
 * could not tell (Codex) to perception, whose rules then run again.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import type { ModelPrice } from "../agent/usage/price_table.ts";
import { TranscriptTailer } from "../agent/transcripts/transcript_tailer.ts";
import type { AgentName } from "../model/agent_records.ts";
import { type DatabaseSync, writing } from "../store/database.ts";
import { noticeDamageIn } from "../store/store_health.ts";
import type { CompletedToolEvent } from "../store/agent/tool_outcomes.ts";
import type { EventBus } from "./event_bus.ts";
import type { TranscriptAccess } from "./hook_pipeline.ts";

/** What the tailers ask of perception when a transcript completes a tool result. */
export interface OutcomePerception {
  /** Reruns a session's rules on a completed outcome; the anomalies emitted. */
  onToolOutcome(completed: CompletedToolEvent): number;
}

/** The tailers. */
export interface TranscriptTailing extends TranscriptAccess {
  /**
   * Starts the scan and the watching; resolves when the start-up scan is done (at once when
   * not tailing). Files hooks point out are read before that already.
   */
  start(): Promise<void>;
  /** Stops watching; an ingest in progress finishes its current batch. */
  stop(): Promise<void>;
}

/** What {@linkcode startTranscriptTailing} needs. */
export interface TranscriptTailingOptions {
  /** The store. */
  db: DatabaseSync;
  /** The user's home, whose agent folders are tailed. */
  userHome: string;
  /** The data home, where damage is recorded. */
  home: string;
  /** Scan and watch the transcripts (false: only read files hooks point out). */
  tail: boolean;
  /** Only these agents' transcripts. */
  agents?: readonly AgentName[];
  /** Price overrides for usage. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Perception, for outcomes a transcript completes. */
  perception: OutcomePerception;
  /** Where live events go. */
  events: EventBus;
  /** Called when messages were stored (the message index catches up). */
  onMessages(): void;
  /** Where failures are logged. */
  log: Logger;
}

/**
 * Creates the tailers; they scan and watch once started.
 *
 * @example
 * ```ts ignore
 * const tailing = createTranscriptTailing({ db, userHome, home, tail: true, perception, events,
 *   onMessages: () => indexing.kick(), log });
 * await tailing.start();
 * ```
 */
export function createTranscriptTailing(options: TranscriptTailingOptions): TranscriptTailing {
  const { db, events, perception, log } = options;
  const tailer = new TranscriptTailer(db, {
    home: options.userHome,
    prices: options.prices,
    agents: options.agents,
    // Small batches keep each transaction short, so hooks are answered promptly during a backfill.
    batchBytes: 1024 * 1024,
    onIngest: (file, counts) => {
      options.onMessages();
      // Tool results whose outcome the transcript just told: their sessions' rules run again.
      for (const completed of counts.completed) {
        try {
          const emitted = writing(db, () => perception.onToolOutcome(completed));
          if (emitted > 0) {
            events.publish("anomaly", { session_id: completed.session_id, emitted });
          }
        } catch (error) {
          log.error("perception failed on a tool outcome", { error: String(error) });
        }
      }
      if (counts.messages > 0 || counts.usage > 0) {
        events.publish("messages", {
          file,
          sessions: [...counts.sessions].slice(0, 20),
          messages: counts.messages,
          usage: counts.usage,
          tool_calls: counts.tool_calls,
        });
      }
    },
    onError: (file, error) => {
      log.warn("transcript ingest failed", { file, error: String(error) });
      noticeDamageIn(options.home, error);
    },
  });
  return {
    start: () =>
      !options.tail ? Promise.resolve() : tailer.start().then(
        (counts) => {
          if (counts.lines > 0) {
            log.info("transcripts ingested", {
              files: counts.sessions.size,
              messages: counts.messages,
              malformed: counts.malformed,
            });
          }
        },
        (error) => log.error("transcript scan failed", { error: String(error) }),
      ),
    notice: (path) => tailer.notice(path),
    readNow: options.tail
      ? (path, waitMs) => tailer.readNow(path, waitMs)
      : () => Promise.resolve(),
    stop: () => tailer.stop(),
  };
}
