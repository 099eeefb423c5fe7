/**
 * What the `team` operations share: the team store and clock from the
 * context, and how a person's name and entry are written.
 *
 * @module
 */
import { z } from "zod";
import type { OperationAnnotations, OperationContext } from "../../ops/operation.ts";
import { CLOCK, STORE } from "../../ops/service_keys.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { PersonRow } from "../../store/team/people.ts";
import type { TeamStore } from "../../store/team/team_store.ts";

/** The team store (either backend: answers are awaited) and "now" of an operation's context. */
export function teamContext(
  context: OperationContext,
): { team: TeamStore<StoreMode>; now: number } {
  const services = context.services;
  return {
    team: services.get(STORE).team,
    now: services.has(CLOCK) ? services.get(CLOCK)() : Date.now(),
  };
}

/**
 * A person's name: what their hooks, sessions and documents are attributed to and what
 * `person` filters take. Letters, digits and `._@-`, starting with a letter or digit.
 */
export const personNameSchema = z.string().min(1).max(64).regex(
  /^[A-Za-z0-9][A-Za-z0-9._@-]*$/,
  "must be 1-64 letters, digits or . _ @ -, starting with a letter or digit",
);

/** One person as the operations show them (never their token or its hash). */
export const personSchema = z.object({
  name: z.string(),
  role: z.enum(["member", "admin"]),
  created_at: z.string().describe("When their current token was issued"),
  revoked_at: z.string().nullable().describe("When their token was revoked; null while valid"),
});

/** The entry of a stored person. */
export function personEntry(person: PersonRow): z.infer<typeof personSchema> {
  return {
    name: person.name,
    role: person.role,
    created_at: new Date(person.created_at).toISOString(),
    revoked_at: person.revoked_at === null ? null : new Date(person.revoked_at).toISOString(),
  };
}

/** The hints of a write to the people table. */
export const PEOPLE_WRITE: Readonly<OperationAnnotations> = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
