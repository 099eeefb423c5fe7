/**
 * The pure parsing layer of ingestion: hook normalization, secret redaction, JSONL reading,
 * per-agent transcript parsers and model pricing. Nothing here touches the store or the
 * network; the tailers and the hook endpoint are built on top of it.
 *
 * @module
 */

export * from "../model/agent_records.ts";
export { canonicalEventName, normalizeHookPayload } from "./hooks/hook_normalizer.ts";
export type { NormalizeHookOptions } from "./hooks/hook_normalizer.ts";
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
export { costOf, DEFAULT_PRICES, normalizeModelId, priceFor } from "./usage/pricing.ts";
export type { ModelPrice, TokenCounts } from "./usage/pricing.ts";
