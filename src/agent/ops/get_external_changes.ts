/**
 * `get_external_changes`: files changed in the project, attributed to an
 * agent or to someone unknown, plus commits and branch moves.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, READ_ONLY } from "./common.ts";
import { externalChanges, externalChangesSchema } from "./state_builders.ts";

/** The `agent.get_external_changes` operation. */
export const getExternalChangesOperation: Operation = defineOperation({
  id: "agent.get_external_changes",
  title: "Outside changes",
  description:
    "Files modified in this project (attributed to an agent or 'unknown' — someone else), plus git commits and branch moves. Check before editing: did anyone touch this file since you read it?",
  input: z.object({
    since_min: z.number().int().optional().describe("Lookback in minutes (default 30)"),
  }),
  output: externalChangesSchema,
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  run(context, input) {
    const ctx = agentContext(context);
    return externalChanges(ctx, ctx.cwd, clamp(input.since_min, 1, 43_200, 30));
  },
});
