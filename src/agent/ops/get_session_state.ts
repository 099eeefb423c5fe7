/**
 * `get_session_state`: everything about one session — tool use, tokens,
 * focus, recent files, build error, outside changes — and, verbose, its
 * recent actions in order.
 *
 * @module
 */
import { z } from "zod";
import { clampedInt } from "../../ops/clamped.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, READ_ONLY, resolveSession } from "./common.ts";
import { buildSessionState, sessionStateSchema } from "./state_builders.ts";

/** The `agent.get_session_state` operation. */
export const getSessionStateOperation: Operation = defineOperation({
  id: "agent.get_session_state",
  title: "Session state",
  description:
    "What a session did and where it stands. Tool calls and failures per tool, tokens and cost, focus, recent files, last build error, outside changes; verbose adds the recent actions.",
  input: z.object({
    session_id: z.string().optional().describe("Session (default: your latest)"),
    verbose: z.boolean().default(false).describe("Add the recent actions, in order"),
    action_limit: clampedInt(1, 200).default(50).describe("Actions listed when verbose"),
  }),
  output: sessionStateSchema,
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context);
    const session = await resolveSession(ctx, input.session_id);
    const actions = input.verbose === true ? clamp(input.action_limit, 1, 200, 50) : undefined;
    return await buildSessionState(ctx, session, actions);
  },
});
