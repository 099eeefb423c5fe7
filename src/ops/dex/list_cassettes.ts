/**
 * `dex.list_cassettes`: the packs in the catalog, where each came from and
 * which of their operations the caller may run.
 *
 * @module
 */
import { z } from "zod";
import {
  defineOperation,
  missingScopes,
  type Operation,
  READ_ONLY_ANNOTATIONS,
} from "../operation.ts";

/** The `dex.list_cassettes` operation. */
export const listCassettesOperation: Operation = defineOperation({
  id: "dex.list_cassettes",
  title: "List cassettes",
  description:
    "List the operation packs (cassettes), with their source and the operations in each you may run.",
  input: z.object({}),
  output: z.object({
    cassettes: z.array(z.object({
      name: z.string(),
      source: z.string(),
      description: z.string(),
      operation_count: z.number().int(),
      operations: z.array(z.string()),
    })),
  }),
  scopes: ["dex:read"],
  annotations: READ_ONLY_ANNOTATIONS,
  run(context) {
    return {
      cassettes: context.catalog.cassettes.map((cassette) => {
        const visible = cassette.operations.filter((op) =>
          missingScopes(op, context.caller).length === 0
        );
        return {
          name: cassette.name,
          source: cassette.source,
          description: cassette.description,
          operation_count: visible.length,
          operations: visible.map((op) => op.id),
        };
      }),
    };
  },
});
