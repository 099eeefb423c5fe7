/**
 * `docs.add`: stores a file, a folder (recursive, include/exclude globs) or
 * inline content, with tags, metadata, collection and snapshot label. Bytes
 * are deduplicated by content-defined chunks; a document added while a
 * session is current carries that session.
 *
 * @module
 */
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import { ingestInline, ingestPath } from "../doc_ingest.ts";
import { currentSessionId } from "../doc_sessions.ts";
import { parseMetadata } from "../doc_update.ts";
import { requirePathAccess } from "../path_access.ts";
import { ingestInlineOnServer, ingestPathOnServer } from "../server_ingest/server_ingest.ts";
import { attributedTo } from "../../ops/caller_person.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  collectionSchema,
  docsContext,
  globList,
  globsSchema,
  ingestOutput,
  ingestResult,
  labelSchema,
  metadataSchema,
  pathSchema,
  serverDocsOf,
  snapshotIdSchema,
  tagList,
  tagsSchema,
} from "./shared.ts";

/** The `docs.add` operation. */
export const addOperation: Operation = defineOperation({
  id: "docs.add",
  title: "Add documents",
  description:
    "Store a note or files in document memory. Inline `content` with a `name`, or a file or folder, with tags, metadata, collection and snapshot label.",
  input: z.object({
    path: pathSchema.optional().describe("File or folder to store"),
    content: z.string().optional().describe("Inline text to store (with `name`)"),
    name: pathSchema.optional().describe("Name for inline content"),
    recursive: z.boolean().default(true).describe("Descend into sub-folders"),
    include: globsSchema.optional().describe("Globs a file must match, e.g. ['*.md']"),
    exclude: globsSchema.optional().describe("Globs to leave out"),
    tags: tagsSchema.optional().describe("Tags for every document"),
    metadata: metadataSchema.optional().describe("Object, or key=value strings"),
    collection: collectionSchema.optional().describe("Collection to add them to"),
    snapshot_id: snapshotIdSchema.optional().describe("Snapshot id (default: a timestamp)"),
    snapshot_label: labelSchema.optional().describe("Human label for the snapshot"),
    no_session: z.boolean().default(false).describe("Do not attach the current session"),
  }),
  output: ingestOutput,
  scopes: ["docs:write"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    // Unchanged content stores nothing new, but every add records a snapshot.
    idempotentHint: false,
    openWorldHint: false,
  },
  timeoutMs: 600_000,
  async run(context, input) {
    const docs = docsContext(context);
    if ((input.path === undefined) === (input.content === undefined)) {
      throw new VantageError(
        "invalid_arguments",
        "give either 'path' (a file or folder) or 'content' with 'name'",
      );
    }
    // On a database server the add runs on the store's interface; SQLite's engine on the file.
    const server = serverDocsOf(context, docs);
    const session = input.no_session
      ? null
      : server === undefined
      ? currentSessionId(docs.db)
      : (await docs.store.currentSession())?.session_id ?? null;
    const options = {
      tags: tagList(input.tags),
      metadata: input.metadata === undefined ? undefined : parseMetadata(input.metadata),
      collection: input.collection,
      snapshotId: input.snapshot_id,
      snapshotLabel: input.snapshot_label,
      session,
      include: globList(input.include),
      exclude: globList(input.exclude),
      recursive: input.recursive,
      skipFolders: docs.home === undefined ? [] : [docs.home],
      embedder: docs.embedder,
      // On a team server, what a person adds is theirs to change.
      person: attributedTo(context.caller),
      now: docs.now,
      signal: context.signal,
    };
    if (input.content !== undefined) {
      if (input.name === undefined) {
        throw new VantageError("invalid_arguments", "inline 'content' needs a 'name'");
      }
      const inline = [{ name: input.name, bytes: new TextEncoder().encode(input.content) }];
      return ingestResult(
        server === undefined
          ? await ingestInline(docs.db, inline, options)
          : await ingestInlineOnServer(server, inline, options),
      );
    }
    const path = requirePathAccess(input.path!, "read");
    return ingestResult(
      server === undefined
        ? await ingestPath(docs.db, path, options)
        : await ingestPathOnServer(server, path, options),
    );
  },
});
