/**
 * `exec_query`: the escape hatch — one read-only SELECT against the store,
 * run on a read-only connection in a worker, with row and cell caps.
 *
 * @module
 */
import { z } from "zod";
import { runReadOnlyQuery } from "../../store/readonly_query.ts";
import { defineOperation, type Operation } from "../operation.ts";
import { DATABASE, PATHS } from "../runtime.ts";
import { clamp, READ_ONLY } from "./common.ts";

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
  timeoutMs: 21_000,
  async run(context, input) {
    const paths = context.services.get(PATHS);
    context.services.get(DATABASE); // A brand-new home gets its file and schema before the read-only open.
    return await runReadOnlyQuery(paths.database, input.sql, {
      rowLimit: clamp(input.row_limit, 1, 1000, 100),
      cellChars: clamp(input.cell_chars, 100, 20_000, 2000),
      timeoutMs: 20_000,
    });
  },
});
