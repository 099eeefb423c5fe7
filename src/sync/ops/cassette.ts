/**
 * The `sync` cassette: a team server taking a person's history and
 * documents from their own store (`vantage sync --to`). Every operation
 * needs the `sync:write` scope, which people's tokens hold and agents do not.
 *
 * @module
 */
import type { Cassette } from "../../ops/operation.ts";
import { helloOperation } from "./hello.ts";
import { pushOperation } from "./push.ts";
import { pushDocumentsOperation } from "./push_documents.ts";

/** The built-in `sync` cassette. */
export const syncCassette: Cassette = {
  name: "sync",
  source: "builtin",
  description:
    "Laptop to team (sync:write scope): push one's sessions, hook events, messages, model calls and documents to a team server.",
  operations: [helloOperation, pushOperation, pushDocumentsOperation],
};
