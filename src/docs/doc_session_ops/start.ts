/**
 * `doc_session.start`: begins (or resumes) a named session and makes it
 * current; documents added from now on carry it, in every process.
 *
 * @module
 */
import { z } from "zod";
import { beginSession } from "../doc_sessions.ts";
import { docsContext, labelSchema, sessionNameSchema } from "../ops/shared.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { STORE } from "../../ops/service_keys.ts";
import { sessionInfoSchema } from "./shared.ts";

/** The `doc_session.start` operation. */
export const startOperation: Operation = defineOperation({
  id: "doc_session.start",
  aliases: ["session.start"],
  title: "Start a document session",
  description:
    "Begin (or resume by `name`) a document session and make it current. Documents added meanwhile carry it; use_session searches see only them and what is pinned.",
  input: z.object({
    name: sessionNameSchema.optional().describe("Session name (default: session-<time>)"),
    label: labelSchema.optional().describe("Human label"),
    description: z.string().optional().describe("What the session is for"),
  }),
  output: sessionInfoSchema.extend({ resumed: z.boolean() }),
  scopes: ["session:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async run(context, input) {
    const docs = docsContext(context);
    const { session, resumed } = await beginSession(
      context.services.get(STORE),
      input.name,
      input.label,
      input.description,
      docs.now,
    );
    return { ...session, resumed };
  },
});
