/**
 * The table of agent adapters.
 *
 * @module
 */
import type { AdapterName, AgentAdapter } from "./agent.ts";
import { claudeCodeAdapter } from "./claude_code.ts";
import { codexAdapter } from "./codex.ts";
import { copilotCliAdapter } from "./copilot_cli.ts";
import { openclawAdapter } from "./openclaw.ts";

const ADAPTERS: Record<AdapterName, AgentAdapter> = {
  "claude-code": claudeCodeAdapter,
  "codex": codexAdapter,
  "copilot-cli": copilotCliAdapter,
  "openclaw": openclawAdapter,
};

/**
 * The adapter for an agent.
 *
 * @example
 * ```ts
 * import { adapterFor } from "./adapters.ts";
 * adapterFor("codex").title; // "Codex CLI"
 * ```
 */
export function adapterFor(name: AdapterName): AgentAdapter {
  return ADAPTERS[name];
}
