/**
 * Listing documents: the filters shared by list, search and grep (by
 * session, type, extension, collection, snapshot, tags), the sorted and
 * paged list, and the totals behind `status` (documents, contents, file
 * types; the collections are in collections.ts).
 *
 * @module
 */
import type { DatabaseSync } from "../database.ts";
import { builtRow, builtRows, type SqlParams } from "../params.ts";
import { RowReader } from "../rows.ts";
import { prepared } from "../statements.ts";
import { DOCUMENT, DOCUMENT_COLUMNS, type DocumentRow } from "./documents.ts";

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

/**
 * The WHERE conditions of a filter over `docs_documents d`, on either backend (see
 * ../params.ts): its values go to `p`.
 */
export function documentFilterSql(p: SqlParams, filter: DocumentFilter): string {
  const parts: string[] = [];
  if (filter.latestOnly !== false) parts.push("d.is_latest = 1");
  if (filter.session !== undefined) {
    const session = p.add(filter.session);
    parts.push(
      `(d.session_id = ${session} OR d.id IN (SELECT document_id FROM docs_session_pins WHERE session_id = ${session}))`,
    );
  }
  if (filter.isText !== undefined) parts.push(`d.is_text = ${p.add(filter.isText ? 1 : 0)}`);
  if (filter.extension !== undefined && filter.extension !== "") {
    const ext = filter.extension.startsWith(".") ? filter.extension : "." + filter.extension;
    parts.push(`d.extension = ${p.add(ext.toLowerCase())}`);
  }
  if (filter.collection !== undefined) {
    parts.push(
      `d.id IN (SELECT document_id FROM docs_collection_members WHERE collection = ${
        p.add(filter.collection)
      })`,
    );
  }
  if (filter.snapshotId !== undefined) {
    const snapshot = p.add(filter.snapshotId);
    parts.push(
      `(d.snapshot_id = ${snapshot} OR d.id IN (SELECT document_id FROM docs_snapshot_members WHERE snapshot_id = ${snapshot}))`,
    );
  }
  for (const tag of filter.tags ?? []) {
    parts.push(`d.id IN (SELECT document_id FROM docs_tags WHERE tag = ${p.add(tag)})`);
  }
  return parts.length === 0 ? "1 = 1" : parts.join(" AND ");
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
  return builtRows(db, ID, (p) => filteredIdsSql(p, filter)).map((row) => row.id);
}

/** Reads a document id. */
export const ID: RowReader<{ id: number }> = new RowReader<{ id: number }>("document id", {
  id: "number",
});

/** The statement of {@linkcode filteredIds}, on either backend. */
export function filteredIdsSql(p: SqlParams, filter: DocumentFilter): string {
  return `SELECT d.id FROM docs_documents d WHERE ${documentFilterSql(p, filter)}`;
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
  const total = builtRow(db, COUNT, (p) => countDocumentsSql(p, query.filter)).n;
  return { total, rows: builtRows(db, DOCUMENT, (p) => listDocumentsSql(p, query)) };
}

/** Reads a count. */
export const COUNT: RowReader<{ n: number }> = new RowReader<{ n: number }>("count", {
  n: "number",
});

/** How many documents a filter selects, on either backend (read with {@linkcode COUNT}). */
export function countDocumentsSql(p: SqlParams, filter: DocumentFilter): string {
  return `SELECT count(*) AS n FROM docs_documents d WHERE ${documentFilterSql(p, filter)}`;
}

/** The page of documents {@linkcode listDocuments} reads, on either backend. */
export function listDocumentsSql(p: SqlParams, query: ListQuery): string {
  const column = SORT_COLUMNS[query.sortBy ?? "indexed"];
  const direction = query.order === "asc" ? "ASC" : "DESC";
  // No limit is the largest one both backends take (SQLite's -1 is no limit only there).
  const limit = p.add(query.limit ?? Number.MAX_SAFE_INTEGER);
  return `SELECT ${DOCUMENT_COLUMNS} FROM docs_documents d WHERE ${
    documentFilterSql(p, query.filter)
  } ORDER BY ${column} ${direction}, d.id ${direction} LIMIT ${limit} OFFSET ${
    p.add(query.offset ?? 0)
  }`;
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

/** Reads the document half of {@linkcode DocumentTotals}. */
export const DOCUMENT_COUNTS: RowReader<Omit<DocumentTotals, "contents" | "content_bytes">> =
  new RowReader<Omit<DocumentTotals, "contents" | "content_bytes">>("document totals", {
    documents: "number",
    bytes: "number",
    latest_documents: "number",
    text_documents: "number",
    binary_documents: "number",
  });

/** Reads the content half of {@linkcode DocumentTotals}. */
export const CONTENT_COUNTS: RowReader<Pick<DocumentTotals, "contents" | "content_bytes">> =
  new RowReader<Pick<DocumentTotals, "contents" | "content_bytes">>("content totals", {
    contents: "number",
    content_bytes: "number",
  });

/** The statements of {@linkcode documentTotals}, the same on both backends. */
export const TOTALS_SQL = {
  // Flags are 0/1 integers: a product is their AND on both backends.
  documents: `SELECT count(*) AS documents, coalesce(sum(size), 0) AS bytes,
      coalesce(sum(is_latest), 0) AS latest_documents,
      coalesce(sum(is_latest * is_text), 0) AS text_documents,
      coalesce(sum(is_latest * (1 - is_text)), 0) AS binary_documents
    FROM docs_documents`,
  contents:
    "SELECT count(*) AS contents, coalesce(sum(size), 0) AS content_bytes FROM docs_contents",
  fileTypes: `SELECT extension, mime, count(*) AS count, sum(size) AS bytes FROM docs_documents
    WHERE is_latest = 1 GROUP BY extension, mime ORDER BY count DESC, extension`,
};

/** Counts documents and contents. */
export function documentTotals(db: DatabaseSync): DocumentTotals {
  const docs = DOCUMENT_COUNTS.one(prepared(db, TOTALS_SQL.documents).get());
  const contents = CONTENT_COUNTS.one(prepared(db, TOTALS_SQL.contents).get());
  return joinTotals(docs, contents);
}

/** The two halves of {@linkcode DocumentTotals} as one. */
export function joinTotals(
  docs: Omit<DocumentTotals, "contents" | "content_bytes">,
  contents: Pick<DocumentTotals, "contents" | "content_bytes">,
): DocumentTotals {
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

/** Reads a {@linkcode FileTypeCount}. */
export const FILE_TYPE_COUNT: RowReader<FileTypeCount> = new RowReader<FileTypeCount>(
  "file type count",
  {
    extension: "text",
    mime: "text",
    count: "number",
    bytes: "number",
  },
);

/** Latest documents grouped by extension and MIME type, most numerous first. */
export function fileTypeCounts(db: DatabaseSync): FileTypeCount[] {
  return FILE_TYPE_COUNT.all(prepared(db, TOTALS_SQL.fileTypes).all());
}
