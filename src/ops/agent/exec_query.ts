/**
 * `exec_query`: the escape hatch — one read-only SELECT against the store,
 * run on a read-only connection in a query process, with row and cell caps
 * and a time limit that kills the process.
 *
 * @module
 */
import { z } from "zod";
import { DEFAULT_QUERY_TIMEOUT_MS } from "../../store/readonly_query.ts";
import { defineOperation, type Operation } from "../operation.ts";
import { DATABASE, QUERY_RUNNER } from "../runtime.ts";
import { clamp, READ_ONLY } from "./common.ts";

/**
 * The longest a query may run, ms. The runner may be configured shorter
 * (`VANTAGE_QUERY_TIMEOUT_MS`), never longer: the operation's own limit sits
 * just above it, so the runner's deadline is the one that fires and kills
 * the query's process, and the executor's only backs it up.
 */
export const QUERY_TIME_LIMIT_MS = DEFAULT_QUERY_TIMEOUT_MS;

/** The `agent.exec_query` operation. */
export const execQueryOperation: Operation = defineOperation({
  id: "agent.exec_query",
  toolName: "exec_query",
  title: "Read-only SQL query",
  description:
    "Run one read-only SELECT (or WITH … SELECT) on Vantage's SQLite store. Tables: sessions, events, messages, usage, build_runs, file_changes, git_moves, anomalies, project_state. Discover columns with SELECT * FROM pragma_table_info('sessions').",
  input: z.object({
    sql: z.string().min(1).describe("One SELECT statement"),
    row_limit: z.number().int().optional().describe("Rows, 1-1000 (default 100)"),
    cell_chars: z.number().int().optional().describe(
      "Characters per cell, 100-20000 (default 2000)",
    ),
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
    context.services.get(DATABASE); // A brand-new home gets its file and schema before the read-only open.
    return await runner.run(input.sql, {
      rowLimit: clamp(input.row_limit, 1, 1000, 100),
      cellChars: clamp(input.cell_chars, 100, 20_000, 2000),
      timeoutMs: Math.min(runner.timeoutMs, QUERY_TIME_LIMIT_MS),
    }, context.signal);
  },
});
