/**
 * `docs.list_snapshots`: the snapshots taken by adds, newest first, with
 * folder, label and git position.
 *
 * @module
 */
import { z } from "zod";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { docsContext, READ_ONLY } from "./shared.ts";

/** The `docs.list_snapshots` operation. */
export const listSnapshotsOperation: Operation = defineOperation({
  id: "docs.list_snapshots",
  title: "List snapshots",
  description:
    "List snapshots (one per add), newest first. Label, time, folder, collection, session, git commit and file count.",
  input: z.object({
    limit: z.number().int().min(1).max(10_000).default(100),
  }),
  output: z.object({
    total: z.number().int(),
    snapshots: z.array(z.object({
      snapshot_id: z.string(),
      label: z.string().nullable(),
      created_at: z.string(),
      directory_path: z.string().nullable(),
      collection: z.string().nullable(),
      session_id: z.string().nullable(),
      git_commit: z.string().nullable(),
      git_branch: z.string().nullable(),
      git_remote: z.string().nullable(),
      files_count: z.number().int(),
    })),
  }),
  scopes: ["docs:read"],
  annotations: READ_ONLY,
  async run(context, input) {
    const docs = docsContext(context).store;
    const [total, rows] = await Promise.all([
      docs.snapshotCount(),
      docs.listSnapshots(input.limit),
    ]);
    return {
      total,
      snapshots: rows.map((row) => ({
        ...row,
        created_at: new Date(row.created_at).toISOString(),
      })),
    };
  },
});
