/**
 * The person behind a caller, on a team server: a caller that presented a
 * person's token carries `person` (their name and role); the server's owner
 * (its own token, or any local process) carries none. Operations read it to
 * attribute what they store and to keep a member to their own data: a team
 * sees everyone's sessions and documents, but only their owner (or an
 * admin, or the server's owner) may change them.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import type { Caller } from "./operation.ts";

/** Who a person is to the operations: their name and role. */
export interface CallerPerson {
  /** Their name on the team server. */
  name: string;
  /** `member`: their own data only; `admin`: anyone's, and people too. */
  role: "member" | "admin";
}

/**
 * The person calling, or undefined for the server's owner.
 *
 * @example
 * ```ts
 * import { callerPerson } from "./caller_person.ts";
 * callerPerson({ scopes: [], person: { name: "ada", role: "member" } }); // { name: "ada", role: "member" }
 * callerPerson({ scopes: [] }); // undefined
 * ```
 */
export function callerPerson(caller: Caller): CallerPerson | undefined {
  const person = caller.person as Partial<CallerPerson> | undefined;
  if (person === undefined || typeof person !== "object" || person === null) return undefined;
  if (typeof person.name !== "string" || (person.role !== "member" && person.role !== "admin")) {
    return undefined;
  }
  return { name: person.name, role: person.role };
}

/**
 * The name to attribute a caller's writes to: the person's, or null for the
 * server's owner.
 */
export function attributedTo(caller: Caller): string | null {
  return callerPerson(caller)?.name ?? null;
}

/**
 * Refuses (`forbidden`) a member changing data that is not theirs: `owner`
 * is the person the data belongs to (null: the server's owner), `what`
 * names it ("session 7f3c…", "document notes.md"). Admins and the server's
 * owner may change anyone's.
 *
 * @example
 * ```ts
 * import { refuseOthersData } from "./caller_person.ts";
 * const ada = { scopes: [], person: { name: "ada", role: "member" } };
 * refuseOthersData(ada, "ada", "document a.md"); // passes
 * // refuseOthersData(ada, "bob", "document b.md") throws: document b.md belongs to bob
 * ```
 */
export function refuseOthersData(caller: Caller, owner: string | null, what: string): void {
  const person = callerPerson(caller);
  if (person === undefined || person.role === "admin" || owner === person.name) return;
  const whose = owner === null ? "the server's owner" : `'${owner}'`;
  throw new VantageError(
    "forbidden",
    `${what} belongs to ${whose}; '${person.name}' (a member) may change only their own data`,
    { details: { owner, person: person.name } },
  );
}
