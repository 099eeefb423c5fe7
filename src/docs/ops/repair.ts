/**
 * `docs.repair`: verifies the store, then rebuilds what can be rebuilt — the
 * document search index, damaged chunks whose documents' original files are
 * still there unchanged, the message index when no `serve` holds the data
 * home — reclaims packs nothing uses through the garbage collection, and
 * reports what cannot be repaired and what to do about it. A store whose own
 * file is damaged is only reported. A repair that leaves nothing damaged
 * clears the store's recorded health.
 *
 * @module
 */
import { z } from "zod";
import { repairStore, repairUnopenedStore } from "../doc_repair.ts";
import { repairServerStore } from "../server_repair.ts";
import { docsContext } from "./shared.ts";
import { configuredEmbedder } from "../embedding_config.ts";
import { readServerLock } from "../../store/server_lock.ts";
import { recordVerifyOutcome } from "../../store/store_health.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { PATHS, STORE } from "../../ops/service_keys.ts";
import { healthFolder, openStoreOrDamage } from "./verify.ts";

/**
 * Whether a live `serve` holds the data home `home` (this process included):
 * the lock file is held, not merely left behind by a process that is gone.
 */
async function serveHolds(home: string): Promise<boolean> {
  return (await readServerLock(home)) !== undefined;
}

/** The `docs.repair` operation. */
export const repairOperation: Operation = defineOperation({
  id: "docs.repair",
  title: "Repair document memory",
  description:
    "Repair document memory: rebuild damaged indexes, store missing vectors, restore chunks from unchanged files, reclaim packs; reports what it cannot.",
  input: z.object({
    dry_run: z.boolean().default(false).describe("Report what would be done"),
    max_documents: z.number().int().min(0).max(10_000).default(100).describe(
      "Documents listed one by one (all are counted)",
    ),
  }),
  output: z.object({
    ok: z.boolean().describe("Nothing damaged is left"),
    dry_run: z.boolean(),
    duration_ms: z.number().int(),
    store: z.object({
      file: z.string().nullable(),
      status: z.string(),
      problems: z.array(z.string()),
      what_to_do: z.string().optional(),
    }),
    docs_index: z.object({
      file: z.string().nullable(),
      action: z.enum(["none", "rebuilt", "would_rebuild"]),
      reason: z.string().optional(),
      new_file: z.string().optional(),
      documents_indexed: z.number().int().optional(),
    }),
    vectors: z.object({
      model: z.string().nullable(),
      action: z.enum(["none", "stored", "would_store"]),
      documents: z.number().int(),
    }),
    message_index: z.object({
      file: z.string().nullable(),
      action: z.enum(["none", "rebuilt", "would_rebuild", "left"]),
      reason: z.string().optional(),
      what_to_do: z.string().optional(),
    }),
    earlier_index_files: z.array(z.string()),
    chunks: z.object({ damaged: z.number().int(), restored: z.number().int() }),
    restored_documents: z.number().int(),
    unrecoverable_documents: z.number().int(),
    documents: z.array(z.object({
      id: z.number().int(),
      path: z.string(),
      hash: z.string(),
      status: z.enum(["restored", "would_restore", "unrecoverable"]),
      reason: z.string(),
      files: z.array(z.string()),
    })),
    documents_truncated: z.boolean(),
    packs: z.object({
      unreferenced: z.number().int(),
      removed: z.number().int(),
      bytes_reclaimed: z.number().int(),
    }),
    remaining: z.array(z.string()),
  }),
  scopes: ["docs:write"],
  annotations: {
    readOnlyHint: false,
    // It only puts back bytes that hash to what was stored, and replaces index files.
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  timeoutMs: 3_600_000,
  async run(context, input) {
    const startedAt = Date.now();
    const docs = docsContext(context);
    if (docs.serverSearch !== undefined) {
      // A database server: no files beside it, and its health is not the data home's to record.
      return await repairServerStore({
        store: context.services.get(STORE),
        search: docs.serverSearch,
      }, {
        dryRun: input.dry_run,
        maxDocuments: input.max_documents,
        embedder: docs.embedder,
        signal: context.signal,
      });
    }
    const store = openStoreOrDamage(context);
    if (!("db" in store)) {
      const report = await repairUnopenedStore(
        store.file,
        store.damaged,
        input.dry_run,
        context.signal,
      );
      const folder = healthFolder(context);
      if (folder !== undefined) {
        recordVerifyOutcome(folder, {
          at: Date.now(),
          ok: false,
          chunks: false,
          problems: report.remaining,
        }, startedAt);
      }
      return report;
    }
    const home = context.services.has(PATHS) ? context.services.get(PATHS).home : undefined;
    const report = await repairStore(store.db, {
      dryRun: input.dry_run,
      maxDocuments: input.max_documents,
      signal: context.signal,
      serveRunning: () => home === undefined ? Promise.resolve(false) : serveHolds(home),
      embedder: configuredEmbedder(),
    });
    const folder = healthFolder(context, store.db);
    if (folder !== undefined && !input.dry_run) {
      recordVerifyOutcome(folder, {
        at: Date.now(),
        ok: report.ok,
        chunks: true,
        problems: report.remaining,
      }, startedAt);
    }
    return report;
  },
});
