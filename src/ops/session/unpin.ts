/**
 * `session.unpin`: takes pinned documents out of a session's scope.
 *
 * @module
 */
import { setPins, targetSession } from "../../memory/doc_sessions.ts";
import { docsContext } from "../docs/shared.ts";
import { defineOperation, type Operation } from "../operation.ts";
import { pinInputSchema, pinOutputSchema, pinTargets } from "./shared.ts";

/** The `session.unpin` operation. */
export const unpinOperation: Operation = defineOperation({
  id: "session.unpin",
  title: "Unpin documents from a session",
  description:
    "Unpin documents (by `hash`, `name`, or `path` glob) from the current session. Documents added in the session stay in its scope.",
  input: pinInputSchema,
  output: pinOutputSchema,
  scopes: ["session:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  composite: { tool: "session", name: "unpin" },
  run(context, input) {
    const docs = docsContext(context);
    const session = targetSession(docs.db, input.session);
    const documents = pinTargets(docs.db, input);
    const changed = setPins(
      docs.db,
      session.session_id,
      documents.map((d) => d.id),
      false,
      docs.now,
    );
    return { session_id: session.session_id, matched: documents.length, changed, documents };
  },
});
