/**
 * `doc_session.stop`: ends the current (or named) session. Its documents stay;
 * only new additions stop carrying it.
 *
 * @module
 */
import { z } from "zod";
import { endSession } from "../doc_sessions.ts";
import { docsContext, sessionNameSchema } from "../ops/shared.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { STORE } from "../../ops/service_keys.ts";
import { sessionInfoSchema } from "./shared.ts";

/** The `doc_session.stop` operation. */
export const stopOperation: Operation = defineOperation({
  id: "doc_session.stop",
  aliases: ["session.stop"],
  title: "Stop a document session",
  description:
    "End the current document session (or the one named). Documents are kept; later ones are global again.",
  input: z.object({
    name: sessionNameSchema.optional().describe("Session to stop (default: the current one)"),
  }),
  output: sessionInfoSchema,
  scopes: ["session:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run(context, input) {
    return endSession(context.services.get(STORE), input.name, docsContext(context).now);
  },
});
