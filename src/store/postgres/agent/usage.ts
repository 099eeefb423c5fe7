/**
 * Token usage and cost of model calls on PostgreSQL: stored once per usage
 * key, merged when a call is reported again with grown figures, priced on
 * the way in and again when prices change, the sessions' totals moved by
 * the difference only — SQLite's rules (../../agent/usage.ts, whose merge,
 * pricing, totals and row readers are used as they are), and its reads in
 * PostgreSQL's dialect.
 *
 * A batch's rows are locked while it merges into them (`FOR UPDATE`, beside
 * its sessions' locks), and a key another writer inserts meanwhile makes the
 * whole write run again, merging into it, so concurrent servers never count
 * a call twice.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import type { SessionDelta } from "../../agent/session_totals.ts";
import {
  CALL_USAGE,
  type CallUsageRow,
  KNOWN_USAGE,
  mergedValues,
  mergeUsageBatch,
  MODEL_CALLS,
  repriced,
  SESSION_USAGE,
  type SessionUsageRow,
  type TokenCost,
  USAGE_BUCKET,
  USAGE_TOTALS,
  type UsageBucketRow,
  type UsageRow,
} from "../../agent/usage.ts";
import type { PgQueryable } from "../connection.ts";
import { readRow, readRows } from "../reads.ts";
import { unnestInsert } from "../unnest.ts";
import { applyDeltas, lockSessions } from "./session_totals.ts";

const UPDATE_USAGE = `
      UPDATE usage SET model = $1, input_tokens = $2, output_tokens = $3, cache_read_tokens = $4,
        cache_write_tokens = $5, cache_write_1h_tokens = $6, reasoning_tokens = $7,
        web_search_requests = $8, service_tier = $9, speed = $10, inference_geo = $11,
        context_window = $12, reported_cost_usd = $13, calls = $14, cost_usd = $15, priced = $16
      WHERE usage_key = $17
    `;

/** Every stored row of a batch's keys, locked while the batch merges into them. */
const FIND_USAGES =
  `SELECT ${KNOWN_USAGE.columns} FROM usage WHERE usage_key = ANY($1::text[]) FOR UPDATE`;

/** A batch's new keys, inserted by one statement over column arrays. */
const INSERT_USAGES = unnestInsert(
  "usage",
  {
    session_id: "text",
    agent: "text",
    ts: "bigint",
    model: "text",
    input_tokens: "bigint",
    output_tokens: "bigint",
    cache_read_tokens: "bigint",
    cache_write_tokens: "bigint",
    cache_write_1h_tokens: "bigint",
    reasoning_tokens: "bigint",
    web_search_requests: "bigint",
    service_tier: "text",
    speed: "text",
    inference_geo: "text",
    context_window: "bigint",
    reported_cost_usd: "float8",
    calls: "bigint",
    cost_usd: "float8",
    priced: "integer",
    usage_key: "text",
  },
  "ON CONFLICT (usage_key) DO NOTHING RETURNING usage_key",
);

/**
 * Stores usage records (a new key inserted, a stored one merged and repriced) and moves their
 * sessions' totals by the difference; answers how many keys were new. As SQLite's: every
 * key's stored row is read (and locked) by one statement, the batch merges in memory, the new
 * keys are inserted by one statement and each changed row updated once.
 */
export function insertUsage(
  q: PgQueryable,
  records: readonly CountedUsage[],
  priceOf: (record: CountedUsage) => CallPrice,
): Promise<number> {
  if (records.length === 0) return Promise.resolve(0);
  return q.write(async (w) => {
    await lockSessions(w, records.map((u) => u.session_id));
    const known = new Map<string, UsageRow>();
    const keys = [...new Set(records.map((u) => u.usage_key))];
    for (const row of await readRows(w, KNOWN_USAGE, FIND_USAGES, [keys])) {
      known.set(row.usage_key, row);
    }
    const { fresh, changed, deltas } = mergeUsageBatch(records, known, priceOf);
    const inserted = await INSERT_USAGES.run(
      w,
      [...fresh].map((
        [key, row],
      ) => [row.session_id, row.agent, row.ts, ...mergedValues(row), key]),
    );
    if (inserted.length < fresh.size) {
      // A key stored meanwhile by a writer of another session (the sessions locked above keep
      // out every writer of these): the whole write runs again, merging into what it stored.
      throw Object.assign(new Error("a usage key was stored by another writer meanwhile"), {
        code: "40001",
      });
    }
    for (const [key, row] of changed) await w.query(UPDATE_USAGE, [...mergedValues(row), key]);
    await applyDeltas(w, deltas);
    return fresh.size;
  });
}

/**
 * Prices every stored call again with `priceOf` and moves each session's cost and unpriced
 * count by the difference; answers how many calls changed.
 */
export function repriceUsage(
  q: PgQueryable,
  priceOf: (record: CountedUsage) => CallPrice,
): Promise<number> {
  return q.write(async (w) => {
    const deltas = new Map<string, SessionDelta>();
    let changed = 0;
    let after = "";
    for (;;) {
      const rows = await readRows(
        w,
        KNOWN_USAGE,
        `SELECT ${KNOWN_USAGE.columns} FROM usage WHERE usage_key > $1
         ORDER BY usage_key LIMIT 2000 FOR UPDATE`,
        [after],
      );
      if (rows.length === 0) break;
      after = rows[rows.length - 1].usage_key;
      for (const row of rows) {
        const price = repriced(deltas, row, priceOf);
        if (price === undefined) continue;
        await w.query("UPDATE usage SET cost_usd = $1, priced = $2 WHERE usage_key = $3", [
          price.cost_usd,
          price.priced,
          row.usage_key,
        ]);
        changed++;
      }
    }
    await applyDeltas(w, deltas);
    return changed;
  });
}

/** Usage summed per time bucket and per agent or model, within `[since, until)`. */
export function usageBuckets(
  q: PgQueryable,
  options: {
    since: number;
    until: number;
    bucketMs: number;
    groupBy: "agent" | "model";
    agents?: readonly string[];
  },
): Promise<UsageBucketRow[]> {
  const key = options.groupBy === "agent" ? "agent" : "coalesce(model, 'unknown')";
  const agents = options.agents !== undefined;
  return readRows(
    q,
    USAGE_BUCKET,
    `SELECT (ts / $1::bigint) * $1::bigint AS bucket, ${key} AS series_key,
       sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
       sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
       sum(cost_usd) AS cost_usd, sum(calls) AS calls, sum((1 - priced) * calls) AS unpriced_calls
     FROM usage WHERE ts >= $2 AND ts < $3 ${agents ? "AND agent = ANY($4::text[])" : ""}
     GROUP BY 1, 2 ORDER BY 1`,
    agents
      ? [options.bucketMs, options.since, options.until, options.agents!]
      : [options.bucketMs, options.since, options.until],
  );
}

/** Token and cost totals of the model calls in `[since, until)`. */
export function usageTotals(
  q: PgQueryable,
  since: number,
  until: number,
): Promise<TokenCost & { calls: number }> {
  return readRow(
    q,
    USAGE_TOTALS,
    `SELECT coalesce(sum(input_tokens), 0) AS input_tokens,
       coalesce(sum(output_tokens), 0) AS output_tokens,
       coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
       coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
       coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
       coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
     FROM usage WHERE ts >= $1 AND ts < $2`,
    [since, until],
  );
}

/** Models of the unpriced calls in `[since, until)`, with how many calls each (most first). */
export function unpricedModels(
  q: PgQueryable,
  since: number,
  until: number,
  limit: number,
): Promise<Array<{ model: string; calls: number }>> {
  return readRows(
    q,
    MODEL_CALLS,
    `SELECT coalesce(model, 'unknown') AS model, sum(calls) AS calls FROM usage
     WHERE ts >= $1 AND ts < $2 AND priced = 0
     GROUP BY coalesce(model, 'unknown') ORDER BY calls DESC, coalesce(model, 'unknown') COLLATE "C" LIMIT $3`,
    [since, until, limit],
  );
}

/** A session's model calls in time order (at most `limit`). */
export function sessionUsage(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<SessionUsageRow[]> {
  return readRows(
    q,
    SESSION_USAGE,
    `SELECT ${SESSION_USAGE.columns} FROM usage WHERE session_id = $1 ORDER BY ts LIMIT $2`,
    [sessionId, limit],
  );
}

/** A session's usage records since a time, oldest first. */
export function usageSince(
  q: PgQueryable,
  sessionId: string,
  since: number,
): Promise<CallUsageRow[]> {
  return readRows(
    q,
    CALL_USAGE,
    `SELECT ${CALL_USAGE.columns} FROM usage WHERE session_id = $1 AND ts >= $2
     ORDER BY ts LIMIT 2000`,
    [sessionId, since],
  );
}
