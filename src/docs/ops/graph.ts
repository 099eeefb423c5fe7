/**
 * `docs.graph`: the code graph extracted from stored documents — imports,
 * includes, definitions, calls, inheritance, implementations and links —
 * walked from a document, a name or a node key, forwards or in reverse.
 *
 * @module
 */
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import {
  checkRelation,
  fileNodeKey,
  graphNodesOfType,
  graphNodeTypes,
  RELATIONS,
  walkGraph,
} from "../doc_graph.ts";
import { resolveDocumentIn } from "../doc_read.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, graphNodeSchema, READ_ONLY } from "./shared.ts";

/** The `docs.graph` operation. */
export const graphOperation: Operation = defineOperation({
  id: "docs.graph",
  title: "Query the code graph",
  description:
    "Walk the code graph of stored documents: imports, calls, definitions, links. From a document or a `node_key`; `reverse` follows incoming edges (who calls this).",
  input: z.object({
    hash: z.string().min(1).optional().describe("Document hash or prefix"),
    name: z.string().min(1).optional().describe("Document path, file name or path suffix"),
    node_key: z.string().min(1).optional().describe("A node key, e.g. symbol:/repo/a.ts#main"),
    // Any case is accepted; the schema lists the spelling the graph stores.
    relation: z.string().min(1).meta({ enum: [...RELATIONS] }).optional().describe(
      "Only edges of this relation",
    ),
    depth: z.number().int().min(1).max(5).default(1).describe("Hops"),
    reverse: z.boolean().default(false).describe("Follow incoming edges"),
    list_types: z.boolean().default(false).describe("Count nodes per type"),
    list_type: z.string().min(1).optional().describe("List nodes of this type"),
    limit: z.number().int().min(1).max(1000).default(100),
  }),
  output: z.object({
    total: z.number().int(),
    origin: graphNodeSchema.optional(),
    nodes: z.array(graphNodeSchema).optional(),
    edges: z.array(z.object({
      from: z.string(),
      to: z.string(),
      relation: z.string(),
      line: z.number().int(),
      document_id: z.number().int(),
    })).optional(),
    types: z.array(z.object({ type: z.string(), count: z.number().int() })).optional(),
    truncated: z.boolean().optional(),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const docs = docsContext(context);
    if (input.list_types) {
      const types = await graphNodeTypes(docs.store);
      return { total: types.length, types };
    }
    if (input.list_type !== undefined) {
      const nodes = await graphNodesOfType(docs.store, input.list_type, input.limit);
      return { total: nodes.length, nodes };
    }
    let start: string;
    if (input.node_key !== undefined) {
      start = input.node_key;
    } else if (input.hash !== undefined || input.name !== undefined) {
      start = fileNodeKey(
        await resolveDocumentIn(docs.store, { hash: input.hash, name: input.name }),
      );
    } else {
      throw new VantageError(
        "invalid_arguments",
        "give 'hash', 'name' or 'node_key' to start from, or 'list_types' / 'list_type'",
      );
    }
    const walk = await walkGraph(docs.store, {
      start,
      depth: input.depth,
      reverse: input.reverse,
      relation: checkRelation(input.relation),
      limit: input.limit,
    });
    return {
      total: walk.nodes.length,
      origin: walk.origin,
      nodes: walk.nodes,
      edges: walk.edges.slice(0, input.limit * 4),
      truncated: walk.truncated,
    };
  },
});
