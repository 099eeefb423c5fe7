/**
 * `get_session_state`: everything about one session — tool use, tokens,
 * focus, recent files, build error, outside changes — and, verbose, its
 * recent actions in order.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, clamp, READ_ONLY, resolveSession } from "./common.ts";
import { buildSessionState, sessionStateSchema } from "./state_builders.ts";

/** The `agent.get_session_state` operation. */
export const getSessionStateOperation: Operation = defineOperation({
  id: "agent.get_session_state",
  title: "Session state",
  description:
    "Full state of one session (default: the latest in your folder): tool calls and failures per tool, tokens and cost, current focus, recent files, last build error, files changed by others. verbose adds the recent actions in order.",
  input: z.object({
    session_id: z.string().optional().describe(
      "Session to inspect (default: the active one for your folder)",
    ),
    verbose: z.boolean().optional().describe("Include the chronological action list"),
    action_limit: z.number().int().optional().describe(
      "Actions in the verbose list, 1-200 (default 50)",
    ),
  }),
  output: sessionStateSchema,
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  run(context, input) {
    const ctx = agentContext(context);
    const session = resolveSession(ctx, input.session_id);
    const actions = input.verbose === true ? clamp(input.action_limit, 1, 200, 50) : undefined;
    return buildSessionState(ctx, session, actions);
  },
});
