/**
 * One entry point to the per-agent transcript parsers.
 *
 * @module
 */

import { createClaudeCodeParser } from "./transcript_claude_code.ts";
import { createCodexParser } from "./transcript_codex.ts";
import { createCopilotCliParser } from "./transcript_copilot_cli.ts";
import { createOpenClawParser } from "./transcript_openclaw.ts";
import type {
  AgentName,
  TranscriptParser,
  TranscriptParserOptions,
} from "../../model/agent_records.ts";

/**
 * Creates the transcript parser of an agent. Pass the file path (for session ids and
 * sub-agent detection) and, after a restart, the state saved beside the byte offset.
 *
 * @example
 * ```ts
 * const parser = createTranscriptParser("codex", { path: "/h/.codex/sessions/x/rollout-a.jsonl" });
 * const saved = parser.saveState();
 * const resumed = createTranscriptParser("codex", { path: "/h/.codex/sessions/x/rollout-a.jsonl", state: saved });
 * ```
 */
export function createTranscriptParser(
  agent: AgentName,
  options: TranscriptParserOptions = {},
): TranscriptParser {
  switch (agent) {
    case "claude_code":
      return createClaudeCodeParser(options);
    case "codex":
      return createCodexParser(options);
    case "copilot_cli":
      return createCopilotCliParser(options);
    case "openclaw":
      return createOpenClawParser(options);
  }
}
