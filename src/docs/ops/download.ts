/**
 * `docs.download`: fetches an artifact by URL (checksum `sha256:<hex>`
 * optional) and stores it as a document. Needs the `net` scope, and a
 * process allowed to reach the host. On a database server the bytes are stored
 * by the server's engine, as `docs.add` stores inline content there.
 *
 * @module
 */
import { z } from "zod";
import { downloadArtifact } from "../doc_download.ts";
import { ingestInline } from "../doc_ingest.ts";
import { currentSessionId } from "../doc_sessions.ts";
import { parseMetadata } from "../doc_update.ts";
import { ingestInlineOnServer } from "../server_ingest/server_ingest.ts";
import { attributedTo } from "../../ops/caller_person.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import {
  collectionSchema,
  docsContext,
  ingestOutput,
  ingestResult,
  labelSchema,
  metadataSchema,
  pathSchema,
  serverDocsOf,
  tagList,
  tagsSchema,
} from "./shared.ts";

/** The `docs.download` operation. */
export const downloadOperation: Operation = defineOperation({
  id: "docs.download",
  title: "Download and store an artifact",
  description:
    "Download a URL and store it as a document. http or https, optionally verified against `checksum` (nothing is stored on a mismatch); needs the `net` scope.",
  input: z.object({
    url: z.string().min(1).describe("http or https URL"),
    checksum: z.string().min(1).optional().describe("sha256:<hex> the bytes must match"),
    name: pathSchema.optional().describe("Name to store it under (default: from the URL)"),
    tags: tagsSchema.optional(),
    metadata: metadataSchema.optional().describe("Object, or key=value strings"),
    collection: collectionSchema.optional(),
    snapshot_label: labelSchema.optional(),
  }),
  output: ingestOutput.extend({
    url: z.string(),
    verified: z.boolean(),
    content_type: z.string().nullable(),
  }),
  scopes: ["docs:write", "net"],
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  timeoutMs: 600_000,
  async run(context, input) {
    const docs = docsContext(context);
    const artifact = await downloadArtifact(input.url, {
      checksum: input.checksum,
      signal: context.signal,
    });
    const name = input.name ?? artifact.name;
    // On a database server the bytes are stored by the server's engine, as an add stores them.
    const server = serverDocsOf(context, docs);
    const session = server === undefined
      ? currentSessionId(docs.db)
      : (await docs.store.currentSession())?.session_id ?? null;
    const downloaded = [{ name, bytes: artifact.bytes, path: input.url }];
    const options = {
      tags: tagList(input.tags),
      metadata: input.metadata === undefined ? undefined : parseMetadata(input.metadata),
      collection: input.collection,
      snapshotLabel: input.snapshot_label,
      session,
      sourceUrl: artifact.url,
      embedder: docs.embedder,
      person: attributedTo(context.caller),
      now: docs.now,
    };
    const report = server === undefined
      ? await ingestInline(docs.db, downloaded, options)
      : await ingestInlineOnServer(server, downloaded, options);
    return {
      ...ingestResult(report),
      url: artifact.url,
      verified: artifact.verified,
      content_type: artifact.content_type,
    };
  },
});
