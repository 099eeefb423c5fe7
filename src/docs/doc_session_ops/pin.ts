/**
 * `doc_session.pin`: makes stored documents part of a session's scope without
 * re-adding them.
 *
 * @module
 */
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { pinInputSchema, pinOutputSchema, runPin } from "./shared.ts";

/** The `doc_session.pin` operation. */
export const pinOperation: Operation = defineOperation({
  id: "doc_session.pin",
  aliases: ["session.pin"],
  title: "Pin documents to a document session",
  description:
    "Pin stored documents to the current document session. By `hash`, `name` or `path` glob, so session-scoped search, list, grep and suggest_context include them.",
  input: pinInputSchema,
  output: pinOutputSchema,
  scopes: ["session:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  run: (context, input) => runPin(context, input, true),
});
