/**
 * `sync.push`: a team server takes a batch of another store's history as
 * the caller's (see `../push_history.ts` for the keys that keep it counted
 * once and the ownership rules).
 *
 * @module
 */
import { z } from "zod";
import { callPrice, loadPriceOverrides } from "../../agent/mod.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { MESSAGES_STORED, PATHS } from "../../ops/service_keys.ts";
import { pushHistory, REFUSED_LISTED } from "../push_history.ts";
import { historyBatchSchema, PUSH_ARGUMENT_CHARS } from "../wire.ts";
import { PUSH_ANNOTATIONS, PUSH_TIMEOUT_MS, pusherOf, SYNC_SCOPE, syncStore } from "./shared.ts";

// A new schema each time: zod would share one instance between fields, bounds and all.
const counted = () => z.number().int();

/** The `sync.push` operation. */
export const pushOperation: Operation = defineOperation({
  id: "sync.push",
  title: "Push history",
  description:
    "Store a batch of another store's sessions, hook events, transcript messages, model calls and tool outcomes as the caller's, each once by its key. What vantage sync sends.",
  input: historyBatchSchema,
  output: z.object({
    sessions_created: counted(),
    events: counted().describe("Hook events new to this server"),
    messages: counted().describe("Messages new to this server"),
    usage: counted().describe("Model calls new to this server"),
    outcomes: counted(),
    refused: counted().describe("Records refused: their session is another person's"),
    refused_sessions: z.array(z.object({
      session_id: z.string(),
      owner: z.string().nullable(),
      records: counted(),
    })).describe(`The first ${REFUSED_LISTED} sessions refused`),
    invalid: z.array(z.object({ what: z.string(), reason: z.string() })),
  }),
  scopes: [SYNC_SCOPE],
  annotations: PUSH_ANNOTATIONS,
  timeoutMs: PUSH_TIMEOUT_MS,
  maxArgumentChars: PUSH_ARGUMENT_CHARS,
  async run(context, batch) {
    const services = context.services;
    // Calls are priced as this server prices its own, with its owner's overrides.
    const prices = services.has(PATHS) ? loadPriceOverrides(services.get(PATHS).home) : undefined;
    const report = await pushHistory(
      syncStore(context),
      batch,
      pusherOf(context),
      (record) => callPrice(record, prices),
    );
    if (report.messages > 0 && services.has(MESSAGES_STORED)) services.get(MESSAGES_STORED)();
    return report;
  },
});
