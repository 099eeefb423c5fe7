/**
 * The `agent` cassette: TMA1's ten perception and history operations, and
 * the cross-session reads the dashboard browses.
 *
 * @module
 */
import type { Cassette } from "../../ops/operation.ts";
import { execQueryOperation } from "./exec_query.ts";
import { getAnomaliesOperation } from "./get_anomalies.ts";
import { getBuildStatusOperation } from "./get_build_status.ts";
import { getContextBundleOperation } from "./get_context_bundle.ts";
import { getExternalChangesOperation } from "./get_external_changes.ts";
import { getPeerSessionsOperation } from "./get_peer_sessions.ts";
import { getProjectStateOperation } from "./get_project_state.ts";
import { getSessionStateOperation } from "./get_session_state.ts";
import { getSessionTranscriptOperation } from "./get_session_transcript.ts";
import { listAnomaliesOperation } from "./list_anomalies.ts";
import { listSessionsOperation } from "./list_sessions.ts";
import { overviewOperation } from "./overview.ts";
import { searchSessionsOperation } from "./search_sessions.ts";
import { sessionTimelineOperation } from "./session_timeline.ts";
import { usageTimeseriesOperation } from "./usage_timeseries.ts";
import { apiErrorsOperation } from "./api_errors.ts";
import { costBurnOperation } from "./cost_burn.ts";
import { latencyOperation } from "./latency.ts";
import { toolPerformanceOperation } from "./tool_performance.ts";
import { tracesOperation } from "./traces.ts";
import { securityOperation } from "./security.ts";

/** The built-in `agent` cassette. */
export const agentCassette: Cassette = {
  name: "agent",
  source: "builtin",
  description:
    "What coding agents did and what is happening around them: sessions, anomalies, builds, changes.",
  operations: [
    getContextBundleOperation,
    getSessionStateOperation,
    getAnomaliesOperation,
    getBuildStatusOperation,
    getExternalChangesOperation,
    getProjectStateOperation,
    getPeerSessionsOperation,
    searchSessionsOperation,
    getSessionTranscriptOperation,
    execQueryOperation,
    // Dashboard reads: cross-session views a person browses rather than an agent asks for.
    overviewOperation,
    listSessionsOperation,
    usageTimeseriesOperation,
    sessionTimelineOperation,
    listAnomaliesOperation,
    // From the agents' OpenTelemetry: what transcripts cannot tell (timings, API errors).
    latencyOperation,
    toolPerformanceOperation,
    apiErrorsOperation,
    costBurnOperation,
    tracesOperation,
    // From hooks, transcripts and telemetry: risky commands and injection text, with evidence.
    securityOperation,
  ],
};
