/**
 * The team feature's public face: the people of a team server. Their
 * tokens (issued once, stored as SHA-256), who holds a bearer token
 * (cached, invalidated by any revocation), and the `team` cassette of
 * operations that manage people under the `admin` scope. Code outside
 * `src/team/` imports the feature from here.
 *
 * @module
 */

export { teamCassette } from "./ops/cassette.ts";
export { PersonTokens } from "./person_tokens.ts";
export type { TokenHolder } from "./person_tokens.ts";
export { isPersonToken, issuePersonToken, PERSON_TOKEN_PREFIX, personTokenHash } from "./tokens.ts";
