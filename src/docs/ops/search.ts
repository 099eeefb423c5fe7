/**
 * `docs.search`: finds stored documents by keyword (BM25), fuzzy,
 * semantic or hybrid (the default) search, or by content-hash prefix, with
 * snippets, optional line numbers and context lines.
 *
 * @module
 */
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import { findDocuments } from "../doc_read.ts";
import { resultItems, type SnippetRequest } from "../doc_results.ts";
import { rankDocuments } from "../doc_search.ts";
import { sessionScope } from "../doc_sessions.ts";
import { rankOnServer } from "../server_search/server_ranking.ts";
import { documentsByHashFrom, resultItemsFrom } from "../server_search/server_results.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, READ_ONLY, sessionScopeFields, tagList, tagsSchema } from "./shared.ts";

const resultSchema = z.object({
  id: z.number().int(),
  hash: z.string(),
  title: z.string(),
  path: z.string(),
  score: z.number(),
  snippet: z.string(),
  line: z.number().int().optional(),
});

/** The `docs.search` operation. */
export const searchOperation: Operation = defineOperation({
  id: "docs.search",
  title: "Search documents",
  description:
    "Find stored notes and documents by what they say. Hybrid (keyword + semantic), keyword (BM25), semantic or fuzzy search; or one document by `hash` prefix.",
  input: z.object({
    query: z.string().optional().describe("Search text (or give hash)"),
    limit: z.number().int().min(1).max(1000).default(10),
    type: z.enum(["hybrid", "keyword", "semantic", "fuzzy"]).default("hybrid"),
    fuzzy: z.boolean().default(true).describe("Also match near spellings"),
    similarity: z.number().min(0).max(1).default(0.7).describe("Fuzzy match threshold"),
    // An abbreviated hash must be long enough to be unambiguous; the lookup refuses shorter.
    hash: z.string().meta({ minLength: 8, maxLength: 64 }).optional().describe(
      "Content hash or prefix",
    ),
    paths_only: z.boolean().default(false),
    line_numbers: z.boolean().default(false),
    context: z.number().int().min(0).max(50).default(0).describe("Lines around matches"),
    collection: z.string().min(1).optional(),
    tags: tagsSchema.optional().describe("Only documents with all these tags"),
    ...sessionScopeFields,
  }),
  output: z.object({
    total: z.number().int(),
    type: z.string(),
    execution_time_ms: z.number(),
    results: z.array(resultSchema).optional(),
    paths: z.array(z.string()).optional(),
    warnings: z.array(z.string()).optional(),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const started = performance.now();
    const docs = docsContext(context);
    const session = await sessionScope(docs.store, input);
    const filter = { session, collection: input.collection, tags: tagList(input.tags) };
    let hits: Array<{ id: number; score: number }>;
    let total: number;
    const warnings: string[] = [];
    let type: string = input.type;
    // A database server's store is read through its interface and searched with its own
    // keyword index (server_search/); SQLite's with its index file and sealed vector files.
    const server = docs.serverSearch === undefined
      ? undefined
      : { store: docs.store, search: docs.serverSearch };
    if (input.hash !== undefined) {
      const rows = server !== undefined
        ? await documentsByHashFrom(server.store, input.hash, input.limit)
        : findDocuments(docs.db, { hash: input.hash }, input.limit);
      hits = rows.map((row) => ({ id: row.id, score: 1 }));
      total = hits.length;
      type = "hash";
    } else {
      if (input.query === undefined || input.query.trim() === "") {
        throw new VantageError("invalid_arguments", "give a 'query' (or a 'hash' to look up)");
      }
      const request = {
        query: input.query,
        mode: input.type,
        limit: input.limit,
        fuzzy: input.fuzzy,
        similarity: input.similarity,
        filter,
        embedder: docs.embedder,
      };
      const ranking = server !== undefined
        ? await rankOnServer(server, request)
        : await rankDocuments(docs.db, request);
      hits = ranking.hits;
      total = ranking.total;
      warnings.push(...(ranking.warnings ?? []));
    }
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    const items = (snippets: SnippetRequest) =>
      server !== undefined
        ? resultItemsFrom(server.store, hits, snippets, warnings)
        : resultItems(docs.db, hits, snippets, warnings);
    if (input.paths_only) {
      const found = await items({ query: "", lineNumbers: false, context: 0 });
      return {
        total,
        type,
        execution_time_ms: elapsed(),
        paths: found.map((item) => item.path),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    }
    const results = await items({
      query: input.query ?? "",
      lineNumbers: input.line_numbers,
      context: input.context,
    });
    return {
      total,
      type,
      execution_time_ms: elapsed(),
      results,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  },
});
