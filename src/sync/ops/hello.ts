/**
 * `sync.hello`: what `vantage sync` asks a team server first — the id of
 * the server's store (the client keeps its cursors per server store, so a
 * new or rebuilt server is sent everything again), who the caller is to
 * it, how large a push may be, and whether it takes documents (a server on
 * SQLite or on PostgreSQL does; one whose document engine cannot run says
 * why, and the client then sends its history and keeps its documents for a
 * later sync, saying so, instead of retrying).
 *
 * @module
 */
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import { defineOperation, type Operation, type OperationContext } from "../../ops/operation.ts";
import { DATABASE, DOCUMENT_SEARCH } from "../../ops/service_keys.ts";
import { PUSH_ARGUMENT_CHARS } from "../wire.ts";
import { PUSH_ANNOTATIONS, pusherOf, SYNC_SCOPE, syncStore } from "./shared.ts";

/** Where a server keeps the id of its store. */
export const SERVER_ID_KEY = "sync.server_id";

/** The `sync.hello` operation. */
export const helloOperation: Operation = defineOperation({
  id: "sync.hello",
  title: "Start a sync",
  description:
    "Name this server's store and who the caller is to it (person, host), before pushing history with sync.push.",
  input: z.object({}),
  output: z.object({
    server_id: z.string().describe("Id of this server's store"),
    person: z.string().nullable().describe("Whose records pushes become; null: the owner"),
    host: z.string().nullable().describe("The host the caller named"),
    max_argument_chars: z.number().int().describe("Largest push, characters of JSON"),
    documents: z.object({
      taken: z.boolean().describe("Whether sync.push_documents can store documents here"),
      reason: z.string().optional().describe("Why not, when not"),
    }),
  }),
  scopes: [SYNC_SCOPE],
  // The first hello gives the store its id.
  annotations: PUSH_ANNOTATIONS,
  async run(context) {
    const store = syncStore(context);
    if (await store.getStoreMeta(SERVER_ID_KEY) === undefined) {
      await store.setStoreMeta(SERVER_ID_KEY, crypto.randomUUID());
    }
    const pusher = pusherOf(context);
    return {
      server_id: (await store.getStoreMeta(SERVER_ID_KEY))!,
      person: pusher.person,
      host: pusher.host,
      max_argument_chars: PUSH_ARGUMENT_CHARS,
      documents: documentsTaken(context),
    };
  },
});

/**
 * Whether this server can store pushed documents: a server on PostgreSQL stores them with the
 * engine on the database (it has the database's keyword search); otherwise the engine runs on
 * the data home's SQLite database, which a server that cannot open it says why of.
 */
function documentsTaken(context: OperationContext): { taken: boolean; reason?: string } {
  if (context.services.has(DOCUMENT_SEARCH)) return { taken: true };
  try {
    context.services.get(DATABASE);
    return { taken: true };
  } catch (error) {
    if (error instanceof VantageError && error.kind === "unavailable") {
      return { taken: false, reason: error.message };
    }
    throw error;
  }
}
