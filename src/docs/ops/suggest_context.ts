/**
 * `docs.suggest_context`: which stored snapshots fit a draft topic, grouped
 * from search evidence by snapshot (YAMS shape). In session scope, the set
 * served last time for the same query is held back.
 *
 * @module
 */
import { z } from "zod";
import { sessionScope } from "../doc_sessions.ts";
import { suggestContext } from "../doc_suggest.ts";
import { suggestOnServer } from "../server_search/server_suggest.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, sessionScopeFields } from "./shared.ts";

/** The `docs.suggest_context` operation. */
export const suggestContextOperation: Operation = defineOperation({
  id: "docs.suggest_context",
  title: "Suggest context snapshots",
  description:
    "Suggest stored snapshots relevant to a topic. Scored from hybrid search evidence, each with its best supporting results; within a session, what was served last time is not repeated.",
  input: z.object({
    query: z.string().min(1).describe("Draft topic or query text"),
    limit: z.number().int().min(1).max(100).default(5),
    ...sessionScopeFields,
  }),
  output: z.object({
    query: z.string(),
    total: z.number().int(),
    suggestions: z.array(z.object({
      snapshot_id: z.string(),
      label: z.string().nullable(),
      directory_path: z.string().nullable(),
      score: z.number(),
      supporting_result_count: z.number().int(),
      supporting_results: z.array(z.object({
        id: z.number().int(),
        hash: z.string(),
        title: z.string(),
        path: z.string(),
        score: z.number(),
      })),
    })),
    suppressed: z.number().int(),
  }),
  scopes: ["docs:read"],
  annotations: {
    // It records what it served (to avoid repeating itself), but changes no document.
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async run(context, input) {
    const docs = docsContext(context);
    const session = await sessionScope(docs.store, input);
    const request = {
      query: input.query,
      limit: input.limit,
      session,
      filter: { session },
      embedder: docs.embedder,
      now: docs.now,
    };
    // A database server's store is searched with its own keyword index (server_search/).
    return docs.serverSearch !== undefined
      ? await suggestOnServer({ store: docs.store, search: docs.serverSearch }, request)
      : await suggestContext(docs.db, request);
  },
});
