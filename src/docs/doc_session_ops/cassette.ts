/**
 * The `doc_session` cassette: document sessions — a named scope for document
 * memory that search, list and grep can keep to (YAMS's session lifecycle:
 * start, stop, pin, unpin and watch). Not an agent's session: those are read
 * through the `agent` cassette. Each operation still answers to its id from
 * before the rename (`session.start`, …).
 *
 * @module
 */
import type { Cassette } from "../../ops/operation.ts";
import { pinOperation } from "./pin.ts";
import { startOperation } from "./start.ts";
import { stopOperation } from "./stop.ts";
import { unpinOperation } from "./unpin.ts";
import { watchOperation } from "./watch.ts";

/** The built-in `doc_session` cassette. */
export const docSessionCassette: Cassette = {
  name: "doc_session",
  source: "builtin",
  description:
    "Document sessions (not agent sessions): start/stop a session that scopes document search, pin documents to it, watch folders.",
  operations: [startOperation, stopOperation, pinOperation, unpinOperation, watchOperation],
};
