/**
 * Which failed PostgreSQL writes are run again: collisions between writers (deadlock,
 * serialization) and the npm client's unreserved `BEGIN`; never a refused record, a bad
 * statement or a server that went away (those reach the caller at once).
 */
import assert from "node:assert/strict";
import { writeToRunAgain } from "../../../src/store/postgres/connection.ts";

Deno.test("a write is run again after a deadlock, a serialization failure or the client's unreserved BEGIN", () => {
  assert.equal(writeToRunAgain({ code: "40P01" }), true);
  assert.equal(writeToRunAgain({ code: "40001" }), true);
  assert.equal(writeToRunAgain({ details: { code: "40P01" } }), true);
  const unreserved = Object.assign(new Error("Only use sql.begin, sql.reserved or max: 1"), {
    code: "UNSAFE_TRANSACTION",
  });
  assert.equal(writeToRunAgain(unreserved), true);
});

Deno.test("a refused record, a bad statement or an unreachable server is not run again", () => {
  for (const code of ["23505", "23503", "42P01", "42601", "57014", "08006", "ECONNREFUSED"]) {
    assert.equal(writeToRunAgain({ code }), false, code);
  }
  assert.equal(writeToRunAgain(new Error("no code")), false);
  assert.equal(writeToRunAgain(null), false);
  assert.equal(writeToRunAgain(undefined), false);
});
