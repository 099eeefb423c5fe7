/**
 * Where each built-in operation is defined, so a command that runs one
 * operation (`vantage call`, the document commands) loads that operation's
 * module and builds its schemas alone. Building the whole catalog loads
 * every feature and builds every operation's zod schemas: most of a
 * one-shot call's time once the store answers in milliseconds. Listings
 * (MCP `tools/list`, `describe`, search, `vantage ops`) still build the
 * whole catalog (`builtin.ts`), which stays the one list of operations:
 * `tests/ops/builtin_index_test.ts` fails when this index and it disagree.
 *
 * @module
 */
import type { Catalog } from "./catalog.ts";
import { createCatalog } from "./catalog.ts";
import type { OperationNaming } from "./naming.ts";
import type { Operation } from "./operation.ts";

/** Loads the module that defines an operation. */
type ModuleLoader = () => Promise<Readonly<Record<string, unknown>>>;

/**
 * The module of every built-in operation, by id and by former id (`aliases`), `dex` aside: its
 * operations read the whole catalog. The imports are literal, so `deno check` follows them and
 * `deno compile` embeds the modules, and lazy (deno.json's `lazy-dynamic-imports`): a module
 * loads when its operation is asked for.
 */
const OPERATION_MODULES: Readonly<Record<string, ModuleLoader>> = {
  "agent.get_context_bundle": () => import("../agent/ops/get_context_bundle.ts"),
  "agent.get_session_state": () => import("../agent/ops/get_session_state.ts"),
  "agent.get_anomalies": () => import("../agent/ops/get_anomalies.ts"),
  "agent.get_build_status": () => import("../agent/ops/get_build_status.ts"),
  "agent.get_external_changes": () => import("../agent/ops/get_external_changes.ts"),
  "agent.get_project_state": () => import("../agent/ops/get_project_state.ts"),
  "agent.get_peer_sessions": () => import("../agent/ops/get_peer_sessions.ts"),
  "agent.search_sessions": () => import("../agent/ops/search_sessions.ts"),
  "agent.get_session_transcript": () => import("../agent/ops/get_session_transcript.ts"),
  "agent.exec_query": () => import("../agent/ops/exec_query.ts"),
  "agent.overview": () => import("../agent/ops/overview.ts"),
  "agent.list_sessions": () => import("../agent/ops/list_sessions.ts"),
  "agent.usage_timeseries": () => import("../agent/ops/usage_timeseries.ts"),
  "agent.session_timeline": () => import("../agent/ops/session_timeline.ts"),
  "agent.list_anomalies": () => import("../agent/ops/list_anomalies.ts"),
  "agent.latency": () => import("../agent/ops/latency.ts"),
  "agent.tool_performance": () => import("../agent/ops/tool_performance.ts"),
  "agent.api_errors": () => import("../agent/ops/api_errors.ts"),
  "agent.cost_burn": () => import("../agent/ops/cost_burn.ts"),
  "agent.traces": () => import("../agent/ops/traces.ts"),
  "agent.security": () => import("../agent/ops/security.ts"),
  "docs.search": () => import("../docs/ops/search.ts"),
  "docs.grep": () => import("../docs/ops/grep.ts"),
  "docs.list": () => import("../docs/ops/list.ts"),
  "docs.get": () => import("../docs/ops/get.ts"),
  "docs.graph": () => import("../docs/ops/graph.ts"),
  "docs.status": () => import("../docs/ops/status.ts"),
  "docs.list_collections": () => import("../docs/ops/list_collections.ts"),
  "docs.list_snapshots": () => import("../docs/ops/list_snapshots.ts"),
  "docs.suggest_context": () => import("../docs/ops/suggest_context.ts"),
  "docs.semantic_dedupe": () => import("../docs/ops/semantic_dedupe.ts"),
  "docs.verify": () => import("../docs/ops/verify.ts"),
  "docs.add": () => import("../docs/ops/add.ts"),
  "docs.update": () => import("../docs/ops/update.ts"),
  "docs.delete": () => import("../docs/ops/delete.ts"),
  "docs.restore": () => import("../docs/ops/restore.ts"),
  "docs.export": () => import("../docs/ops/export.ts"),
  "docs.download": () => import("../docs/ops/download.ts"),
  "docs.repair": () => import("../docs/ops/repair.ts"),
  "doc_session.start": () => import("../docs/doc_session_ops/start.ts"),
  "doc_session.stop": () => import("../docs/doc_session_ops/stop.ts"),
  "doc_session.pin": () => import("../docs/doc_session_ops/pin.ts"),
  "doc_session.unpin": () => import("../docs/doc_session_ops/unpin.ts"),
  "doc_session.watch": () => import("../docs/doc_session_ops/watch.ts"),
  "session.start": () => import("../docs/doc_session_ops/start.ts"),
  "session.stop": () => import("../docs/doc_session_ops/stop.ts"),
  "session.pin": () => import("../docs/doc_session_ops/pin.ts"),
  "session.unpin": () => import("../docs/doc_session_ops/unpin.ts"),
  "session.watch": () => import("../docs/doc_session_ops/watch.ts"),
  "team.add_user": () => import("../team/ops/add_user.ts"),
  "team.revoke_user": () => import("../team/ops/revoke_user.ts"),
  "team.list_users": () => import("../team/ops/list_users.ts"),
  "sync.hello": () => import("../sync/ops/hello.ts"),
  "sync.push": () => import("../sync/ops/push.ts"),
  "sync.push_documents": () => import("../sync/ops/push_documents.ts"),
};

/**
 * The ids and former ids the index knows, in its order (for the test that holds it to the
 * whole catalog).
 *
 * @example
 * ```ts
 * import { indexedOperationIds } from "./builtin_index.ts";
 * indexedOperationIds().includes("agent.usage_timeseries"); // true
 * ```
 */
export function indexedOperationIds(): string[] {
  return Object.keys(OPERATION_MODULES);
}

/**
 * The built-in operation `id` (or a former id of it), loaded with its module alone; undefined
 * when the index does not know it.
 *
 * @example
 * ```ts ignore
 * const operation = await loadIndexedOperation("agent.usage_timeseries");
 * operation?.title; // "Token and cost time series"
 * ```
 */
export async function loadIndexedOperation(id: string): Promise<Operation | undefined> {
  const load = Object.hasOwn(OPERATION_MODULES, id) ? OPERATION_MODULES[id] : undefined;
  if (load === undefined) return undefined;
  for (const value of Object.values(await load())) {
    if (isOperation(value) && (value.id === id || (value.aliases ?? []).includes(id))) {
      return value;
    }
  }
  return undefined;
}

function isOperation(value: unknown): value is Operation {
  if (value === null || typeof value !== "object") return false;
  const candidate = value as Partial<Operation>;
  return typeof candidate.id === "string" && typeof candidate.run === "function";
}

/**
 * A catalog to run the built-in operation `id` with: that operation alone in its cassette when
 * the index knows it; otherwise the whole built-in catalog (the `dex` operations, which read
 * it, and ids no operation has, which the executor answers with the closest ones). `naming` is
 * the naming the surface uses, as for `builtinCatalog`.
 *
 * @example
 * ```ts ignore
 * const catalog = await catalogForOperation("agent.usage_timeseries");
 * await executeOperation(catalog, "agent.usage_timeseries", {}, { scopes: ["agent:read"] });
 * ```
 */
export async function catalogForOperation(
  id: string,
  options: { naming?: OperationNaming } = {},
): Promise<Catalog> {
  const operation = await loadIndexedOperation(id);
  if (operation === undefined) {
    const { builtinCatalog } = await import("./builtin.ts");
    return builtinCatalog(options);
  }
  const cassette = operation.id.slice(0, operation.id.indexOf("."));
  return createCatalog({
    cassettes: [{
      name: cassette,
      source: "builtin",
      description: `The built-in '${cassette}' operation '${operation.id}', loaded alone.`,
      operations: [operation],
    }],
    naming: options.naming,
  });
}
