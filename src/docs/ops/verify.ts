/**
 * `docs.verify`: checks the store and every file beside it for damage —
 * SQLite's structural check of the store and the index files, every stored
 * chunk read back and hashed, chunk lists naming chunks that are not stored,
 * packs missing, short or unused, and the search index holding every latest
 * text document — and reports damage by document and by file. The outcome is
 * recorded as the store's health (`docs.status`, `/api/health`).
 *
 * @module
 */
import { z } from "zod";
import { verifyStore } from "../doc_verify.ts";
import { verifyServerStore } from "../server_verify.ts";
import { verifyUnopenedStore } from "../store_structure.ts";
import type { DatabaseSync } from "../../store/database.ts";
import { isDamageError, recordVerifyOutcome, storeFolder } from "../../store/store_health.ts";
import { defineOperation, type Operation, type OperationContext } from "../../ops/operation.ts";
import { DATABASE, PATHS } from "../../ops/service_keys.ts";
import { docsContext, READ_ONLY } from "./shared.ts";

const fileStatus = z.enum([
  "ok",
  "damaged",
  "missing",
  "short",
  "unreferenced",
  "left_behind",
  "unchecked",
]);

/** The result of `docs.verify`. */
export const verifyOutput = z.object({
  ok: z.boolean().describe("Nothing damaged (unused packs and left-behind files are not damage)"),
  chunks_checked: z.boolean(),
  duration_ms: z.number().int(),
  checked: z.object({
    documents: z.number().int(),
    contents: z.number().int(),
    chunks: z.number().int(),
    bytes: z.number().int(),
    stored_bytes: z.number().int(),
    pack_files: z.number().int(),
    files: z.number().int(),
  }),
  damaged: z.object({
    documents: z.number().int(),
    chunks: z.number().int(),
    files: z.number().int(),
  }),
  store: z.object({
    file: z.string().nullable(),
    status: fileStatus,
    problems: z.array(z.string()),
  }),
  index: z.object({
    file: z.string().nullable(),
    status: z.enum(["ok", "damaged", "missing", "incomplete", "unchecked"]),
    expected: z.number().int(),
    indexed: z.number().int(),
    queued: z.number().int(),
    missing: z.number().int(),
    extra: z.number().int(),
    missing_ids: z.array(z.number().int()),
    extra_ids: z.array(z.number().int()),
    problems: z.array(z.string()),
  }),
  message_index: z.object({
    file: z.string().nullable(),
    status: fileStatus,
    problems: z.array(z.string()),
  }),
  files: z.array(z.object({
    path: z.string(),
    kind: z.enum(["store", "docs_index", "message_index", "pack", "earlier_index"]),
    status: fileStatus,
    problems: z.array(z.string()),
    bytes: z.number().int().optional(),
    chunks_damaged: z.number().int().optional(),
  })),
  documents: z.array(z.object({
    id: z.number().int(),
    path: z.string(),
    hash: z.string(),
    latest: z.boolean(),
    problems: z.array(z.string()),
    files: z.array(z.string()),
  })),
  documents_truncated: z.boolean(),
  reclaimable: z.object({ pack_files: z.number().int(), bytes: z.number().int() }),
  problems: z.array(z.string()),
  notes: z.array(z.string()),
  what_to_do: z.array(z.string()),
});

/**
 * The store connection, or — when the store file is too damaged to open —
 * the error that said so, with the file's path.
 */
export function openStoreOrDamage(
  context: OperationContext,
): { db: DatabaseSync } | { damaged: unknown; file: string } {
  try {
    return { db: context.services.get(DATABASE) };
  } catch (error) {
    if (!isDamageError(error) || !context.services.has(PATHS)) throw error;
    return { damaged: error, file: context.services.get(PATHS).database };
  }
}

/** The folder of the store's health file, if the store has one. */
export function healthFolder(context: OperationContext, db?: DatabaseSync): string | undefined {
  if (context.services.has(PATHS)) return context.services.get(PATHS).home;
  return db === undefined ? undefined : storeFolder(db);
}

/** The `docs.verify` operation. */
export const verifyOperation: Operation = defineOperation({
  id: "docs.verify",
  title: "Verify document memory",
  description:
    "Check document memory for damage. SQLite structure, every chunk read back and hashed, packs and the search index; damage is reported by document and file.",
  input: z.object({
    chunks: z.boolean().default(true).describe("Read and hash every chunk (false: structure)"),
    max_documents: z.number().int().min(0).max(10_000).default(100).describe(
      "Damaged documents listed one by one (all are counted)",
    ),
  }),
  output: verifyOutput,
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  // Reading every stored byte of a large store takes minutes; the signal stops it sooner.
  timeoutMs: 3_600_000,
  async run(context, input) {
    const startedAt = Date.now();
    const docs = docsContext(context);
    if (docs.serverSearch !== undefined) {
      // A database server: no files beside it, and its health is not the data home's to record.
      return await verifyServerStore(docs.store, docs.serverSearch, {
        chunks: input.chunks,
        maxDocuments: input.max_documents,
        signal: context.signal,
        label: "the PostgreSQL store",
      });
    }
    const store = openStoreOrDamage(context);
    const report = "db" in store
      ? (await verifyStore(store.db, {
        chunks: input.chunks,
        maxDocuments: input.max_documents,
        signal: context.signal,
      })).report
      : await verifyUnopenedStore(store.file, store.damaged, context.signal);
    const folder = healthFolder(context, "db" in store ? store.db : undefined);
    if (folder !== undefined) {
      recordVerifyOutcome(folder, {
        at: Date.now(),
        ok: report.ok,
        chunks: report.chunks_checked,
        problems: report.problems,
      }, startedAt);
    }
    return report;
  },
});
