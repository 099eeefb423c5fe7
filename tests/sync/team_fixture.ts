/**
 * What the sync tests share: a team server in this process (the real HTTP
 * handler over a real store, on a real port, with people's tokens), a local
 * store filled from the transcript fixtures, and a comparison of what two
 * stores hold of one person's history.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { resolvePaths } from "../../src/core/config.ts";
import { createHandler } from "../../src/http/handler.ts";
import { VANTAGE_NAMING } from "../../src/mcp/operation_names.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { DATABASE, vantageServices } from "../../src/ops/runtime.ts";
import type { Services } from "../../src/ops/services.ts";
import { sqliteTeamStore } from "../../src/store/team/team_store.ts";
import { issuePersonToken, personTokenHash, PersonTokens } from "../../src/team/mod.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";

/** A team server running in this process. */
export interface InProcessTeam {
  /** Its base URL. */
  url: string;
  /** Its data home. */
  dataHome: string;
  /** Its services (the store among them). */
  services: Services;
  /** Issues a person a token. */
  addPerson(name: string): string;
  /** Stops it and removes its home. */
  close(): Promise<void>;
}

/** Starts a team server on a free loopback port. */
export async function startInProcessTeam(): Promise<InProcessTeam> {
  const home = await Deno.makeTempDir({ prefix: "vantage-team-" });
  const dataHome = `${home}/.vantage`;
  const services = vantageServices({ ...resolvePaths(dataHome), userHome: home });
  const db = services.get(DATABASE);
  const team = sqliteTeamStore(db);
  const controller = new AbortController();
  let port = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: () => {} },
    (request) => handler(request),
  );
  port = server.addr.port;
  const handler = createHandler({
    guard: { bindHost: "127.0.0.1", port, token: "owner-token", people: new PersonTokens(team) },
    hooks: { take: (delivery) => takeHookDelivery(db, delivery) },
    ops: { catalog: builtinCatalog({ naming: VANTAGE_NAMING }), services },
  });
  return {
    url: `http://127.0.0.1:${port}`,
    dataHome,
    services,
    addPerson(name) {
      const token = issuePersonToken();
      team.addPerson({
        name,
        role: "member",
        token_hash: personTokenHash(token),
        created_at: Date.now(),
      });
      return token;
    },
    async close() {
      controller.abort();
      await server.finished;
      services.close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** Rows of a query on a store file, read-only. */
export function rows<T>(dataHome: string, sql: string, ...params: Array<string | number>): T[] {
  const db = new DatabaseSync(`${dataHome}/vantage.db`, { readOnly: true, timeout: 10_000 });
  try {
    return (db.prepare(sql).all(...params) as T[]).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

// Costs are sums of floating-point prices, added per batch in whatever order the batches
// came: they agree to the nanodollar, not always to the last bit.
const HISTORY_QUERIES: Record<string, string> = {
  messages: `SELECT session_id, message_key, ts, role, message_type, text, tool_name,
    tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id
    FROM messages ORDER BY session_id, message_key`,
  usage: `SELECT usage_key, session_id, agent, ts, model, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
    web_search_requests, calls, round(cost_usd, 9) AS cost_usd, priced FROM usage ORDER BY usage_key`,
  // Not received_at: a store records when it took a hook, and a forwarded hook reaches the
  // team server after the laptop's store.
  events: `SELECT delivery_id, agent, session_id, event_type, ts, tool_name, tool_use_id,
    command, success, error, prompt, raw FROM events ORDER BY delivery_id`,
  outcomes: `SELECT session_id, tool_use_id, agent, ts, success, exit_code, error
    FROM tool_outcomes ORDER BY session_id, tool_use_id`,
  sessions: `SELECT session_id, agent, cwd, started_at, last_activity_at, model, git_branch,
    title, parent_session_id, is_subagent, subagent_type, has_hooks, event_count,
    message_count, tool_calls, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, round(cost_usd, 9) AS cost_usd, unpriced_calls
    FROM sessions ORDER BY session_id`,
};

/**
 * Asserts that the team server holds exactly the local store's history (the sessions `only`
 * names, or all), each record once, and that every session there is `person`'s from `host`.
 */
export function assertSameHistory(
  local: string,
  team: string,
  person: string,
  host: string,
  only?: (sessionId: string) => boolean,
): void {
  for (const [table, sql] of Object.entries(HISTORY_QUERIES)) {
    const mine = (rows: Array<Record<string, unknown>>) =>
      rows.filter((row) => only === undefined || only(String(row.session_id)));
    const here = mine(rows(local, sql));
    const there = mine(rows(team, sql));
    assert.ok(here.length > 0 || table === "outcomes", `the local store has ${table}`);
    assert.deepEqual(there, here, `${table} on the team server`);
  }
  const owners = rows<{ session_id: string; person: string | null; host: string | null }>(
    team,
    "SELECT session_id, person, host FROM sessions ORDER BY session_id",
  ).filter((row) => only === undefined || only(row.session_id));
  for (const row of owners) {
    assert.deepEqual([row.person, row.host], [person, host], `session ${row.session_id}`);
  }
  const events = rows<{ person: string | null; host: string | null; session_id: string }>(
    team,
    "SELECT person, host, session_id FROM events",
  ).filter((row) => only === undefined || only(row.session_id));
  for (const row of events) assert.deepEqual([row.person, row.host], [person, host]);
}
