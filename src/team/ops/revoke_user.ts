/**
 * `team.revoke_user`: ends a person's token. Their next request, to any
 * process serving this store, is refused (401); their data stays theirs.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  PEOPLE_WRITE,
  personEntry,
  personNameSchema,
  personSchema,
  teamContext,
} from "./shared.ts";

/** The `team.revoke_user` operation. */
export const revokeUserOperation: Operation = defineOperation({
  id: "team.revoke_user",
  title: "Revoke a person's token",
  description:
    "Revoke a person's bearer token: their next request is refused. What they sent stays attributed to them.",
  input: z.object({ name: personNameSchema.describe("The person to revoke") }),
  output: z.object({ person: personSchema }),
  scopes: ["admin"],
  annotations: { ...PEOPLE_WRITE, destructiveHint: true, idempotentHint: true },
  async run(context, input) {
    const { team, now } = teamContext(context);
    return { person: personEntry(await team.revokePerson(input.name, now)) };
  },
});
