/**
 * `session.pin`: makes stored documents part of a session's scope without
 * re-adding them.
 *
 * @module
 */
import { setPins, targetSession } from "../../memory/doc_sessions.ts";
import { docsContext } from "../docs/shared.ts";
import { defineOperation, type Operation } from "../operation.ts";
import { pinInputSchema, pinOutputSchema, pinTargets } from "./shared.ts";

/** The `session.pin` operation. */
export const pinOperation: Operation = defineOperation({
  id: "session.pin",
  title: "Pin documents to a session",
  description:
    "Pin stored documents (by `hash`, `name`, or `path` glob) to the current session, so session-scoped search, list, grep and suggest_context include them.",
  input: pinInputSchema,
  output: pinOutputSchema,
  scopes: ["session:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  composite: { tool: "session", name: "pin" },
  run(context, input) {
    const docs = docsContext(context);
    const session = targetSession(docs.db, input.session);
    const documents = pinTargets(docs.db, input);
    const changed = setPins(
      docs.db,
      session.session_id,
      documents.map((d) => d.id),
      true,
      docs.now,
    );
    return { session_id: session.session_id, matched: documents.length, changed, documents };
  },
});
