/**
 * Who a bearer token belongs to, asked on every request a team server
 * takes, answered from a small cache of lookups by hash.
 *
 * A revoked token must fail on the very next request, whichever process
 * revoked it (`vantage team revoke` runs beside `serve`). Each revocation
 * advances a count in the store (`team.revocations`, one indexed read): the
 * cache is kept only while that count is what it was when the cache was
 * filled, so a revocation anywhere empties every cache at its next lookup.
 * A token the store does not know is not cached, so a person added by
 * another process is known at once too.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { andThen, type Eventually } from "../core/eventually.ts";
import type { StoreMode } from "../store/repository.ts";
import type { PersonRow } from "../store/team/people.ts";
import type { TeamStore } from "../store/team/team_store.ts";
import { personTokenHash } from "./tokens.ts";

/** What a token is to the server. */
export type TokenHolder =
  | { kind: "person"; person: PersonRow }
  | { kind: "revoked"; person: PersonRow }
  | { kind: "unknown" };

/** Lookups kept at most; past it the cache starts over (a few hundred people is a big team). */
const CACHE_LIMIT = 4096;

/**
 * Resolves person tokens against a team store.
 *
 * @example
 * ```ts
 * import { openDatabase } from "../store/database.ts";
 * import { sqliteTeamStore } from "../store/team/team_store.ts";
 * import { PersonTokens } from "./person_tokens.ts";
 * const tokens = new PersonTokens(sqliteTeamStore(openDatabase(":memory:")));
 * tokens.holderOf("vtp_nobody").kind; // "unknown"
 * ```
 */
export class PersonTokens {
  readonly #team: TeamStore<StoreMode>;
  readonly #cache = new Map<string, PersonRow>();
  #revocations = -1;

  /** Resolves tokens against `team`. */
  constructor(team: TeamStore<StoreMode>) {
    this.#team = team;
  }

  /** Who holds `token`: a person, a person whose token was revoked, or nobody known. */
  holderOf(token: string): Eventually<TokenHolder> {
    const hash = personTokenHash(token);
    try {
      const answer = this.#lookUp(hash);
      return answer instanceof Promise
        ? answer.catch((error) => this.#whileAway(hash, error))
        : answer;
    } catch (error) {
      return this.#whileAway(hash, error);
    }
  }

  #lookUp(hash: string): Eventually<TokenHolder> {
    return andThen(this.#team.revocationCount(), (revocations) => {
      if (revocations !== this.#revocations) {
        this.#cache.clear();
        this.#revocations = revocations;
      }
      const cached = this.#cache.get(hash);
      const found = cached ?? this.#team.findPersonByTokenHash(hash);
      return andThen(found, (person): TokenHolder => {
        if (person === undefined) return { kind: "unknown" };
        if (cached === undefined) {
          if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
          this.#cache.set(hash, person);
        }
        return person.revoked_at === null
          ? { kind: "person", person }
          : { kind: "revoked", person };
      });
    });
  }

  /**
   * The store cannot be asked: a token this cache found valid at its last look stays valid
   * (no revocation can be written while the store is away; one written just before is caught
   * when what it sent is stored, see server/postgres_server.ts). Any other token waits for
   * the store: the error goes on.
   */
  #whileAway(hash: string, error: unknown): TokenHolder {
    const cached = this.#cache.get(hash);
    const away = error instanceof VantageError && error.kind === "unavailable";
    if (!away || cached === undefined || cached.revoked_at !== null) throw error;
    return { kind: "person", person: cached };
  }
}
