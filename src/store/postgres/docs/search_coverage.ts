/**
 * Which documents the keyword index (`docs_search`) holds, for the server's verification: a
 * latest text document it lacks cannot be found by a keyword, and a row of another document is
 * an index out of step with the store. SQLite reads the same of its index file
 * (../../../docs/index_check.ts).
 *
 * @module
 */
import { RowReader } from "../../rows.ts";
import type { PgQueryable } from "../connection.ts";
import { readRows } from "../reads.ts";

const ID = new RowReader<{ id: number }>("indexed document", { id: "number" });

/** The ids of the documents the keyword index holds, ascending. */
export async function indexedDocumentIds(q: PgQueryable): Promise<number[]> {
  return (await readRows(q, ID, "SELECT document_id AS id FROM docs_search ORDER BY 1", []))
    .map((row) => row.id);
}
