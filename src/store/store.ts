/**
 * The whole store as one interface: the five areas' stores, what belongs
 * to no area (store-wide settings, the change feed's marks), and the unit of
 * work that makes several writes one. A backend implements {@linkcode Store}
 * once; SQLite's is {@linkcode sqliteStore}.
 *
 * Vantage's own code still calls the SQLite repository functions with a
 * connection (the modules of each area's folder); this is the seam a second
 * backend plugs into, so what it must provide is written down and checked.
 *
 * @module
 */
import { type AgentStore, sqliteAgentStore } from "./agent/agent_store.ts";
import { type ChangeMarks, changeMarks } from "./change_marks.ts";
import { type DatabaseSync, writing } from "./database.ts";
import { type DocsStore, sqliteDocsStore } from "./docs/docs_store.ts";
import { type PerceptionStore, sqlitePerceptionStore } from "./perception/perception_store.ts";
import type { Answer, StoreMode } from "./repository.ts";
import { getStoreMeta, setStoreMeta } from "./store_meta.ts";
import { sqliteTeamStore, type TeamStore } from "./team/team_store.ts";
import { sqliteTelemetryStore, type TelemetryStore } from "./telemetry/telemetry_store.ts";

/** Every area of the store, and what belongs to none. */
export interface Store<M extends StoreMode = "sync"> {
  /** Agent activity: hook events, sessions, messages, usage. */
  readonly agent: AgentStore<M>;
  /** Perception: builds, file changes, git moves, anomalies, project state. */
  readonly perception: PerceptionStore<M>;
  /** Document memory. */
  readonly docs: DocsStore<M>;
  /** OpenTelemetry intake: raw signals, model and tool calls, API errors, cost. */
  readonly telemetry: TelemetryStore<M>;
  /** Team mode: the people tokens were issued to, their roles and revocations. */
  readonly team: TeamStore<M>;
  /** The change feed's high-water marks (new sessions, anomaly emissions, build runs). */
  changeMarks(): Answer<ChangeMarks, M>;
  /** A store-wide setting. */
  getStoreMeta(key: string): Answer<string | undefined, M>;
  /** Stores a store-wide setting. */
  setStoreMeta(key: string, value: string): Answer<void, M>;
  /**
   * Runs `work` as one write: everything it writes through the store it is given commits
   * together or not at all. Called inside a write already open (a hook's rules run inside the
   * write that stores the hook), `work` joins it. SQLite's work must be synchronous (see database.ts's
   * `transaction`); a server backend hands `work` a store bound to one connection of its pool.
   */
  transaction<T>(work: (store: Store<M>) => Answer<T, M>): Answer<T, M>;
}

/**
 * The SQLite store on one connection.
 *
 * @example
 * ```ts
 * import { openDatabase } from "./database.ts";
 * import { sqliteStore } from "./store.ts";
 * const store = sqliteStore(openDatabase(":memory:"));
 * store.transaction((s) => s.setStoreMeta("k", "v"));
 * store.getStoreMeta("k"); // "v"
 * ```
 */
export function sqliteStore(db: DatabaseSync): Store<"sync"> {
  // One per connection: its bindings are made once, however often a caller asks.
  const known = SQLITE_STORES.get(db);
  if (known !== undefined) return known;
  const store: Store<"sync"> = {
    agent: sqliteAgentStore(db),
    perception: sqlitePerceptionStore(db),
    docs: sqliteDocsStore(db),
    telemetry: sqliteTelemetryStore(db),
    team: sqliteTeamStore(db),
    changeMarks: () => changeMarks(db),
    getStoreMeta: (key) => getStoreMeta(db, key),
    setStoreMeta: (key, value) => setStoreMeta(db, key, value),
    transaction: (work) => writing(db, () => work(store)),
  };
  SQLITE_STORES.set(db, store);
  return store;
}

const SQLITE_STORES = new WeakMap<DatabaseSync, Store<"sync">>();
