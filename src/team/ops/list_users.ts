/**
 * `team.list_users`: the people of this team server, their roles and
 * whether their tokens still work (never a token).
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation, READ_ONLY_ANNOTATIONS } from "../../ops/operation.ts";
import { personEntry, personSchema, teamContext } from "./shared.ts";

/** The `team.list_users` operation. */
export const listUsersOperation: Operation = defineOperation({
  id: "team.list_users",
  title: "List people",
  description:
    "List the people of this team server with their roles and token state (tokens are never shown).",
  input: z.object({}),
  output: z.object({ count: z.number().int(), people: z.array(personSchema) }),
  scopes: ["admin"],
  annotations: READ_ONLY_ANNOTATIONS,
  async run(context) {
    const people = (await teamContext(context).team.listPeople()).map(personEntry);
    return { count: people.length, people };
  },
});
