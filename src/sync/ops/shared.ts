/**
 * What the `sync` operations share: who pushes (the person a token names,
 * the host the request names), the store of the context, and the scope and
 * hints every push has.
 *
 * @module
 */
import type { OperationAnnotations, OperationContext } from "../../ops/operation.ts";
import { attributedTo } from "../../ops/caller_person.ts";
import { STORE } from "../../ops/service_keys.ts";
import type { StoreMode } from "../../store/repository.ts";
import type { Store } from "../../store/store.ts";
import type { Pusher } from "../push_history.ts";

/** The scope of every `sync` operation: sending one's history to this server. */
export const SYNC_SCOPE = "sync:write";

/** The hints of a push: it adds records, is harmless to repeat and changes nothing else. */
export const PUSH_ANNOTATIONS: Readonly<OperationAnnotations> = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** How long one push may take, ms: a batch of a large history, or a large document. */
export const PUSH_TIMEOUT_MS = 300_000;

/**
 * Who pushes: the person of the caller's token (null: the server's owner) and the host the
 * caller named (`X-Vantage-Host` over HTTP), never anything a batch says.
 */
export function pusherOf(context: OperationContext): Pusher {
  const host = context.caller.host;
  return {
    person: attributedTo(context.caller),
    host: typeof host === "string" && host !== "" ? host : null,
  };
}

/** The store of the context. */
export function syncStore(context: OperationContext): Store<StoreMode> {
  return context.services.get(STORE);
}
