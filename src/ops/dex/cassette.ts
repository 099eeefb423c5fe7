/**
 * The `dex` cassette: the catalog's own introspection operations.
 *
 * @module
 */
import type { Cassette } from "../operation.ts";
import { describeOperation } from "./describe.ts";
import { listCassettesOperation } from "./list_cassettes.ts";

/** The built-in `dex` cassette. */
export const dexCassette: Cassette = {
  name: "dex",
  source: "builtin",
  description: "Introspection: describe operations and list the cassettes that provide them.",
  operations: [describeOperation, listCassettesOperation],
};
