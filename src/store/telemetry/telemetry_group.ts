/**
 * Group commit of OTLP exports: several exports (each its prepared parts)
 * stored in one transaction where one each would be, since a transaction's
 * fixed costs (its B-tree pages written to the WAL, the commit) are then
 * shared. The rows are those that storing the exports one after the other
 * writes, in the same order.
 *
 * Each export stays whole on its own: its parts go in inside a savepoint, so
 * one that fails is undone alone and fails alone while the others of its
 * group go on. Should the transaction itself fail (SQLite rolled it back, the
 * commit failed), the exports it held are stored again one by one, each in
 * transactions of its own, so each gets its own outcome. As for a single
 * export, other writers (a hook) are let in between two parts when they
 * wait: the group then goes on in a new transaction.
 *
 * @module
 */
import {
  type DatabaseSync,
  letWaitingWritersIn,
  transaction,
  writersWaiting,
} from "../database.ts";
import {
  noCounts,
  type PreparedTelemetryPart,
  storePart,
  storeTelemetryPartsTakingTurns,
  type TelemetryPricing,
  type TelemetryWriteCounts,
  transcriptCheck,
} from "./telemetry_batch.ts";

/** What became of one export of a group: what it stored, or why it failed. */
export type TelemetryGroupOutcome =
  | { counts: TelemetryWriteCounts }
  | { error: unknown };

/** Where storing one export of a group stands. */
interface Progress {
  parts: readonly PreparedTelemetryPart[];
  /** Its next part to store. */
  next: number;
  counts: TelemetryWriteCounts;
  /** Set once it failed. */
  error?: { cause: unknown };
}

/**
 * Stores `exports` (each the prepared parts of one export) in as few transactions as other
 * writers allow, in order; each export's outcome, in the same order, once every transaction
 * holding a part of it has committed.
 */
export async function storeTelemetryGroupTakingTurns(
  db: DatabaseSync,
  exports: ReadonlyArray<readonly PreparedTelemetryPart[]>,
  priceOf: TelemetryPricing,
): Promise<TelemetryGroupOutcome[]> {
  const progress: Progress[] = exports.map((parts) => ({ parts, next: 0, counts: noCounts() }));
  let current = 0;
  const skipDone = () => {
    while (current < progress.length && progress[current].next >= progress[current].parts.length) {
      current++;
    }
  };
  skipDone();
  while (current < progress.length) {
    const first = current;
    // Where each export of this transaction stood, should the transaction fail as a whole.
    const before = progress.map(({ next, counts }) => ({ next, counts: copyCounts(counts) }));
    try {
      transaction(db, () => {
        const hasTranscript = transcriptCheck(db);
        let stored = false;
        while (current < progress.length && !(stored && writersWaiting(db))) {
          const one = progress[current];
          const from = { next: one.next, counts: copyCounts(one.counts) };
          try {
            savepointed(db, () => {
              do {
                storePart(db, one.parts[one.next++], priceOf, hasTranscript, one.counts);
                stored = true;
              } while (one.next < one.parts.length && !writersWaiting(db));
            });
          } catch (cause) {
            // SQLite ended the whole transaction (or its savepoint could not be undone): it
            // fails, and its exports go in one by one.
            if (!db.isTransaction || cause instanceof SavepointLost) throw cause;
            one.error = { cause };
            one.next = one.parts.length;
            one.counts = from.counts;
          }
          skipDone();
        }
      });
    } catch {
      for (let i = first; i < progress.length; i++) {
        progress[i].next = before[i].next;
        progress[i].counts = before[i].counts;
        progress[i].error = undefined;
      }
      await storeOneByOne(db, progress.slice(first), priceOf);
      break;
    }
    if (current < progress.length) await letWaitingWritersIn(db);
  }
  return progress.map((one) =>
    one.error !== undefined ? { error: one.error.cause } : { counts: one.counts }
  );
}

/** Each export (from the part it stood at) stored alone, in transactions of its own. */
async function storeOneByOne(
  db: DatabaseSync,
  exports: Progress[],
  priceOf: TelemetryPricing,
): Promise<void> {
  for (const one of exports) {
    if (one.next >= one.parts.length) continue;
    try {
      const counts = await storeTelemetryPartsTakingTurns(db, one.parts.slice(one.next), priceOf);
      one.counts = addCounts(one.counts, counts);
    } catch (cause) {
      one.error = { cause };
    }
    one.next = one.parts.length;
  }
}

/**
 * Runs `work` in a savepoint of the open transaction: undone alone when it throws (the error
 * is rethrown), unless SQLite ended the transaction itself.
 */
function savepointed(db: DatabaseSync, work: () => void): void {
  db.exec("SAVEPOINT vantage_export");
  try {
    work();
  } catch (error) {
    if (db.isTransaction) {
      try {
        db.exec("ROLLBACK TO vantage_export");
        db.exec("RELEASE vantage_export");
      } catch (undo) {
        throw new SavepointLost(undo);
      }
    }
    throw error;
  }
  db.exec("RELEASE vantage_export");
}

/** An export's savepoint that could not be undone: the transaction holding it must fail. */
class SavepointLost extends Error {
  constructor(cause: unknown) {
    super("an export's savepoint could not be undone", { cause });
  }
}

function copyCounts(counts: TelemetryWriteCounts): TelemetryWriteCounts {
  return { ...counts, sessions: [...counts.sessions] };
}

function addCounts(a: TelemetryWriteCounts, b: TelemetryWriteCounts): TelemetryWriteCounts {
  return {
    spans: a.spans + b.spans,
    logs: a.logs + b.logs,
    metric_points: a.metric_points + b.metric_points,
    model_calls: a.model_calls + b.model_calls,
    tool_calls: a.tool_calls + b.tool_calls,
    api_errors: a.api_errors + b.api_errors,
    sessions: [...a.sessions, ...b.sessions],
  };
}
