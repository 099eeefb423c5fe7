import assert from "node:assert/strict";
import { AGENT_NAMES, parseAgentName } from "../../src/model/agent_records.ts";

Deno.test("parseAgentName accepts canonical names, CLI spellings and aliases", () => {
  const cases: [string, string | undefined][] = [
    ["claude_code", "claude_code"],
    ["claude-code", "claude_code"],
    ["Claude-Code", "claude_code"],
    ["cc", "claude_code"],
    ["claude", "claude_code"],
    ["codex", "codex"],
    ["copilot_cli", "copilot_cli"],
    ["copilot-cli", "copilot_cli"],
    ["copilot", "copilot_cli"],
    ["openclaw", "openclaw"],
    [" OpenClaw ", "openclaw"],
    ["vim", undefined],
    ["", undefined],
  ];
  for (const [input, expected] of cases) assert.equal(parseAgentName(input), expected, input);
  for (const name of AGENT_NAMES) assert.equal(parseAgentName(name), name);
});
