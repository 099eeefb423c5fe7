/**
 * `get_project_state`: the indexed structure of the caller's project.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { agentContext, READ_ONLY } from "./common.ts";
import { projectState } from "./state_builders.ts";

/** The `agent.get_project_state` operation. */
export const getProjectStateOperation: Operation = defineOperation({
  id: "agent.get_project_state",
  title: "Project state",
  description:
    "What this project is and how to build and test it. Languages, build system, test framework and folders, top-level directories, key files, commands; read it once in a new repo.",
  input: z.object({}),
  output: z.object({ root: z.string(), indexed: z.boolean() }).catchall(z.unknown()),
  scopes: ["agent:read"],
  annotations: READ_ONLY,
  async run(context) {
    const ctx = agentContext(context);
    return (await projectState(ctx, ctx.cwd)) as { root: string; indexed: boolean };
  },
});
