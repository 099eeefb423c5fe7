/**
 * `docs.semantic_dedupe`: groups of near-duplicate documents with pair
 * scores and a canonical member, computed on demand (YAMS shape).
 *
 * @module
 */
import { z } from "zod";
import { DEDUPE_ALGORITHM, duplicateGroups } from "../doc_dedupe.ts";
import { unstoredVectors } from "../unstored_vectors.ts";
import { unstoredVectorsFrom } from "../server_search/server_unstored.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, READ_ONLY } from "./shared.ts";

/** The `docs.semantic_dedupe` operation. */
export const semanticDedupeOperation: Operation = defineOperation({
  id: "docs.semantic_dedupe",
  title: "Near-duplicate documents",
  description:
    `Find groups of near-duplicate stored documents (${DEDUPE_ALGORITHM}: embedding cosine plus name and path overlap), each with a canonical member. Removes nothing.`,
  input: z.object({
    group_key: z.string().min(1).optional().describe("Return only this group"),
    document_ids: z.array(z.number().int()).optional().describe(
      "Groups containing these documents",
    ),
    limit: z.number().int().min(1).max(1000).default(25),
    threshold: z.number().min(0.5).max(1).default(0.92).describe("Least cosine for a pair"),
    strategy: z.enum(["keep-newest", "keep-oldest", "keep-largest"]).default("keep-newest")
      .describe("Which member is canonical"),
  }),
  output: z.object({
    total: z.number().int(),
    groups: z.array(z.object({
      group_key: z.string(),
      algorithm_version: z.string(),
      status: z.string(),
      review_state: z.string(),
      canonical_document_id: z.number().int(),
      member_count: z.number().int(),
      max_pair_score: z.number(),
      threshold: z.number(),
      evidence_json: z.string(),
      members: z.array(z.object({
        document_id: z.number().int(),
        role: z.enum(["canonical", "duplicate"]),
        decision: z.enum(["keep", "review"]),
        pair_score: z.number().optional(),
        hash: z.string(),
        path: z.string(),
      })),
    })),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  timeoutMs: 120_000,
  async run(context, input) {
    const docs = docsContext(context);
    // Read-only: documents without stored vectors are embedded for this call, never stored.
    const unstored = docs.serverSearch === undefined
      ? await unstoredVectors(docs.db, docs.embedder)
      : await unstoredVectorsFrom(docs.store, docs.embedder);
    return await duplicateGroups(docs.store, {
      unstored: unstored.documents,
      model: docs.embedder.id,
      threshold: input.threshold,
      strategy: input.strategy,
      groupKey: input.group_key,
      documentIds: input.document_ids,
      limit: input.limit,
    });
  },
});
