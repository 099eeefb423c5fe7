/**
 * `exec_query`: the escape hatch — one read-only SELECT against the store,
 * with row and cell caps and a time limit that really stops it: on SQLite
 * on a read-only connection in a query process that is killed at the
 * limit, on PostgreSQL as a read-only role in a read-only transaction with
 * a statement timeout. It reads only the tables the caller's other scopes
 * open (`query_tables.ts`): SQL is no way around the scope an operation asks
 * for.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { VantageError } from "../../core/errors.ts";
import { QUERY_TABLES, queryTableScopes, readableTables } from "../../store/query/query_tables.ts";
import { DEFAULT_QUERY_TIMEOUT_MS } from "../../store/query/readonly_query.ts";
import { type Caller, defineOperation, type Operation, scopeGranted } from "../../ops/operation.ts";
import { QUERY_RUNNER } from "../../ops/service_keys.ts";
import { clamp, READ_ONLY } from "./common.ts";

/**
 * The longest a query may run, ms. The runner may be configured shorter
 * (`VANTAGE_QUERY_TIMEOUT_MS`), never longer: the operation's own limit sits
 * just above it, so the runner's deadline is the one that fires and kills
 * the query's process, and the executor's only backs it up.
 */
export const QUERY_TIME_LIMIT_MS = DEFAULT_QUERY_TIMEOUT_MS;

/** The scope every query needs; the tables need theirs besides. */
const SQL_READ = "sql:read";

function tablesOpenedBy(scope: string): string[] {
  return QUERY_TABLES.filter((table) => table.scopes.length === 1 && table.scopes[0] === scope)
    .map((table) => table.name);
}

// Said from the table list, so the description cannot drift from what is enforced.
// The telemetry tables share one prefix; the description names them as one.
const AGENT_TABLES = [
  ...tablesOpenedBy("agent:read").filter((name) => !name.startsWith("telemetry_")),
  ...(tablesOpenedBy("agent:read").some((name) => name.startsWith("telemetry_"))
    ? ["telemetry_*"]
    : []),
];
const SQL_ONLY = QUERY_TABLES.filter((table) => table.scopes.length === 0).map((t) => t.name);
const BOTH = QUERY_TABLES.filter((table) => table.scopes.length > 1).map((t) => t.name);

/**
 * Makes a refused table read name the scope that would open it. The query
 * process knows only which tables it was given; which scope opens the one it
 * refused is the catalog's business.
 */
function scopeRefusal(error: VantageError, caller: Caller): VantageError {
  const table = error.details?.table;
  if (error.kind !== "forbidden" || typeof table !== "string") return error;
  const scopes = queryTableScopes(table);
  if (scopes === undefined) {
    return new VantageError(
      "forbidden",
      `${error.message}: no scope opens ${table} to queries`,
      { details: { table } },
    );
  }
  const missing = scopes.filter((scope) => !scopeGranted(caller.scopes, scope));
  return new VantageError(
    "forbidden",
    `${error.message}: it needs scope${missing.length > 1 ? "s" : ""} ${
      missing.join(" and ")
    } besides ${SQL_READ}, which the caller lacks; ask for ${missing.join(",")}`,
    { details: { table, missing_scopes: missing, required_scopes: [SQL_READ, ...scopes] } },
  );
}

/** The `agent.exec_query` operation. */
export const execQueryOperation: Operation = defineOperation({
  id: "agent.exec_query",
  title: "Read-only SQL query",
  description: `Run one read-only SELECT on Vantage's store. agent:read opens ${
    AGENT_TABLES.join(", ")
  }; docs:read the docs_* tables; ${BOTH.join(", ")} need both; ${
    SQL_ONLY.join(", ")
  } no other. Columns: pragma_table_info('sessions'), information_schema.columns on PostgreSQL.`,
  input: z.object({
    sql: z.string().min(1).describe("One SELECT statement"),
    row_limit: clampedInt(1, 1000).default(100),
    cell_chars: clampedInt(100, 20_000).default(2000).describe("Characters per cell"),
  }),
  output: z.object({
    columns: z.array(z.string()),
    rows: z.array(z.array(z.unknown())),
    row_count: z.number().int(),
    truncated: z.boolean(),
    cells_truncated: z.boolean(),
    execution_ms: z.number(),
  }),
  scopes: ["sql:read"],
  annotations: READ_ONLY,
  // Room to start a process and kill it after the runner's deadline.
  timeoutMs: QUERY_TIME_LIMIT_MS + 1_000,
  async run(context, input) {
    const runner = context.services.get(QUERY_RUNNER);
    try {
      return await runner.run(input.sql, {
        tables: readableTables((scope) => scopeGranted(context.caller.scopes, scope)),
        rowLimit: clamp(input.row_limit, 1, 1000, 100),
        cellChars: clamp(input.cell_chars, 100, 20_000, 2000),
        timeoutMs: Math.min(runner.timeoutMs, QUERY_TIME_LIMIT_MS),
      }, context.signal);
    } catch (error) {
      throw error instanceof VantageError ? scopeRefusal(error, context.caller) : error;
    }
  },
});
