/**
 * `get_context_bundle`: the whole situation in one call — the same facts the
 * prompt hook injects: session state, anomalies for the next prompt, build,
 * outside changes and project.
 *
 * @module
 */
import { z } from "zod";
import { buildSnapshot, renderContext } from "../../perception/mod.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, READ_ONLY, resolveSession } from "./common.ts";
import {
  anomalySchema,
  buildAnomalies,
  buildSessionState,
  buildStatus,
  buildStatusSchema,
  externalChanges,
  externalChangesSchema,
  projectState,
  sessionStateSchema,
} from "./state_builders.ts";

/** The `agent.get_context_bundle` operation. */
export const getContextBundleOperation: Operation = defineOperation({
  id: "agent.get_context_bundle",
  title: "Context bundle",
  description:
    "Everything Vantage knows now, in one call. Your session's state, anomalies, build status, outside changes and project structure; use it when context feels stale.",
  input: z.object({
    session_id: z.string().optional().describe("Session (default: your latest)"),
    cwd: z.string().optional().describe("Project folder (default: yours)"),
  }),
  output: z.object({
    project: z.string(),
    session: sessionStateSchema.optional(),
    anomalies: z.array(anomalySchema),
    build: buildStatusSchema,
    external_changes: externalChangesSchema,
    project_state: z.record(z.string(), z.unknown()),
    context: z.string().describe("The <vantage-context> block the prompt hook would inject"),
    note: z.string().optional(),
  }),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const ctx = agentContext(context, input.cwd);
    const session = input.session_id !== undefined
      ? await resolveSession(ctx, input.session_id)
      : await ctx.store.agent.latestSessionFor(ctx.cwd, ctx.caller);
    const project = session?.project ?? session?.cwd ?? ctx.cwd;
    const bundle: Record<string, unknown> = {
      project,
      anomalies: session === undefined
        ? []
        : await buildAnomalies(ctx, session.session_id, "next_prompt"),
      build: await buildStatus(ctx),
      external_changes: await externalChanges(ctx, project, 30),
      project_state: await projectState(ctx, project),
    };
    bundle.context = session === undefined ? "" : renderContext(
      await buildSnapshot(ctx.store.perception, session.session_id, project, ctx.now),
      undefined,
      {
        force: true,
      },
    ).text;
    if (session !== undefined) bundle.session = await buildSessionState(ctx, session);
    else bundle.note = `no session recorded for ${ctx.cwd} yet`;
    return bundle as never;
  },
});
