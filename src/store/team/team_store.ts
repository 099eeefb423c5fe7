/**
 * What the rest of Vantage asks of the team store: the interface every
 * backend implements (SQLite here; PostgreSQL for team mode), and its
 * SQLite implementation, the functions of this folder bound to a
 * connection.
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { type Answer, bindConnection, type StoreMode } from "../repository.ts";
import {
  addPerson,
  findPerson,
  findPersonByTokenHash,
  listPeople,
  type NewPerson,
  type PersonRow,
  revocationCount,
  revokePerson,
} from "./people.ts";

/**
 * The team store: the people a server issued tokens to. Each method is the
 * function of the same name in this folder.
 */
export interface TeamStore<M extends StoreMode = "sync"> {
  /**
   * Stores a person with a new token (a revoked person's row takes it); `conflict` while
   * theirs is valid, unless `replace` (the old token then stops working, counted as revoked).
   */
  addPerson(person: NewPerson, options?: { replace?: boolean }): Answer<PersonRow, M>;
  /** Revokes a person's token; `not_found` for an unknown name. */
  revokePerson(name: string, at: number): Answer<PersonRow, M>;
  /** The person named `name`, revoked or not. */
  findPerson(name: string): Answer<PersonRow | undefined, M>;
  /** The person whose token has this SHA-256, revoked or not. */
  findPersonByTokenHash(tokenHash: string): Answer<PersonRow | undefined, M>;
  /** Everyone, by name (no token hashes). */
  listPeople(): Answer<PersonRow[], M>;
  /** Tokens revoked or replaced so far: a cache filled at another count may hold a dead token. */
  revocationCount(): Answer<number, M>;
}

const SQLITE_TEAM_FUNCTIONS = {
  addPerson,
  revokePerson,
  findPerson,
  findPersonByTokenHash,
  listPeople,
  revocationCount,
};

/**
 * The SQLite team store on one connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "../database.ts";
 * import { sqliteTeamStore } from "./team_store.ts";
 * const team = sqliteTeamStore(openDatabase(":memory:"));
 * team.listPeople(); // []
 * ```
 */
export function sqliteTeamStore(db: DatabaseSync): TeamStore<"sync"> {
  return bindConnection(db, SQLITE_TEAM_FUNCTIONS);
}
