/**
 * `get_anomalies`: a session's active anomalies (loops, repeated failures,
 * stale views), as the suppression rules leave them.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, READ_ONLY, resolveSession } from "./common.ts";
import { anomalySchema, buildAnomalies } from "./state_builders.ts";

/** The `agent.get_anomalies` operation. */
export const getAnomaliesOperation: Operation = defineOperation({
  id: "agent.get_anomalies",
  title: "Anomalies",
  description:
    "Is this session going in circles? Its active anomalies: repeated failures, stale file views, loops, edit churn, context pressure, each with evidence and a suggestion.",
  input: z.object({
    session_id: z.string().optional().describe("Session (default: your latest)"),
  }),
  output: z.object({
    session_id: z.string(),
    count: z.number().int(),
    anomalies: z.array(anomalySchema),
    note: z.string().optional(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const session = await resolveSession(ctx, input.session_id);
    const anomalies = await buildAnomalies(ctx, session.session_id);
    return {
      session_id: session.session_id,
      count: anomalies.length,
      anomalies,
      ...(anomalies.length === 0 ? { note: "no active anomalies for this session" } : {}),
    };
  },
});
