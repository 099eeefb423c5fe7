/**
 * `get_build_status`: the latest build or test run captured by
 * `vantage build`, with its parsed errors and whether it is stale.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, READ_ONLY } from "./common.ts";
import { buildStatus, buildStatusSchema } from "./state_builders.ts";

/** The `agent.get_build_status` operation. */
export const getBuildStatusOperation: Operation = defineOperation({
  id: "agent.get_build_status",
  title: "Build status",
  description:
    "Did the last build or test run fail, and where? The latest `vantage build` run: status, errors with file and line; stale when the failure is old.",
  input: z.object({
    tag: z.string().optional().describe("Build watcher tag (default: the latest of any)"),
  }),
  output: buildStatusSchema,
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  run(context, input) {
    return buildStatus(agentContext(context), input.tag);
  },
});
