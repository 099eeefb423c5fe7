/**
 * `doc_session.watch`: keeps a folder's documents current. With `once`, one
 * rescan re-adds every file whose size or modification time changed. Without
 * it, the folder is rescanned now and then watched (`Deno.watchFs`) inside
 * the process running this operation, for as long as that process lives;
 * `enable: false` stops the watch. On a database server the rescans and
 * re-adds store through the server's engine, as its adds do.
 *
 * @module
 */
import { z } from "zod";
import { ingestFiles, type IngestOptions, ingestPath } from "../doc_ingest.ts";
import { currentSessionId } from "../doc_sessions.ts";
import { activeWatches, unwatchFolder, watchFolder } from "../doc_watch.ts";
import { requirePathAccess } from "../path_access.ts";
import { createPathFilter } from "../glob.ts";
import { ingestFilesOnServer, ingestPathOnServer } from "../server_ingest/server_ingest.ts";
import {
  collectionSchema,
  docsContext,
  globList,
  globsSchema,
  ingestOutput,
  ingestResult,
  pathSchema,
  serverDocsOf,
  tagList,
  tagsSchema,
} from "../ops/shared.ts";
import { attributedTo } from "../../ops/caller_person.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { relative } from "node:path";

const watchInfoSchema = z.object({
  root: z.string(),
  since: z.string(),
  events: z.number().int(),
  rescans: z.number().int(),
  last_error: z.string().nullable(),
});

/** The `doc_session.watch` operation. */
export const watchOperation: Operation = defineOperation({
  id: "doc_session.watch",
  aliases: ["session.watch"],
  title: "Watch a folder",
  description:
    "Keep a folder's stored documents current. Rescan it and re-add changed files, then watch it while this process runs; `once` only rescans, `enable: false` stops.",
  input: z.object({
    path: pathSchema.describe("Folder to watch"),
    once: z.boolean().default(false).describe("Rescan once instead of watching"),
    enable: z.boolean().default(true).describe("false stops a running watch"),
    include: globsSchema.optional().describe("Globs a file must match"),
    exclude: globsSchema.optional().describe("Globs to leave out"),
    collection: collectionSchema.optional().describe("Collection for re-added documents"),
    tags: tagsSchema.optional().describe("Tags for re-added documents"),
  }),
  output: z.object({
    root: z.string(),
    watching: z.boolean(),
    rescan: ingestOutput.optional(),
    watch: watchInfoSchema.optional(),
    watches: z.array(watchInfoSchema),
  }),
  // It stores the folder's files as documents, so it needs what docs.add needs.
  scopes: ["session:write", "docs:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  timeoutMs: 600_000,
  async run(context, input) {
    const docs = docsContext(context);
    const root = requirePathAccess(input.path, "read");
    if (!input.enable) {
      const stopped = unwatchFolder(root);
      return {
        root,
        watching: false,
        ...(stopped !== undefined ? { watch: stopped } : {}),
        watches: activeWatches(),
      };
    }
    const include = globList(input.include);
    const exclude = globList(input.exclude);
    // On a database server the rescans store through the server's engine, as its adds do.
    const server = serverDocsOf(context, docs);
    const options = async (): Promise<IngestOptions> => ({
      tags: tagList(input.tags),
      collection: input.collection,
      // Read again for every rescan: the current session may have changed since the watch began.
      session: server === undefined
        ? currentSessionId(docs.db)
        : (await docs.store.currentSession())?.session_id ?? null,
      person: attributedTo(context.caller),
      include,
      exclude,
      skipFolders: docs.home === undefined ? [] : [docs.home],
      skipUnchangedByStat: true,
      embedder: docs.embedder,
      now: Date.now(),
    });
    const first = { ...await options(), signal: context.signal };
    const rescan = ingestResult(
      server === undefined
        ? await ingestPath(docs.db, root, first)
        : await ingestPathOnServer(server, root, first),
    );
    if (input.once) return { root, watching: false, rescan, watches: activeWatches() };
    const filter = createPathFilter(include, exclude);
    const watch = watchFolder(root, async (paths) => {
      const files = paths.filter((path) => {
        const rel = relative(root, path);
        if (rel.startsWith("..")) return false;
        if (!filter.selects(rel)) return false;
        try {
          return Deno.statSync(path).isFile;
        } catch {
          return false;
        }
      });
      if (files.length === 0) return;
      if (server === undefined) await ingestFiles(docs.db, root, files, await options());
      else await ingestFilesOnServer(server, root, files, await options());
    }, docs.now);
    return { root, watching: true, rescan, watch, watches: activeWatches() };
  },
});
