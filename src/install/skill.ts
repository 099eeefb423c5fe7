/**
 * The Claude Code skill (`~/.claude/skills/vantage/SKILL.md`) that teaches
 * the agent when to reach for which Vantage operation, written for the MCP
 * surface the agent was given.
 *
 * @module
 */
import type { SurfaceName } from "../mcp/surface.ts";

/** When to use which operation: the situation, then the operation id. */
const WHEN: ReadonlyArray<readonly [string, string]> = [
  ["Starting a task, or coming back to one", "agent.get_context_bundle"],
  ["What you already did in this session (files, commands, failures)", "agent.get_session_state"],
  ["You tried the same thing twice, or a command keeps failing", "agent.get_anomalies"],
  ["Before re-running a build or the tests", "agent.get_build_status"],
  ["A file is not what you wrote; something changed under you", "agent.get_external_changes"],
  ["Stack, build and test commands, key files of the project", "agent.get_project_state"],
  ["Other agents working in this repository now", "agent.get_peer_sessions"],
  ['"Did we solve this before?"', "agent.search_sessions"],
  ["Reading what happened in one earlier session", "agent.get_session_transcript"],
  ["A question no operation answers (counts, timelines)", "agent.exec_query"],
  ["Keeping a decision, a finding or a plan for later", "docs.add"],
  ["Finding kept notes and documents (ranked / exact text)", "docs.search / docs.grep"],
  ["Reading one kept document, or listing them", "docs.get / docs.list"],
  ["The exact arguments of any operation", "dex.describe"],
];

/**
 * The skill file's text for `surface` (default `dex`).
 *
 * @example
 * ```ts
 * import { skillMarkdown } from "./skill.ts";
 * skillMarkdown("dex").startsWith("---\nname: vantage\n"); // true
 * ```
 */
export function skillMarkdown(surface: SurfaceName = "dex"): string {
  const rows = WHEN.map(([situation, operation]) =>
    `| ${situation} | ${
      operation.split(" / ").map((id) => "`" + toolFor(surface, id) + "`").join(" / ")
    } |`
  );
  return `---
name: vantage
description: Memory and awareness for this project through the vantage MCP server. Use it when starting or resuming a task, when stuck or repeating yourself, before re-running a failing build, when files changed unexpectedly, to learn what other agents are doing, to find how a problem was solved before, and to keep or find notes.
---

# Vantage

Vantage records what coding agents do in this project (prompts, tool calls, failures, session
transcripts) and what happens around them (builds, files changed by someone else, git moves), and
keeps documents you ask it to remember. You reach it through the MCP server \`vantage\`.

## How to call it

${HOW[surface]}

## When to reach for which

| situation | ${surface === "full" ? "tool" : "operation"} |
| --- | --- |
${rows.join("\n")}

## Habits

- Hooks may already have put a \`<vantage-context>\` block in your prompt: that is the summary, so
  do not fetch the same facts again.
- One context bundle beats many small calls; ask for a smaller \`limit\` rather than paging through
  everything.
- \`exec_query\` runs one read-only SELECT; use \`dex.describe\` on it to see the tables first.
- Keep what a later session will need (a decision and why, a root cause, a working command) with
  \`docs.add\`; do not store secrets.
`;
}

const HOW: Record<SurfaceName, string> = {
  dex:
    `Two tools: \`search\` finds the operations you may run (give a few words, e.g. "build status"),
and \`execute\` runs one: \`{"operation_id": "agent.get_context_bundle", "arguments": {}}\`.
Several steps run as \`{"steps": [...]}\`, where \`"$prev"\` refers to the previous step's result.
Not sure of the arguments? Run \`dex.describe\` with \`{"target": "<operation_id>"}\` first.`,
  composite:
    `Three tools: \`query\` runs read operations (one, or a pipeline of steps where \`"$prev"\` is the
previous result; its \`describe\` step explains any operation), \`execute\` runs writes such as
\`docs.add\` (a batch, with \`continueOnError\`), and \`session\` starts, stops and pins work
sessions. Operations are named as below.`,
  full: `Each operation is its own tool: the \`agent\` tools keep their plain names
(\`get_context_bundle\`, …), the others are \`<cassette>_<name>\` (\`docs_search\`,
\`dex_describe\`, …). Each tool's schema lists its arguments.`,
};

function toolFor(surface: SurfaceName, operation: string): string {
  if (surface !== "full") return operation;
  const [cassette, name] = operation.split(".");
  return cassette === "agent" ? name : `${cassette}_${name}`;
}
