/**
 * The `team` cassette: managing the people of a team server — issuing
 * tokens, revoking them, listing who has one. Every operation needs the
 * `admin` scope.
 *
 * @module
 */
import type { Cassette } from "../../ops/operation.ts";
import { addUserOperation } from "./add_user.ts";
import { listUsersOperation } from "./list_users.ts";
import { revokeUserOperation } from "./revoke_user.ts";

/** The built-in `team` cassette. */
export const teamCassette: Cassette = {
  name: "team",
  source: "builtin",
  description:
    "People of a team server (admin scope): issue a person's bearer token, revoke it, list people.",
  operations: [addUserOperation, revokeUserOperation, listUsersOperation],
};
