/**
 * The pure parsing layer of ingestion: hook normalization, secret redaction, JSONL reading,
 * per-agent transcript parsers and model pricing. Nothing here touches the store or the
 * network; the tailers and the hook endpoint are built on top of it.
 *
 * @module
 */

export * from "./types.ts";
export { canonicalEventName, normalizeHookPayload } from "./hook_normalizer.ts";
export type { NormalizeHookOptions } from "./hook_normalizer.ts";
export { redactionMarker, redactString, redactUnknown, redactValue } from "./redact.ts";
export { readJsonlLines } from "./jsonl_reader.ts";
export type { JsonlLine, JsonlReadOptions, JsonlReadResult } from "./jsonl_reader.ts";
export { commandPrefix, isShellTool, patchFiles, toolTarget } from "./tool_input.ts";
export type { ToolTarget } from "./tool_input.ts";
export { claudeFileRole, createClaudeCodeParser } from "./transcript_claude_code.ts";
export type { ClaudeFileRole } from "./transcript_claude_code.ts";
export { codexSessionIdFromPath, createCodexParser } from "./transcript_codex.ts";
export { copilotSessionIdFromPath, createCopilotCliParser } from "./transcript_copilot_cli.ts";
export { createOpenClawParser, openclawSessionIdFromPath } from "./transcript_openclaw.ts";
export { createTranscriptParser } from "./transcript_parser.ts";
export { detectAgentFromPath, transcriptSources } from "./transcript_paths.ts";
export type { TranscriptSource } from "./transcript_paths.ts";
export { costOf, DEFAULT_PRICES, normalizeModelId, priceFor } from "./pricing.ts";
export type { ModelPrice, TokenCounts } from "./pricing.ts";
