/**
 * The `session` cassette: YAMS session lifecycle — start, stop, pin, unpin
 * and watch.
 *
 * @module
 */
import type { Cassette } from "../../ops/operation.ts";
import { pinOperation } from "./pin.ts";
import { startOperation } from "./start.ts";
import { stopOperation } from "./stop.ts";
import { unpinOperation } from "./unpin.ts";
import { watchOperation } from "./watch.ts";

/** The built-in `session` cassette. */
export const sessionCassette: Cassette = {
  name: "session",
  source: "builtin",
  description:
    "Work sessions for document memory: start/stop a session that scopes search, pin documents to it, watch folders.",
  operations: [startOperation, stopOperation, pinOperation, unpinOperation, watchOperation],
};
