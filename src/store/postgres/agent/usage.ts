/**
 * Token usage and cost of model calls on PostgreSQL: stored once per usage
 * key, merged when a call is reported again with grown figures, priced on
 * the way in and again when prices change, the sessions' totals moved by
 * the difference only — SQLite's rules (../../agent/usage.ts, whose merge
 * and pricing are used as they are), and its reads in PostgreSQL's dialect.
 *
 * A call's row is locked while it is merged (`FOR UPDATE`), and a key two
 * writers insert at once is merged by the second, so concurrent servers
 * never count a call twice.
 *
 * @module
 */
import type { CallPrice, CountedUsage } from "../../../model/agent_records.ts";
import { deltaFor, type SessionDelta } from "../../agent/session_totals.ts";
import {
  asRecord,
  type CallUsageRow,
  merge,
  type SessionUsageRow,
  stored,
  STORED_USAGE_SHAPE,
  type TokenCost,
  type UsageBucketRow,
  type UsageRow,
} from "../../agent/usage.ts";
import { pickColumns, RowReader, type RowShape } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { applyDeltas, lockSessions } from "./session_totals.ts";

const STORED_USAGE = new RowReader<UsageRow>("usage", STORED_USAGE_SHAPE);

const KEYED_USAGE = new RowReader<UsageRow & { usage_key: string }>("usage", {
  usage_key: "text",
  ...STORED_USAGE_SHAPE,
});

const FIND_USAGE = `SELECT ${STORED_USAGE.columns} FROM usage WHERE usage_key = $1 FOR UPDATE`;

const INSERT_USAGE = `
      INSERT INTO usage (session_id, agent, ts, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
        web_search_requests, service_tier, speed, inference_geo, context_window,
        reported_cost_usd, calls, cost_usd, priced, usage_key)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
        $20)
      ON CONFLICT (usage_key) DO NOTHING RETURNING usage_key
    `;

const UPDATE_USAGE = `
      UPDATE usage SET model = $1, input_tokens = $2, output_tokens = $3, cache_read_tokens = $4,
        cache_write_tokens = $5, cache_write_1h_tokens = $6, reasoning_tokens = $7,
        web_search_requests = $8, service_tier = $9, speed = $10, inference_geo = $11,
        context_window = $12, reported_cost_usd = $13, calls = $14, cost_usd = $15, priced = $16
      WHERE usage_key = $17
    `;

/**
 * Stores usage records (a new key inserted, a stored one merged and repriced) and moves their
 * sessions' totals by the difference; answers how many keys were new.
 */
export function insertUsage(
  q: PgQueryable,
  records: readonly CountedUsage[],
  priceOf: (record: CountedUsage) => CallPrice,
): Promise<number> {
  if (records.length === 0) return Promise.resolve(0);
  return q.write(async (w) => {
    await lockSessions(w, records.map((u) => u.session_id));
    const deltas = new Map<string, SessionDelta>();
    let added = 0;
    for (const u of records) {
      let old = STORED_USAGE.optional((await w.query(FIND_USAGE, [u.usage_key]))[0]);
      let next = old === undefined ? u : merge(old, u);
      if (next === undefined) continue; // Nothing grew: the line repeats what is stored.
      let row = stored(next, priceOf(next));
      const values = (r: UsageRow) => [
        r.model,
        r.input_tokens,
        r.output_tokens,
        r.cache_read_tokens,
        r.cache_write_tokens,
        r.cache_write_1h_tokens,
        r.reasoning_tokens,
        r.web_search_requests,
        r.service_tier,
        r.speed,
        r.inference_geo,
        r.context_window,
        r.reported_cost_usd,
        r.calls,
        r.cost_usd,
        r.priced,
        u.usage_key,
      ];
      if (old === undefined) {
        const inserted = await w.query(INSERT_USAGE, [
          row.session_id,
          row.agent,
          row.ts,
          ...values(row),
        ]);
        if (inserted.length === 1) {
          added++;
        } else {
          // Another writer stored the key since the look-up: merge into its row instead.
          old = STORED_USAGE.one((await w.query(FIND_USAGE, [u.usage_key]))[0]);
          next = merge(old, u);
          if (next === undefined) continue;
          row = stored(next, priceOf(next));
        }
      }
      if (old !== undefined) await w.query(UPDATE_USAGE, values(row));
      const delta = deltaFor(deltas, row.session_id, row.agent, row.ts);
      delta.input += row.input_tokens - (old?.input_tokens ?? 0);
      delta.output += row.output_tokens - (old?.output_tokens ?? 0);
      delta.cacheRead += row.cache_read_tokens - (old?.cache_read_tokens ?? 0);
      delta.cacheWrite += row.cache_write_tokens - (old?.cache_write_tokens ?? 0);
      delta.reasoning += row.reasoning_tokens - (old?.reasoning_tokens ?? 0);
      delta.cost += row.cost_usd - (old?.cost_usd ?? 0);
      delta.unpriced += (row.priced === 0 ? row.calls : 0) -
        (old !== undefined && old.priced === 0 ? old.calls : 0);
      if (row.model !== null) delta.model = row.model;
      if (row.context_window !== null) delta.contextWindow = row.context_window;
      if (row.ts >= delta.contextAt) {
        delta.context = row.input_tokens + row.cache_read_tokens + row.cache_write_tokens;
        delta.contextAt = row.ts;
      }
    }
    await applyDeltas(w, deltas);
    return added;
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
      const rows = KEYED_USAGE.all(
        await w.query(
          `SELECT ${KEYED_USAGE.columns} FROM usage WHERE usage_key > $1
           ORDER BY usage_key LIMIT 2000 FOR UPDATE`,
          [after],
        ),
      );
      if (rows.length === 0) break;
      after = rows[rows.length - 1].usage_key;
      for (const row of rows) {
        const price = priceOf(asRecord(row, row.usage_key));
        const cost = price.priced ? price.usd : 0;
        const priced = price.priced ? 1 : 0;
        if (cost === row.cost_usd && priced === row.priced) continue;
        await w.query("UPDATE usage SET cost_usd = $1, priced = $2 WHERE usage_key = $3", [
          cost,
          priced,
          row.usage_key,
        ]);
        const delta = deltaFor(deltas, row.session_id, row.agent, 0);
        delta.cost += cost - row.cost_usd;
        delta.unpriced += (row.priced - priced) * row.calls;
        changed++;
      }
    }
    await applyDeltas(w, deltas);
    return changed;
  });
}

const TOKEN_COST_SHAPE: RowShape<TokenCost> = {
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  cost_usd: "number",
  unpriced_calls: "number",
};

const USAGE_BUCKET = new RowReader<UsageBucketRow>("usage bucket", {
  bucket: "number",
  series_key: "text",
  ...TOKEN_COST_SHAPE,
  calls: "number",
});

/** Usage summed per time bucket and per agent or model, within `[since, until)`. */
export async function usageBuckets(
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
  return USAGE_BUCKET.all(
    await q.query(
      `SELECT (ts / $1::bigint) * $1::bigint AS bucket, ${key} AS series_key,
         sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
         sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens,
         sum(cost_usd) AS cost_usd, sum(calls) AS calls, sum((1 - priced) * calls) AS unpriced_calls
       FROM usage WHERE ts >= $2 AND ts < $3 ${agents ? "AND agent = ANY($4::text[])" : ""}
       GROUP BY 1, 2 ORDER BY 1`,
      agents
        ? [options.bucketMs, options.since, options.until, options.agents!]
        : [options.bucketMs, options.since, options.until],
    ),
  );
}

const USAGE_TOTALS = new RowReader<TokenCost & { calls: number }>("usage totals", {
  ...TOKEN_COST_SHAPE,
  calls: "number",
});

/** Token and cost totals of the model calls in `[since, until)`. */
export async function usageTotals(
  q: PgQueryable,
  since: number,
  until: number,
): Promise<TokenCost & { calls: number }> {
  return USAGE_TOTALS.one(
    (await q.query(
      `SELECT coalesce(sum(input_tokens), 0) AS input_tokens,
         coalesce(sum(output_tokens), 0) AS output_tokens,
         coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
         coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
         coalesce(sum(cost_usd), 0) AS cost_usd, coalesce(sum(calls), 0) AS calls,
         coalesce(sum((1 - priced) * calls), 0) AS unpriced_calls
       FROM usage WHERE ts >= $1 AND ts < $2`,
      [since, until],
    ))[0],
  );
}

const MODEL_CALLS = new RowReader<{ model: string; calls: number }>("model calls", {
  model: "text",
  calls: "number",
});

/** Models of the unpriced calls in `[since, until)`, with how many calls each (most first). */
export async function unpricedModels(
  q: PgQueryable,
  since: number,
  until: number,
  limit: number,
): Promise<Array<{ model: string; calls: number }>> {
  return MODEL_CALLS.all(
    await q.query(
      `SELECT coalesce(model, 'unknown') AS model, sum(calls) AS calls FROM usage
       WHERE ts >= $1 AND ts < $2 AND priced = 0
       GROUP BY coalesce(model, 'unknown') ORDER BY calls DESC, coalesce(model, 'unknown') COLLATE "C" LIMIT $3`,
      [since, until, limit],
    ),
  );
}

const SESSION_USAGE = new RowReader<SessionUsageRow>("session usage", {
  ts: "number",
  model: "text?",
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number",
  cache_write_tokens: "number",
  cost_usd: "number",
  priced: "number",
});

/** A session's model calls in time order (at most `limit`). */
export async function sessionUsage(
  q: PgQueryable,
  sessionId: string,
  limit: number,
): Promise<SessionUsageRow[]> {
  return SESSION_USAGE.all(
    await q.query(
      `SELECT ${SESSION_USAGE.columns} FROM usage WHERE session_id = $1 ORDER BY ts LIMIT $2`,
      [sessionId, limit],
    ),
  );
}

const CALL_USAGE = new RowReader<CallUsageRow>("call usage", {
  usage_key: "text",
  ...pickColumns(STORED_USAGE_SHAPE, [
    "ts",
    "model",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "context_window",
  ]),
});

/** A session's usage records since a time, oldest first. */
export async function usageSince(
  q: PgQueryable,
  sessionId: string,
  since: number,
): Promise<CallUsageRow[]> {
  return CALL_USAGE.all(
    await q.query(
      `SELECT ${CALL_USAGE.columns} FROM usage WHERE session_id = $1 AND ts >= $2
       ORDER BY ts LIMIT 2000`,
      [sessionId, since],
    ),
  );
}
