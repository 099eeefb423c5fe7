/**
 * The people of a team server: who may send hooks and call operations with
 * a token of their own, in which role, and since when a token no longer
 * works. A token is looked up by its SHA-256; the store never sees the
 * token itself.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";
import { type DatabaseSync, writing } from "../database.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { getStoreMeta, setStoreMeta } from "../store_meta.ts";

/** What a person may do: a member reads everything and writes their own data; an admin also manages people. */
export type PersonRole = "member" | "admin";

/** The roles, in the order they grant more. */
export const PERSON_ROLES: readonly PersonRole[] = ["member", "admin"];

/** One person as listed: everything but their token's hash. */
export interface PersonRow {
  /** Their name, unique on this server. */
  name: string;
  /** Their role. */
  role: PersonRole;
  /** When their current token was issued, ms. */
  created_at: number;
  /** When their token was revoked, ms; null while it is valid. */
  revoked_at: number | null;
}

/** A person to store. */
export interface NewPerson {
  /** Their name. */
  name: string;
  /** Their role. */
  role: PersonRole;
  /** Hex SHA-256 of their token. */
  token_hash: string;
  /** Now, ms. */
  created_at: number;
}

/** The `store_meta` key counting revocations (see {@linkcode revocationCount}). */
export const REVOCATIONS_KEY = "team.revocations";

/** How a person row is read (the columns every backend's `team_people` answers). */
export const PERSON = new RowReader<{
  name: string;
  role: string;
  created_at: number;
  revoked_at: number | null;
}>("person", { name: "text", role: "text", created_at: "number", revoked_at: "number?" });

/**
 * A stored person row as a {@linkcode PersonRow}: the role checked (the same on every backend).
 */
export function personOf(
  row: { name: string; role: string; created_at: number; revoked_at: number | null },
): PersonRow {
  if (row.role !== "member" && row.role !== "admin") {
    throw new VantageError(
      "internal_error",
      `person '${row.name}' has role '${row.role}', which is neither member nor admin`,
    );
  }
  return { name: row.name, role: row.role, created_at: row.created_at, revoked_at: row.revoked_at };
}

/** The person named `name`, if known (revoked or not). */
export function findPerson(db: DatabaseSync, name: string): PersonRow | undefined {
  const row = PERSON.optional(
    prepared(db, `SELECT ${PERSON.columns} FROM team_people WHERE name = ?`).get(name),
  );
  return row === undefined ? undefined : personOf(row);
}

/** The person whose token hashes to `tokenHash` (revoked or not). */
export function findPersonByTokenHash(
  db: DatabaseSync,
  tokenHash: string,
): PersonRow | undefined {
  const row = PERSON.optional(
    prepared(db, `SELECT ${PERSON.columns} FROM team_people WHERE token_hash = ?`).get(tokenHash),
  );
  return row === undefined ? undefined : personOf(row);
}

/** Everyone, by name. */
export function listPeople(db: DatabaseSync): PersonRow[] {
  return PERSON.all(
    prepared(db, `SELECT ${PERSON.columns} FROM team_people ORDER BY name`).all(),
  ).map(personOf);
}

/**
 * Stores a person with a new token. A revoked person's row takes the new
 * token, role and time (their past data stays theirs). A person whose token
 * is still valid is a `conflict`, unless `replace`: then the new token
 * replaces it (rotation), and the old one stops working as if revoked.
 */
export function addPerson(
  db: DatabaseSync,
  person: NewPerson,
  options: { replace?: boolean } = {},
): PersonRow {
  return writing(db, () => {
    const existing = findPerson(db, person.name);
    const replacing = existing !== undefined && existing.revoked_at === null;
    if (replacing && options.replace !== true) {
      throw new VantageError(
        "conflict",
        `'${person.name}' already has a valid token; revoke it first, or replace it`,
        { details: { name: person.name } },
      );
    }
    prepared(
      db,
      `INSERT INTO team_people (name, role, token_hash, created_at, revoked_at)
       VALUES (?, ?, ?, ?, NULL)
       ON CONFLICT (name) DO UPDATE SET role = excluded.role, token_hash = excluded.token_hash,
         created_at = excluded.created_at, revoked_at = NULL`,
    ).run(person.name, person.role, person.token_hash, person.created_at);
    // A cache holding the replaced token must drop it, as after a revocation.
    if (replacing) countRevocation(db);
    return findPerson(db, person.name)!;
  });
}

function countRevocation(db: DatabaseSync): void {
  setStoreMeta(db, REVOCATIONS_KEY, String(revocationCount(db) + 1));
}

/**
 * Revokes `name`'s token at `at` and counts the revocation, in one write;
 * `not_found` for a name nobody has. Revoking again keeps the first time.
 */
export function revokePerson(db: DatabaseSync, name: string, at: number): PersonRow {
  return writing(db, () => {
    const existing = findPerson(db, name);
    if (existing === undefined) {
      throw new VantageError("not_found", `no person named '${name}' on this server`, {
        details: { name },
      });
    }
    if (existing.revoked_at !== null) return existing;
    prepared(db, "UPDATE team_people SET revoked_at = ? WHERE name = ?").run(at, name);
    countRevocation(db);
    return findPerson(db, name)!;
  });
}

/**
 * How many tokens stopped working (revoked or replaced): a cache of token
 * lookups is good while this number is what it was when the cache was filled.
 */
export function revocationCount(db: DatabaseSync): number {
  const text = getStoreMeta(db, REVOCATIONS_KEY);
  const count = text === undefined ? 0 : Number(text);
  return Number.isSafeInteger(count) ? count : 0;
}
