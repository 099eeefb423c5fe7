/**
 * The team store on PostgreSQL: the people a team server knows, with the same answers and
 * errors as SQLite's (../../team/people.ts). A person's change and the revocation count it
 * advances commit together (one write), so a process caching token lookups sees the count
 * move with the change, whichever server made it.
 *
 * @module
 */
import { VantageError } from "../../../core/errors.ts";
import {
  type NewPerson,
  PERSON,
  personOf,
  type PersonRow,
  REVOCATIONS_KEY,
} from "../../team/people.ts";
import type { TeamStore } from "../../team/team_store.ts";
import { bindQueryable } from "../binding.ts";
import type { PgQueryable } from "../connection.ts";
import { getStoreMeta } from "../store_meta.ts";

async function personWhere(
  q: PgQueryable,
  column: "name" | "token_hash",
  value: string,
): Promise<PersonRow | undefined> {
  const row = PERSON.optional(
    (await q.query(`SELECT ${PERSON.columns} FROM team_people WHERE ${column} = $1`, [value]))[0],
  );
  return row === undefined ? undefined : personOf(row);
}

/** The person named `name`, revoked or not. */
export function findPerson(q: PgQueryable, name: string): Promise<PersonRow | undefined> {
  return personWhere(q, "name", name);
}

/** The person whose token has this SHA-256, revoked or not. */
export function findPersonByTokenHash(
  q: PgQueryable,
  tokenHash: string,
): Promise<PersonRow | undefined> {
  return personWhere(q, "token_hash", tokenHash);
}

/** Everyone, by name. */
export async function listPeople(q: PgQueryable): Promise<PersonRow[]> {
  return PERSON.all(await q.query(`SELECT ${PERSON.columns} FROM team_people ORDER BY name`))
    .map(personOf);
}

/** Tokens revoked or replaced so far. */
export async function revocationCount(q: PgQueryable): Promise<number> {
  return Number(await getStoreMeta(q, REVOCATIONS_KEY) ?? "0");
}

async function countRevocation(q: PgQueryable): Promise<void> {
  // The row lock on the setting orders concurrent revocations, so none is counted away.
  await q.query(
    `INSERT INTO store_meta (key, value) VALUES ($1, '1')
     ON CONFLICT (key) DO UPDATE SET value = (store_meta.value::bigint + 1)::text`,
    [REVOCATIONS_KEY],
  );
}

/**
 * Stores a person with a new token; `conflict` while theirs is valid, unless `replace`.
 * The row is locked while it is decided, so two admins adding one name at once cannot both
 * think it free.
 */
export function addPerson(
  q: PgQueryable,
  person: NewPerson,
  options: { replace?: boolean } = {},
): Promise<PersonRow> {
  return q.write(async (w) => {
    const existing = PERSON.optional(
      (await w.query(`SELECT ${PERSON.columns} FROM team_people WHERE name = $1 FOR UPDATE`, [
        person.name,
      ]))[0],
    );
    const replacing = existing !== undefined && existing.revoked_at === null;
    if (replacing && options.replace !== true) {
      throw new VantageError(
        "conflict",
        `'${person.name}' already has a valid token; revoke it first, or replace it`,
        { details: { name: person.name } },
      );
    }
    await w.query(
      `INSERT INTO team_people (name, role, token_hash, created_at, revoked_at)
       VALUES ($1, $2, $3, $4, NULL)
       ON CONFLICT (name) DO UPDATE SET role = excluded.role, token_hash = excluded.token_hash,
         created_at = excluded.created_at, revoked_at = NULL`,
      [person.name, person.role, person.token_hash, person.created_at],
    );
    if (replacing) await countRevocation(w);
    return (await findPerson(w, person.name))!;
  });
}

/** Revokes a person's token; `not_found` for an unknown name. */
export function revokePerson(q: PgQueryable, name: string, at: number): Promise<PersonRow> {
  return q.write(async (w) => {
    const existing = PERSON.optional(
      (await w.query(`SELECT ${PERSON.columns} FROM team_people WHERE name = $1 FOR UPDATE`, [
        name,
      ]))[0],
    );
    if (existing === undefined) {
      throw new VantageError("not_found", `no person named '${name}' on this server`, {
        details: { name },
      });
    }
    if (existing.revoked_at !== null) return personOf(existing);
    await w.query("UPDATE team_people SET revoked_at = $1 WHERE name = $2", [at, name]);
    await countRevocation(w);
    return (await findPerson(w, name))!;
  });
}

const PG_TEAM_FUNCTIONS = {
  addPerson,
  revokePerson,
  findPerson,
  findPersonByTokenHash,
  listPeople,
  revocationCount,
};

/** The team store on a pool (or one write's connection). */
export function pgTeamStore(q: PgQueryable): TeamStore<"async"> {
  return bindQueryable(q, PG_TEAM_FUNCTIONS);
}
