/**
 * Where each agent keeps its session transcripts, and which agent wrote a given file.
 *
 * Only the layout below a root is relied on (file names, fixed folder names), never the
 * encoded project folder names, which are lossy: the cwd is read from the records.
 *
 * @module
 */

import { join } from "node:path";
import type { AgentName } from "../../model/agent_records.ts";

/** One place an agent writes transcripts. */
export interface TranscriptSource {
  /** Agent that writes the files. */
  agent: AgentName;
  /** Folder to watch or walk. */
  root: string;
  /** Glob of transcript files, relative to {@link root}, for documentation and display. */
  glob: string;
  /** Tells whether a path relative to {@link root} (either separator) is a transcript. */
  matches: (relativePath: string) => boolean;
  /**
   * The transcript a matching file belongs to, when that is another file (OpenClaw's store
   * for its `-wal`); absent: the file itself.
   */
  transcriptOf?: (path: string) => string;
}

function norm(path: string): string {
  return path.replaceAll("\\", "/");
}

/**
 * The transcript locations of every supported agent under a home folder:
 * Claude `~/.claude/projects/**\/*.jsonl`, Codex `~/.codex/sessions/**\/rollout-*.jsonl` and
 * `~/.codex/archived_sessions/*.jsonl`, Copilot `~/.copilot/session-state/*\/events.jsonl` and its
 * OpenTelemetry file export `~/.copilot/otel/*.jsonl`,
 * OpenClaw `~/.openclaw/agents/*\/sessions/*.jsonl` (before 2026.8) and its SQLite store
 * `~/.openclaw/agents/*\/agent/openclaw-agent.sqlite` (2026.8 and later).
 *
 * @example
 * ```ts
 * const sources = transcriptSources("/home/me");
 * sources[0].root; // "/home/me/.claude/projects"
 * sources[0].matches("-home-me-app/0b1c.jsonl"); // true
 * ```
 */
export function transcriptSources(home: string): TranscriptSource[] {
  return [
    {
      agent: "claude_code",
      root: join(home, ".claude", "projects"),
      glob: "**/*.jsonl",
      matches: (p) => norm(p).endsWith(".jsonl"),
    },
    {
      agent: "codex",
      root: join(home, ".codex", "sessions"),
      glob: "**/rollout-*.jsonl",
      matches: (p) => /(^|\/)rollout-[^/]*\.jsonl$/.test(norm(p)),
    },
    {
      agent: "codex",
      root: join(home, ".codex", "archived_sessions"),
      glob: "*.jsonl",
      matches: (p) => /^[^/]+\.jsonl$/.test(norm(p)),
    },
    {
      agent: "copilot_cli",
      root: join(home, ".copilot", "session-state"),
      glob: "*/events.jsonl",
      matches: (p) => /^[^/]+\/events\.jsonl$/.test(norm(p)),
    },
    {
      // Copilot's OpenTelemetry file export (COPILOT_OTEL_FILE_EXPORTER_PATH), where its token
      // usage and latency are.
      agent: "copilot_cli",
      root: join(home, ".copilot", "otel"),
      glob: "*.jsonl",
      matches: (p) => /^[^/]+\.jsonl$/.test(norm(p)),
    },
    {
      agent: "openclaw",
      root: join(home, ".openclaw", "agents"),
      glob: "*/sessions/*.jsonl, */agent/openclaw-agent.sqlite",
      matches: (p) =>
        /^[^/]+\/sessions\/[^/]+\.jsonl$/.test(norm(p)) ||
        /^[^/]+\/agent\/openclaw-agent\.sqlite(-wal)?$/.test(norm(p)),
      // A write to the store lands in its WAL first.
      transcriptOf: (path) => path.replace(/-wal$/, ""),
    },
  ];
}

/**
 * Whether a path is one of Copilot CLI's OpenTelemetry files (`…/otel/<name>.jsonl`) rather
 * than its session events (`…/session-state/<id>/events.jsonl`).
 *
 * @example
 * ```ts
 * isCopilotOtelPath("/h/.copilot/otel/copilot-otel.jsonl"); // true
 * isCopilotOtelPath("/h/.copilot/session-state/abc/events.jsonl"); // false
 * ```
 */
export function isCopilotOtelPath(path: string): boolean {
  const p = norm(path);
  // A session whose id is "otel" keeps its events in session-state/otel/events.jsonl.
  return /(^|\/)otel\/[^/]+\.jsonl$/.test(p) && !/(^|\/)session-state\/[^/]+\/[^/]+$/.test(p);
}

/**
 * Tells which agent wrote a transcript file, from its path alone; `undefined` when the path
 * is not a transcript of a known agent. Works for custom homes (`CODEX_HOME`, `COPILOT_HOME`,
 * `OPENCLAW_STATE_DIR`) as long as the layout below them is the standard one.
 *
 * @example
 * ```ts
 * detectAgentFromPath("/h/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-x.jsonl"); // "codex"
 * detectAgentFromPath("/h/.copilot/session-state/abc/events.jsonl"); // "copilot_cli"
 * detectAgentFromPath("/tmp/notes.jsonl"); // undefined
 * ```
 */
export function detectAgentFromPath(path: string): AgentName | undefined {
  const p = norm(path);
  if (/\/agents\/[^/]+\/agent\/openclaw-agent\.sqlite$/.test(p)) return "openclaw";
  if (!/\.jsonl$/.test(p)) return undefined;
  if (/\/\.claude\/projects\/.+\.jsonl$/.test(p)) return "claude_code";
  if (/\/rollout-[^/]*\.jsonl$/.test(p) && /\/(sessions|archived_sessions)\//.test(p)) {
    return "codex";
  }
  if (/\/\.codex\/archived_sessions\/[^/]+\.jsonl$/.test(p)) return "codex";
  if (/\/session-state\/[^/]+\/events\.jsonl$/.test(p)) return "copilot_cli";
  if (/\/\.copilot\/otel\/[^/]+\.jsonl$/.test(p)) return "copilot_cli";
  if (/\/agents\/[^/]+\/sessions\/[^/]+\.jsonl$/.test(p)) return "openclaw";
  return undefined;
}
