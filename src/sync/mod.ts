/**
 * The sync feature's public face: laptop to team. A person's `vantage sync`
 * reads their own store by position and pushes it to a team server in
 * batches bounded in bytes, keeping a cursor per table of what the server
 * acknowledged; the server stores each record once by the key local
 * ingestion gave it, attributed to the person whose token pushed it. The
 * `sync` cassette holds the server's side. Code outside `src/sync/` imports
 * the feature from here.
 *
 * @module
 */

export { syncCassette } from "./ops/cassette.ts";
export { pushHistory } from "./push_history.ts";
export type { HistoryPushReport, Pusher, RefusedSession } from "./push_history.ts";
export { pushDocuments, teamDocumentPath } from "./push_documents.ts";
export type { DocumentEngine, DocumentPushOptions, DocumentPushReport } from "./push_documents.ts";
export { cursorKey, runSync } from "./sync_run.ts";
export type { SyncProgress, SyncRunOptions, SyncSummary, SyncTable } from "./sync_run.ts";
export { TeamServer } from "./team_server.ts";
export type { TeamServerOptions } from "./team_server.ts";
export { TEAM_TOKEN_FILE, teamTarget, teamToken, teamUrl, thisHost } from "./team_target.ts";
export type { TeamTarget } from "./team_target.ts";
