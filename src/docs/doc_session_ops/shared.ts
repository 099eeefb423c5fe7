/**
 * What the `doc_session` operations share: schemas, and how pin and unpin
 * find the documents they name.
 *
 * @module
 */
import { z } from "zod";
import { VantageError } from "../../core/errors.ts";
import { findDocumentsIn } from "../doc_read.ts";
import { setPins, targetSession } from "../doc_sessions.ts";
import { matchesGlob } from "../glob.ts";
import type { DocsStore } from "../../store/docs/docs_store.ts";
import type { StoreMode } from "../../store/repository.ts";
import { docsContext, globSchema, sessionNameSchema } from "../ops/shared.ts";
import type { OperationContext } from "../../ops/operation.ts";
import { STORE } from "../../ops/service_keys.ts";

/** A document session as the doc_session operations report it. */
export const sessionInfoSchema = z.object({
  session_id: z.string(),
  label: z.string().nullable(),
  description: z.string().nullable(),
  started_at: z.string(),
  stopped_at: z.string().nullable(),
  current: z.boolean(),
  documents: z.number().int(),
  pinned: z.number().int(),
});

/** The result of pin and unpin. */
export const pinOutputSchema = z.object({
  session_id: z.string(),
  matched: z.number().int(),
  changed: z.number().int(),
  documents: z.array(z.object({ id: z.number().int(), hash: z.string(), path: z.string() })),
});

/** How pin and unpin name documents. */
export const pinInputSchema = z.object({
  hash: z.string().min(1).optional().describe("Content hash or prefix"),
  name: z.string().min(1).optional().describe("Path or path suffix"),
  path: globSchema.optional().describe("Glob over stored paths, e.g. **/auth/*.md"),
  session: sessionNameSchema.optional().describe("Session (default: the current one)"),
});

/** The documents a pin or unpin names, read from the store of either backend. */
export async function pinTargets(
  docs: DocsStore<StoreMode>,
  input: { hash?: string; name?: string; path?: string },
): Promise<Array<{ id: number; hash: string; path: string }>> {
  if (input.hash !== undefined || input.name !== undefined) {
    const rows = await findDocumentsIn(docs, { hash: input.hash, name: input.name });
    return rows.map(({ id, hash, path }) => ({ id, hash, path }));
  }
  if (input.path !== undefined) {
    const pattern = input.path;
    return (await docs.documentPathsAll(true)).filter((doc) =>
      doc.path === pattern || matchesGlob(doc.path, pattern) || matchesGlob(doc.name, pattern)
    ).map(({ id, hash, path }) => ({ id, hash, path }));
  }
  throw new VantageError("invalid_arguments", "give 'hash', 'name' or 'path' (a glob) to pin");
}

/** Pins (`pinned` true) or unpins the documents `input` names in its session. */
export async function runPin(
  context: OperationContext,
  input: z.infer<typeof pinInputSchema>,
  pinned: boolean,
): Promise<z.infer<typeof pinOutputSchema>> {
  const store = context.services.get(STORE);
  const session = await targetSession(store.docs, input.session);
  const documents = await pinTargets(store.docs, input);
  const changed = await setPins(
    store,
    session.session_id,
    documents.map((d) => d.id),
    pinned,
    docsContext(context).now,
  );
  return { session_id: session.session_id, matched: documents.length, changed, documents };
}
