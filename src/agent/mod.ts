/**
 * The agent feature's public face: what agents did, taken in and read back.
 * Hook intake (normalization, limits, the spool a hook falls back to),
 * transcript parsers and the tailer that follows them, usage pricing, secret
 * redaction, history backfill, and the `agent` cassette of operations that
 * read it all. Code outside `src/agent/` imports the feature from here.
 *
 * The CLI's commands bypass this face on purpose: loading it loads the whole
 * feature (the operations, zod, the redaction rules), so each command
 * imports only the module it runs — `vantage hook`, run on every agent tool
 * call, loads `hooks/hook_delivery.ts` alone (`tests/rooms_test.ts` lists
 * these imports).
 *
 * @module
 */

export * from "../model/agent_records.ts";
export { agentCassette } from "./ops/cassette.ts";
export { backfill } from "./backfill.ts";
export type { BackfillOptions, BackfillProgress, BackfillSummary } from "./backfill.ts";
export { deliverHook } from "./hooks/hook_delivery.ts";
export type { DeliveryOutcome, DeliveryRequest } from "./hooks/hook_delivery.ts";
export {
  awaitsToolOutcome,
  prepareHookDelivery,
  storePreparedEvent,
  takeHookDelivery,
} from "./hooks/hook_intake.ts";
export type { HookDelivery, IntakeResult, PreparedDelivery } from "./hooks/hook_intake.ts";
export { DELIVERY_ID_MAX_CHARS, envelopeProblem, oversizedHookField } from "./hooks/hook_limits.ts";
export type { DeliveryEnvelope } from "./hooks/hook_limits.ts";
export { canonicalEventName, normalizeHookPayload } from "./hooks/hook_normalizer.ts";
export type { NormalizeHookOptions } from "./hooks/hook_normalizer.ts";
export { startServerInBackground } from "./hooks/server_autostart.ts";
export { appendToSpool, replaySpool, SpoolPaused } from "./hooks/spool.ts";
export type { ReplayCounts, SpoolEntry } from "./hooks/spool.ts";
export { redactionMarker, redactString, redactUnknown, redactValue } from "./redact/redact.ts";
export { readJsonlLines } from "./transcripts/jsonl_reader.ts";
export type { JsonlLine, JsonlReadOptions, JsonlReadResult } from "./transcripts/jsonl_reader.ts";
export { commandPrefix, isShellTool, patchFiles, toolTarget } from "./tool_input.ts";
export type { ToolTarget } from "./tool_input.ts";
export { claudeFileRole, createClaudeCodeParser } from "./transcripts/transcript_claude_code.ts";
export type { ClaudeFileRole } from "./transcripts/transcript_claude_code.ts";
export { codexSessionIdFromPath, createCodexParser } from "./transcripts/transcript_codex.ts";
export {
  copilotSessionIdFromPath,
  createCopilotCliParser,
} from "./transcripts/transcript_copilot_cli.ts";
export {
  createOpenClawParser,
  openclawSessionIdFromPath,
} from "./transcripts/transcript_openclaw.ts";
export { createTranscriptParser } from "./transcripts/transcript_parser.ts";
export { detectAgentFromPath, transcriptSources } from "./transcripts/transcript_paths.ts";
export type { TranscriptSource } from "./transcripts/transcript_paths.ts";
export { findTranscriptFiles, TranscriptTailer } from "./transcripts/transcript_tailer.ts";
export type { TailerOptions, TranscriptFile } from "./transcripts/transcript_tailer.ts";
export { loadPriceOverrides, priceOverridesPath } from "./usage/price_overrides.ts";
export { callPrice } from "./usage/usage_pricing.ts";
export {
  costOf,
  DEFAULT_PRICES,
  matchPrice,
  normalizeModelId,
  PRICE_SOURCES,
  PRICE_TABLE_DATE,
  priceFor,
} from "./usage/pricing.ts";
export type { ModelPrice, PriceRates, PriceSource, TokenCounts } from "./usage/pricing.ts";
export { OtlpBadData } from "./otlp/otlp_errors.ts";
export type { OtlpEncoding } from "./otlp/otlp_decode.ts";
export type { OtlpSignal } from "./otlp/otlp_schema.ts";
export type { OtlpSender } from "./otlp/otlp_intake.ts";
