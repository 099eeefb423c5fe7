/**
 * `team.add_user`: issues a person a token for this team server. The token
 * is in this answer only: the store keeps its SHA-256. Adding a person who
 * holds a valid token is refused unless `replace` (rotation).
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { issuePersonToken, personTokenHash } from "../tokens.ts";
import {
  PEOPLE_WRITE,
  personEntry,
  personNameSchema,
  personSchema,
  teamContext,
} from "./shared.ts";

/** The `team.add_user` operation. */
export const addUserOperation: Operation = defineOperation({
  id: "team.add_user",
  title: "Add a person",
  description:
    "Issue a person a bearer token for this team server (member or admin). The token is shown in this answer only; `replace` rotates a valid one.",
  input: z.object({
    name: personNameSchema.describe("Their name, which their data is attributed to"),
    admin: z.boolean().default(false).describe("Admin role: may also manage people"),
    replace: z.boolean().default(false).describe(
      "When they hold a valid token: replace it (the old one stops working)",
    ),
  }),
  output: z.object({
    person: personSchema,
    token: z.string().describe("Their bearer token: shown now only, never stored"),
  }),
  scopes: ["admin"],
  annotations: PEOPLE_WRITE,
  async run(context, input) {
    const { team, now } = teamContext(context);
    const token = issuePersonToken();
    const person = await team.addPerson({
      name: input.name,
      role: input.admin ? "admin" : "member",
      token_hash: personTokenHash(token),
      created_at: now,
    }, { replace: input.replace });
    return { person: personEntry(person), token };
  },
});
