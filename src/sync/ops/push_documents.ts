/**
 * `sync.push_documents`: a team server takes document versions from
 * another store as the caller's (see `../push_documents.ts` for where they
 * are kept and why a path of someone else's is refused).
 *
 * @module
 */
import { z } from "zod";
import { configuredEmbedder } from "../../docs/mod.ts";
import { defineOperation, type Operation } from "../../ops/operation.ts";
import { CLOCK, DATABASE, DOCUMENT_SEARCH } from "../../ops/service_keys.ts";
import { type DocumentEngine, pushDocuments } from "../push_documents.ts";
import { PUSH_ARGUMENT_CHARS, syncDocumentSchema } from "../wire.ts";
import { PUSH_ANNOTATIONS, PUSH_TIMEOUT_MS, pusherOf, SYNC_SCOPE, syncStore } from "./shared.ts";

// A new schema each time: zod would share one instance between fields, bounds and all.
const counted = () => z.number().int();

/** The `sync.push_documents` operation. */
export const pushDocumentsOperation: Operation = defineOperation({
  id: "sync.push_documents",
  title: "Push documents",
  description:
    "Store document versions from another store as the caller's, with their tags, metadata and collections, under <person>@<host>:<path>. What vantage sync sends.",
  input: z.object({ documents: z.array(syncDocumentSchema).min(1) }),
  output: z.object({
    added: counted(),
    updated: counted(),
    unchanged: counted(),
    bytes: counted(),
    refused: z.array(z.object({ path: z.string(), owner: z.string().nullable() })),
    invalid: z.array(z.object({ path: z.string(), reason: z.string() })),
  }),
  scopes: [SYNC_SCOPE, "docs:write"],
  annotations: PUSH_ANNOTATIONS,
  timeoutMs: PUSH_TIMEOUT_MS,
  maxArgumentChars: PUSH_ARGUMENT_CHARS,
  async run(context, input) {
    const services = context.services;
    const store = syncStore(context);
    // A server on PostgreSQL has the database's keyword search: its documents go there.
    const engine: DocumentEngine = services.has(DOCUMENT_SEARCH)
      ? { kind: "server", server: { store, search: services.get(DOCUMENT_SEARCH) } }
      : { kind: "sqlite", db: services.get(DATABASE) };
    return await pushDocuments(
      engine,
      store,
      input.documents,
      pusherOf(context),
      {
        embedder: configuredEmbedder(),
        now: services.has(CLOCK) ? services.get(CLOCK)() : Date.now(),
        signal: context.signal,
      },
    );
  },
});
