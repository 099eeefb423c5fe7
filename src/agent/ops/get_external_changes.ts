/**
 * `get_external_changes`: files changed in the project, attributed to an
 * agent or to someone unknown, plus commits and branch moves.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, READ_ONLY } from "./common.ts";
import { externalChanges, externalChangesSchema } from "./state_builders.ts";

/** The `agent.get_external_changes` operation. */
export const getExternalChangesOperation: Operation = defineOperation({
  id: "agent.get_external_changes",
  title: "Outside changes",
  description:
    "What changed in this project outside your session. Files modified by someone else or another agent, git commits and branch moves; check before editing a file you read earlier.",
  input: z.object({
    since_min: clampedInt(1, 43_200).default(30).describe("Lookback, minutes"),
  }),
  output: externalChangesSchema,
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  run(context, input) {
    const ctx = agentContext(context);
    return externalChanges(ctx, ctx.cwd, clamp(input.since_min, 1, 43_200, 30));
  },
});
