/**
 * `doc_session.unpin`: takes pinned documents out of a session's scope.
 *
 * @module
 */
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { pinInputSchema, pinOutputSchema, runPin } from "./shared.ts";

/** The `doc_session.unpin` operation. */
export const unpinOperation: Operation = defineOperation({
  id: "doc_session.unpin",
  aliases: ["session.unpin"],
  title: "Unpin documents from a document session",
  description:
    "Unpin documents from the current document session. By `hash`, `name` or `path` glob; documents added in the session stay in its scope.",
  input: pinInputSchema,
  output: pinOutputSchema,
  scopes: ["session:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: (context, input) => runPin(context, input, false),
});
