/**
 * Listing documents: the filters shared by list, search and grep (by
 * session, type, extension, collection, snapshot, tags), the sorted and
 * paged list, and the totals behind `status` (documents, contents, file
 * types; the collections are in collections.ts).
 *
 * @module
 */
import type { SQLInputValue } from "node:sqlite";
import type { DatabaseSync } from "../database.ts";
import { numberColumn, RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { DOCUMENT, DOCUMENT_COLUMNS, type DocumentRow } from "./documents.ts";

const COUNT = new RowReader<{ n: number }>("count", { n: "number" });

/** Conditions a document must meet. */
export interface DocumentFilter {
  /** Only the latest version of each path (default true). */
  latestOnly?: boolean;
  /** Only documents added in this session or pinned to it. */
  session?: string;
  /** Only text (true) or binary (false) documents. */
  isText?: boolean;
  /** Only this extension (with or without the dot, any case). */
  extension?: string;
  /** Only documents in this collection (among any others they are in). */
  collection?: string;
  /** Only documents belonging to this snapshot. */
  snapshotId?: string;
  /** Only documents carrying every one of these tags. */
  tags?: readonly string[];
}

/** A WHERE fragment over alias `d`, with its parameters. */
interface SqlFragment {
  /** SQL text, always safe to put after WHERE. */
  sql: string;
  /** Positional parameters in order. */
  params: SQLInputValue[];
}

/** Builds the WHERE conditions for a filter (over `docs_documents d`). */
function filterSql(filter: DocumentFilter): SqlFragment {
  const parts: string[] = [];
  const params: SQLInputValue[] = [];
  if (filter.latestOnly !== false) parts.push("d.is_latest = 1");
  if (filter.session !== undefined) {
    parts.push(
      "(d.session_id = ? OR d.id IN (SELECT document_id FROM docs_session_pins WHERE session_id = ?))",
    );
    params.push(filter.session, filter.session);
  }
  if (filter.isText !== undefined) {
    parts.push("d.is_text = ?");
    params.push(filter.isText ? 1 : 0);
  }
  if (filter.extension !== undefined && filter.extension !== "") {
    const ext = filter.extension.startsWith(".") ? filter.extension : "." + filter.extension;
    parts.push("d.extension = ?");
    params.push(ext.toLowerCase());
  }
  if (filter.collection !== undefined) {
    parts.push("d.id IN (SELECT document_id FROM docs_collection_members WHERE collection = ?)");
    params.push(filter.collection);
  }
  if (filter.snapshotId !== undefined) {
    parts.push(
      "(d.snapshot_id = ? OR d.id IN (SELECT document_id FROM docs_snapshot_members WHERE snapshot_id = ?))",
    );
    params.push(filter.snapshotId, filter.snapshotId);
  }
  for (const tag of filter.tags ?? []) {
    parts.push("d.id IN (SELECT document_id FROM docs_tags WHERE tag = ?)");
    params.push(tag);
  }
  return { sql: parts.length === 0 ? "1" : parts.join(" AND "), params };
}

/** Whether a filter restricts anything beyond "latest versions". */
export function isNarrowFilter(filter: DocumentFilter): boolean {
  return filter.session !== undefined || filter.isText !== undefined ||
    (filter.extension !== undefined && filter.extension !== "") ||
    filter.collection !== undefined || filter.snapshotId !== undefined ||
    (filter.tags !== undefined && filter.tags.length > 0) || filter.latestOnly === false;
}

/** Ids of every document a filter selects. */
export function filteredIds(db: DatabaseSync, filter: DocumentFilter): number[] {
  const where = filterSql(filter);
  return numberColumn(
    prepared(db, `SELECT d.id FROM docs_documents d WHERE ${where.sql}`).all(...where.params),
    "id",
  );
}

/** Sort keys of {@linkcode listDocuments}. */
export type DocumentSort = "name" | "size" | "created" | "modified" | "indexed" | "path";

const SORT_COLUMNS: Record<DocumentSort, string> = {
  name: "d.name",
  size: "d.size",
  created: "d.created_at",
  modified: "d.modified_at",
  indexed: "d.indexed_at",
  path: "d.path",
};

/** Options of {@linkcode listDocuments}. */
export interface ListQuery {
  /** Which documents. */
  filter: DocumentFilter;
  /** Sort key (default indexed). */
  sortBy?: DocumentSort;
  /** Sort direction (default desc). */
  order?: "asc" | "desc";
  /** Page size; undefined for everything. */
  limit?: number;
  /** Rows to skip. */
  offset?: number;
}

/** Lists documents matching a filter, sorted and paged, with the total before paging. */
export function listDocuments(
  db: DatabaseSync,
  query: ListQuery,
): { total: number; rows: DocumentRow[] } {
  const where = filterSql(query.filter);
  const total = COUNT.one(
    prepared(db, `SELECT count(*) AS n FROM docs_documents d WHERE ${where.sql}`).get(
      ...where.params,
    ),
  ).n;
  const column = SORT_COLUMNS[query.sortBy ?? "indexed"];
  const direction = query.order === "asc" ? "ASC" : "DESC";
  const limit = query.limit ?? -1;
  const rows = DOCUMENT.all(
    prepared(
      db,
      `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE ${where.sql}
     ORDER BY ${column} ${direction}, d.id ${direction} LIMIT ? OFFSET ?`,
    ).all(...where.params, limit, query.offset ?? 0),
  );
  return { total, rows };
}

/** Document totals for `status`. */
export interface DocumentTotals {
  /** Document rows (every version). */
  documents: number;
  /** Their bytes. */
  bytes: number;
  /** Latest versions only. */
  latest_documents: number;
  /** Latest text documents. */
  text_documents: number;
  /** Latest binary documents. */
  binary_documents: number;
  /** Distinct contents. */
  contents: number;
  /** Bytes of distinct contents. */
  content_bytes: number;
}

const DOCUMENT_COUNTS = new RowReader<
  Omit<DocumentTotals, "contents" | "content_bytes">
>("document totals", {
  documents: "number",
  bytes: "number",
  latest_documents: "number",
  text_documents: "number",
  binary_documents: "number",
});

const CONTENT_COUNTS = new RowReader<Pick<DocumentTotals, "contents" | "content_bytes">>(
  "content totals",
  { contents: "number", content_bytes: "number" },
);

/** Counts documents and contents. */
export function documentTotals(db: DatabaseSync): DocumentTotals {
  const docs = DOCUMENT_COUNTS.one(
    prepared(
      db,
      `SELECT count(*) AS documents, coalesce(sum(size), 0) AS bytes,
            coalesce(sum(is_latest), 0) AS latest_documents,
            coalesce(sum(is_latest AND is_text), 0) AS text_documents,
            coalesce(sum(is_latest AND NOT is_text), 0) AS binary_documents
     FROM docs_documents`,
    ).get(),
  );
  const contents = CONTENT_COUNTS.one(
    prepared(
      db,
      "SELECT count(*) AS contents, coalesce(sum(size), 0) AS content_bytes FROM docs_contents",
    ).get(),
  );
  return {
    documents: docs.documents,
    bytes: docs.bytes,
    latest_documents: docs.latest_documents,
    text_documents: docs.text_documents,
    binary_documents: docs.binary_documents,
    contents: contents.contents,
    content_bytes: contents.content_bytes,
  };
}

/** Per-type counts for `status` with `file_types`. */
export interface FileTypeCount {
  /** Extension with its dot, or "" for none. */
  extension: string;
  /** MIME type. */
  mime: string;
  /** Latest documents of this type. */
  count: number;
  /** Their bytes. */
  bytes: number;
}

const FILE_TYPE_COUNT = new RowReader<FileTypeCount>("file type count", {
  extension: "text",
  mime: "text",
  count: "number",
  bytes: "number",
});

/** Latest documents grouped by extension and MIME type, most numerous first. */
export function fileTypeCounts(db: DatabaseSync): FileTypeCount[] {
  return FILE_TYPE_COUNT.all(
    prepared(
      db,
      `SELECT extension, mime, count(*) AS count, sum(size) AS bytes FROM docs_documents
     WHERE is_latest = 1 GROUP BY extension, mime ORDER BY count DESC, extension`,
    ).all(),
  );
}
