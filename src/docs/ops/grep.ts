/**
 * `docs.grep`: regular-expression search inside stored text documents, with
 * ripgrep's switches: ignore_case, word, count, files_with_matches,
 * max_count, context and line_numbers.
 *
 * @module
 */
import { z } from "zod";
import { grepDocuments } from "../doc_grep.ts";
import { grepPatternProblem } from "../grep_pattern.ts";
import { sessionScope } from "../doc_sessions.ts";
import { grepOnServer } from "../server_search/server_grep.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, globList, READ_ONLY, sessionScopeFields } from "./shared.ts";

const lineSchema = z.object({ line: z.number().int().optional(), text: z.string() });

/** The `docs.grep` operation. */
export const grepOperation: Operation = defineOperation({
  id: "docs.grep",
  title: "Grep documents",
  description:
    "Grep stored documents for a regular expression. RE2 (linear time: no backreferences or lookaround); `paths` limits it to stored paths, folders or globs.",
  input: z.object({
    pattern: z.string().min(1).describe("RE2 regular expression"),
    paths: z.union([z.array(z.string()), z.string()]).optional().describe(
      "Stored files, folders or globs to search (default: all)",
    ),
    ignore_case: z.boolean().default(false),
    word: z.boolean().default(false).describe("Whole words only"),
    literal: z.boolean().default(false).describe("Plain text, not a regex"),
    line_numbers: z.boolean().default(false),
    context: z.number().int().min(0).max(50).default(0).describe("Lines around matches"),
    count: z.boolean().default(false).describe("Only count matching lines per file"),
    files_with_matches: z.boolean().default(false),
    max_count: z.number().int().min(0).default(0).describe(
      "Stop after N matches per file (0: all)",
    ),
    ...sessionScopeFields,
  }).superRefine((input, refinement) => {
    // Checked with the arguments, so a pattern grep cannot run is invalid_arguments (400), not a
    // failure of the operation.
    const problem = grepPatternProblem(input.pattern, {
      ignoreCase: input.ignore_case,
      word: input.word,
      literal: input.literal,
    });
    if (problem !== undefined) {
      refinement.addIssue({ code: "custom", path: ["pattern"], message: problem });
    }
  }),
  output: z.object({
    pattern: z.string(),
    total_matches: z.number().int(),
    files_searched: z.number().int(),
    files_matched: z.number().int(),
    results: z.array(z.object({
      id: z.number().int(),
      hash: z.string(),
      path: z.string(),
      count: z.number().int(),
      matches: z.array(lineSchema.extend({
        before: z.array(lineSchema).optional(),
        after: z.array(lineSchema).optional(),
      })).optional(),
    })).optional(),
    files: z.array(z.string()).optional(),
    truncated: z.boolean(),
    warnings: z.array(z.string()).optional(),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  timeoutMs: 120_000,
  async run(context, input) {
    const docs = docsContext(context);
    const session = await sessionScope(docs.store, input);
    const request = {
      pattern: input.pattern,
      literal: input.literal,
      paths: globList(input.paths),
      ignoreCase: input.ignore_case,
      word: input.word,
      context: input.context,
      lineNumbers: input.line_numbers,
      maxCount: input.max_count,
      filter: { session },
      signal: context.signal,
    };
    // A database server's store is read through its interface; SQLite's from its pack files.
    const report = docs.serverSearch !== undefined
      ? await grepOnServer(docs.store, request)
      : await grepDocuments(docs.db, request);
    const base = {
      pattern: input.pattern,
      total_matches: report.total_matches,
      files_searched: report.files_searched,
      files_matched: report.files_matched,
      truncated: report.truncated,
      ...(report.warnings.length > 0 ? { warnings: report.warnings } : {}),
    };
    if (input.files_with_matches) return { ...base, files: report.files.map((file) => file.path) };
    if (input.count) {
      return {
        ...base,
        results: report.files.map(({ id, hash, path, count }) => ({ id, hash, path, count })),
      };
    }
    return { ...base, results: report.files };
  },
});
