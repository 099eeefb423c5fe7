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
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { ingestInline } from "../../src/docs/mod.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { FIXTURES } from "../helpers/transcript_fixtures.ts";

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

/** A laptop's acknowledged sync cursor of one stream (0 before its first acknowledged batch). */
export function syncCursor(dataHome: string, stream: "messages" | "documents"): number {
  const found = rows<{ value: string }>(
    dataHome,
    "SELECT value FROM store_meta WHERE key LIKE ?",
    `sync.cursor.%.${stream}`,
  );
  return found.length === 0 ? 0 : Number(found[0].value);
}

/**
 * What two stores must hold alike of one person's history, a query per table, in SQLite's
 * spelling or (`postgres`) PostgreSQL's. Costs are sums of floating-point prices, added per
 * batch in whatever order the batches came: they agree to the nanodollar, not always to the
 * last bit.
 */
export function historyQueries(dialect: "sqlite" | "postgres" = "sqlite"): Record<string, string> {
  const cost = dialect === "sqlite"
    ? "round(cost_usd, 9) AS cost_usd"
    : "round(cost_usd::numeric, 9)::float8 AS cost_usd";
  // Ordered by bytes on both (PostgreSQL's default collation orders text by language rules).
  const by = (columns: string) =>
    dialect === "sqlite"
      ? columns
      : columns.split(", ").map((column) => `${column} COLLATE "C"`).join(", ");
  return {
    messages: `SELECT session_id, message_key, ts, role, message_type, text, tool_name,
      tool_use_id, is_error, model, cwd, file_path, command_prefix, subagent_id
      FROM messages ORDER BY ${by("session_id, message_key")}`,
    usage: `SELECT usage_key, session_id, agent, ts, model, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens,
      web_search_requests, calls, ${cost}, priced FROM usage ORDER BY ${by("usage_key")}`,
    // Not received_at: a store records when it took a hook, and a forwarded hook reaches the
    // team server after the laptop's store.
    events: `SELECT delivery_id, agent, session_id, event_type, ts, tool_name, tool_use_id,
      command, success, error, prompt, raw FROM events ORDER BY ${by("delivery_id")}`,
    outcomes: `SELECT session_id, tool_use_id, agent, ts, success, exit_code, error
      FROM tool_outcomes ORDER BY ${by("session_id, tool_use_id")}`,
    sessions: `SELECT session_id, agent, cwd, started_at, last_activity_at, model, git_branch,
      title, parent_session_id, is_subagent, subagent_type, has_hooks, event_count,
      message_count, tool_calls, input_tokens, output_tokens, cache_read_tokens,
      cache_write_tokens, reasoning_tokens, ${cost}, unpriced_calls
      FROM sessions ORDER BY ${by("session_id")}`,
  };
}

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
  for (const [table, sql] of Object.entries(historyQueries())) {
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

/** A local store: the fixtures ingested, their hook events stored, two documents added. */
export async function localStore() {
  const home = await makeAgentHome();
  const ingest = await runVantage(["ingest"], { env: home.env });
  assert.equal(ingest.code, 0, ingest.stderr);
  const services = vantageServices({ ...resolvePaths(home.dataHome), userHome: home.home });
  const db = services.get(DATABASE);
  for (const agent of ["claude_code", "codex"]) {
    const lines = (await Deno.readTextFile(`${FIXTURES}${agent}/hooks.jsonl`)).trim().split("\n");
    lines.forEach((payload, i) => {
      const taken = takeHookDelivery(db, {
        agent,
        delivery_id: `${agent}-delivery-${i}`,
        received_at: Date.UTC(2026, 10, 3, 9, 0, i),
        payload,
        host: "local-host",
      });
      assert.ok(taken.stored, `hook ${agent} ${i}`);
    });
  }
  const embedder = new HashedEmbedder();
  await ingestInline(db, [{ name: "notes/wombats.md", bytes: bytes("# Wombats\n\nThey dig.\n") }], {
    session: null,
    embedder,
    now: Date.now(),
    tags: ["burrows"],
    collection: "field-notes",
  });
  await ingestInline(db, [{ name: "todo.md", bytes: bytes("- sync the team\n") }], {
    session: null,
    embedder,
    now: Date.now(),
    metadata: { priority: "high" },
  });
  return { home, services };
}

/** UTF-8 bytes of a text. */
export function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}
