/**
 * `dex.describe`: progressive discovery. Without a target it lists every
 * operation the caller may run; with one it returns that operation's full
 * schemas, found by id, tool name or composite name. The names come from the
 * catalog's naming (the surfaces' tables), never from the operations.
 *
 * @module
 */
import { z } from "zod";
import { OperationFailure } from "../../core/errors.ts";
import { toJsonSchema } from "../json_schema.ts";
import type { OperationNames } from "../naming.ts";
import {
  type CatalogView,
  defineOperation,
  missingScopes,
  type Operation,
  READ_ONLY_ANNOTATIONS,
} from "../operation.ts";

const annotations = z.object({
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** The `dex.describe` operation. */
export const describeOperation: Operation = defineOperation({
  id: "dex.describe",
  title: "Describe operations",
  description:
    "Full parameter and result schemas of one operation, or a list of all you may run. `target` is an operation id, tool name or composite op name.",
  input: z.object({
    target: z.string().min(1).optional().describe("Operation id, tool name or composite op name"),
  }),
  output: z.object({
    operations: z.array(z.object({
      operation_id: z.string(),
      title: z.string(),
      tool: z.string(),
      composite: z.string().optional(),
      scopes: z.array(z.string()),
    })).optional(),
    operation_id: z.string().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    tool: z.string().optional(),
    composite: z.string().optional(),
    scopes: z.array(z.string()).optional(),
    annotations: annotations.optional(),
    input_schema: z.record(z.string(), z.unknown()).optional(),
    output_schema: z.record(z.string(), z.unknown()).optional(),
  }),
  scopes: ["dex:read"],
  annotations: READ_ONLY_ANNOTATIONS,
  run(context, { target }) {
    const catalog = context.catalog;
    const visible = catalog.operations().filter((op) =>
      missingScopes(op, context.caller).length === 0
    );
    if (target === undefined) {
      return {
        operations: visible.map((op) => ({
          operation_id: op.id,
          title: op.title,
          ...shownNames(catalog, op),
          scopes: [...op.scopes],
        })),
      };
    }
    const wanted = target.trim();
    const found = visible.find((op) => {
      const names = catalog.namesOf(op.id);
      return op.id === wanted || names.tool === wanted || names.composite?.name === wanted;
    });
    if (found === undefined) {
      throw new OperationFailure(
        `no operation you may run is called '${wanted}'; call describe without a target to list them`,
        { target: wanted },
      );
    }
    return {
      operation_id: found.id,
      title: found.title,
      description: found.description,
      ...shownNames(catalog, found),
      scopes: [...found.scopes],
      annotations: found.annotations,
      input_schema: toJsonSchema(found.input, "input"),
      output_schema: toJsonSchema(found.output, "output"),
    };
  },
});

/** The `tool` and `composite` fields describe shows for an operation. */
function shownNames(catalog: CatalogView, op: Operation): { tool: string; composite?: string } {
  const names: OperationNames = catalog.namesOf(op.id);
  return names.composite === undefined
    ? { tool: names.tool }
    : { tool: names.tool, composite: `${names.composite.tool}:${names.composite.name}` };
}
