/**
 * Search results as callers see them: id, hash, title, path, score and a
 * snippet — the lines of the document that best cover the query, optionally
 * numbered and with context lines around them.
 *
 * @module
 */
import type { DatabaseSync } from "../store/database.ts";
import { type DocumentRow, documentsByIds } from "../store/docs/documents.ts";
import type { RankedDocument } from "./doc_search.ts";
import { documentText } from "./doc_read.ts";
import { bestSnippet } from "./snippet.ts";

/** One search result. */
export interface SearchResultItem {
  /** Document id. */
  id: number;
  /** Content hash. */
  hash: string;
  /** Title. */
  title: string;
  /** Path. */
  path: string;
  /** Score in the mode's scale, rounded to 6 decimals. */
  score: number;
  /** The best-matching lines. */
  snippet: string;
  /** First line of the snippet (1-based), when line numbers were asked for. */
  line?: number;
}

/** How snippets are cut. */
export interface SnippetRequest {
  /** The query the snippet should cover. */
  query: string;
  /** Prefix each snippet line with its number. */
  lineNumbers: boolean;
  /** Lines of context before and after the matching lines. */
  context: number;
}

/** Bytes of a document read to find its snippet. */
export const SNIPPET_SOURCE_BYTES = 256 * 1024;

/**
 * Builds result items for ranked documents, in rank order. A document whose
 * content cannot be read intact gets an empty snippet and a warning.
 */
export function resultItems(
  db: DatabaseSync,
  hits: readonly RankedDocument[],
  request: SnippetRequest,
  warnings: string[],
): SearchResultItem[] {
  const rows = new Map<number, DocumentRow>();
  for (const row of documentsByIds(db, hits.map((hit) => hit.id))) rows.set(row.id, row);
  const items: SearchResultItem[] = [];
  for (const hit of hits) {
    const row = rows.get(hit.id);
    if (row === undefined) continue;
    const item = resultItem(row, hit.score);
    if (wantsSnippet(row, request)) {
      try {
        addSnippet(item, documentText(db, row, SNIPPET_SOURCE_BYTES), request);
      } catch (error) {
        warnings.push(error instanceof Error ? error.message : String(error));
      }
    }
    items.push(item);
  }
  return items;
}

/** A result item for a document and its score, without a snippet yet. */
export function resultItem(row: DocumentRow, score: number): SearchResultItem {
  return {
    id: row.id,
    hash: row.hash,
    title: row.title,
    path: row.path,
    score: Math.round(score * 1e6) / 1e6,
    snippet: "",
  };
}

/** Whether a document's result gets a snippet: a text document, for a query. */
export function wantsSnippet(row: DocumentRow, request: SnippetRequest): boolean {
  return request.query.trim() !== "" && row.is_text === 1;
}

/** Sets an item's snippet from the document's text: its best lines for the query. */
export function addSnippet(item: SearchResultItem, text: string, request: SnippetRequest): void {
  const snippet = bestSnippet(text, request.query, { context: request.context });
  item.snippet = request.lineNumbers
    ? snippet.lines.map((line, i) => `${snippet.startLine + i}: ${line}`).join("\n")
    : snippet.text;
  if (request.lineNumbers) item.line = snippet.startLine;
}
