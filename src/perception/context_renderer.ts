/**
 * Renders the `<vantage-context>` block injected into an agent's next prompt: project and
 * stack, session counters, current focus, recent files, build state, external changes and
 * active anomalies.
 *
 * Only what changed since the previous injection into the same session is re-sent: the caller
 * keeps the snapshot it last rendered and passes it back; sections whose content is unchanged
 * are left out, and when nothing but the counters changed nothing is injected at all (most turns
 * change nothing, and repeating the same block wastes the agent's context). The block stays
 * under a token budget (about 500 tokens, estimated at 4 characters a token) by shortening lists
 * ("+N more") and then dropping the least useful parts. Output is deterministic.
 *
 * @module
 */

import type { AnomalySeverity } from "./anomaly_types.ts";

/** Build state as shown in the block. */
export interface BuildSnapshot {
  /** Outcome of the last run, or `running`. */
  status: "ok" | "failed" | "running";
  /** Command of the last run. */
  command?: string;
  /** Build sensor tag. */
  tag?: string;
  /** Exit code of the last run. */
  exit_code?: number;
  /** Failed runs in the last 30 minutes. */
  errors_30m?: number;
  /** First error of the last failed run, one line. */
  last_error?: string;
  /** Age of the last run, ms (not compared between snapshots). */
  age_ms?: number;
}

/** An anomaly as shown in the block. */
export interface AnomalySnapshot {
  /** Anomaly kind. */
  kind: string;
  /** How urgent it is. */
  severity: AnomalySeverity;
  /** What was observed. */
  evidence: string;
  /** What to do about it. */
  suggestion: string;
  /** Files it is about. */
  related_files?: string[];
  /** Identity used to tell "the same anomaly" between snapshots; kind + files when absent. */
  fingerprint?: string;
}

/** Everything the block can say. Every part is optional; empty parts are not rendered. */
export interface ContextSnapshot {
  /** Project name, root and stack. */
  project?: {
    name: string;
    /** Absolute root: paths under it are shown relative. */
    root?: string;
    /** One line, e.g. `TypeScript · build=deno check · test=deno test`. */
    stack?: string;
  };
  /** Session id and counters (counters are not compared between snapshots). */
  session?: {
    id: string;
    duration_ms?: number;
    tool_calls?: number;
    tokens_in?: number;
    tokens_out?: number;
  };
  /** The file the session works on most right now. */
  focus?: string;
  /** Files the session touched recently, most recent first. */
  recent_files?: string[];
  /** Latest build sensor state. */
  build?: BuildSnapshot;
  /** Files changed outside the agents, and git events. */
  external_changes?: {
    files: string[];
    /** Git events, one line each (`commit 3f4e920 "Fix parser" on main`). */
    git?: string[];
  };
  /** Active anomalies. */
  anomalies?: AnomalySnapshot[];
}

/** Sections of the block, in rendering order. */
export type ContextSection =
  | "project"
  | "session"
  | "focus"
  | "recent_files"
  | "build"
  | "external"
  | "anomalies";

/** Options for {@linkcode renderContext}. */
export interface RenderContextOptions {
  /** Token budget (chars / 4). Default 500. */
  maxTokens?: number;
  /** Render every non-empty section even when nothing changed (SessionStart, PreCompact). */
  force?: boolean;
  /** A line placed before the sections (e.g. "Preserve through compaction — current state:"). */
  header?: string;
}

/** What {@linkcode renderContext} produced. */
export interface RenderedContext {
  /** The block, or `""` when there is nothing new to say. */
  text: string;
  /** Sections included. */
  sections: ContextSection[];
  /** Estimated tokens of `text`. */
  tokens: number;
  /** Something was shortened or dropped to fit the budget. */
  truncated: boolean;
}

/**
 * Estimates tokens as characters / 4, rounded up — close enough for budgets, and free.
 *
 * @example
 * ```ts
 * estimateTokens("12345678"); // 2
 * ```
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const SEVERITY_RANK: Readonly<Record<AnomalySeverity, number>> = {
  critical: 0,
  warning: 1,
  info: 2,
};

// What identifies each section's content for change detection (volatile parts left out).
function sectionKeys(s: ContextSnapshot): Record<Exclude<ContextSection, "session">, string> {
  const anomalies = [...(s.anomalies ?? [])]
    .map((a) =>
      `${a.severity}|${a.fingerprint ?? `${a.kind}|${(a.related_files ?? []).join(",")}`}`
    )
    .sort();
  const build = s.build === undefined ? "" : JSON.stringify([
    s.build.status,
    s.build.command ?? "",
    s.build.tag ?? "",
    s.build.exit_code ?? null,
    s.build.errors_30m ?? 0,
    s.build.last_error ?? "",
  ]);
  return {
    project: s.project === undefined ? "" : JSON.stringify([s.project.name, s.project.stack ?? ""]),
    focus: s.focus ?? "",
    recent_files: JSON.stringify(s.recent_files ?? []),
    build,
    external: s.external_changes === undefined
      ? ""
      : JSON.stringify([[...s.external_changes.files].sort(), s.external_changes.git ?? []]),
    anomalies: JSON.stringify(anomalies),
  };
}

function isEmpty(s: ContextSnapshot, section: Exclude<ContextSection, "session">): boolean {
  switch (section) {
    case "project":
      return s.project === undefined;
    case "focus":
      return s.focus === undefined || s.focus === "";
    case "recent_files":
      return (s.recent_files ?? []).length === 0;
    case "build":
      return s.build === undefined;
    case "external":
      return s.external_changes === undefined ||
        (s.external_changes.files.length === 0 && (s.external_changes.git ?? []).length === 0);
    case "anomalies":
      return (s.anomalies ?? []).length === 0;
  }
}

const CONTENT_SECTIONS: ReadonlyArray<Exclude<ContextSection, "session">> = [
  "project",
  "focus",
  "recent_files",
  "build",
  "external",
  "anomalies",
];

/**
 * The sections whose content differs from the previous snapshot (all non-empty ones when there
 * is none). Session counters never count as a change. A section that emptied counts only for
 * anomalies (the agent should hear they are resolved).
 *
 * @example
 * ```ts
 * changedSections({ focus: "a.ts" }, { focus: "a.ts" }); // []
 * changedSections({ focus: "b.ts" }, { focus: "a.ts" }); // ["focus"]
 * ```
 */
export function changedSections(
  current: ContextSnapshot,
  previous?: ContextSnapshot,
): Array<Exclude<ContextSection, "session">> {
  if (previous === undefined) return CONTENT_SECTIONS.filter((s) => !isEmpty(current, s));
  const now = sectionKeys(current);
  const before = sectionKeys(previous);
  return CONTENT_SECTIONS.filter((section) => {
    if (now[section] === before[section]) return false;
    if (!isEmpty(current, section)) return true;
    return section === "anomalies" && !isEmpty(previous, section);
  });
}

function relativePath(path: string, root: string | undefined): string {
  let out = path;
  if (root !== undefined && root !== "" && path.startsWith(`${root}/`)) {
    out = path.slice(root.length + 1);
  }
  if (out.length > 60) {
    const parts = out.split("/");
    if (parts.length > 3) out = `…/${parts.slice(-3).join("/")}`;
    if (out.length > 60) out = `…${out.slice(out.length - 59)}`;
  }
  return out;
}

function clipLine(text: string, max: number): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

function list(items: readonly string[], max: number): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")} +${items.length - max} more`;
}

function formatAge(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return "just now";
  if (min < 90) return `${min} min ago`;
  return `${Math.round(min / 60)} h ago`;
}

function formatCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

// How hard to squeeze; each level is tried in turn until the block fits.
interface Level {
  files: number;
  anomalies: number;
  evidence: number;
  suggestion: number;
  dropRecent: boolean;
  dropProject: boolean;
  dropExternalGit: boolean;
}

const LEVELS: readonly Level[] = [
  {
    files: 5,
    anomalies: 4,
    evidence: 240,
    suggestion: 200,
    dropRecent: false,
    dropProject: false,
    dropExternalGit: false,
  },
  {
    files: 3,
    anomalies: 4,
    evidence: 140,
    suggestion: 140,
    dropRecent: false,
    dropProject: false,
    dropExternalGit: false,
  },
  {
    files: 3,
    anomalies: 3,
    evidence: 0,
    suggestion: 120,
    dropRecent: false,
    dropProject: false,
    dropExternalGit: true,
  },
  {
    files: 2,
    anomalies: 2,
    evidence: 0,
    suggestion: 100,
    dropRecent: true,
    dropProject: false,
    dropExternalGit: true,
  },
  {
    files: 1,
    anomalies: 1,
    evidence: 0,
    suggestion: 90,
    dropRecent: true,
    dropProject: true,
    dropExternalGit: true,
  },
];

interface TaggedLine {
  text: string;
  section?: ContextSection;
}

function renderLines(
  s: ContextSnapshot,
  sections: ReadonlySet<ContextSection>,
  level: Level,
  header: string | undefined,
): TaggedLine[] {
  const root = s.project?.root;
  const lines: TaggedLine[] = [];
  let section: ContextSection | undefined;
  const push = (text: string): void => {
    lines.push({ text, section });
  };
  if (header !== undefined && header !== "") push(clipLine(header, 200));
  section = "project";
  if (sections.has("project") && s.project !== undefined && !level.dropProject) {
    const stack = s.project.stack !== undefined && s.project.stack !== ""
      ? ` (${clipLine(s.project.stack, 120)})`
      : "";
    push(`project: ${s.project.name}${stack}`);
  }
  section = "session";
  if (s.session !== undefined) {
    const parts = [`session: ${s.session.id.slice(0, 8)}`];
    if (s.session.duration_ms !== undefined) {
      parts.push(`${Math.round(s.session.duration_ms / 60_000)} min`);
    }
    if (s.session.tool_calls !== undefined) parts.push(`${s.session.tool_calls} tool calls`);
    if (s.session.tokens_in !== undefined || s.session.tokens_out !== undefined) {
      parts.push(
        `tokens in=${formatCount(s.session.tokens_in ?? 0)} out=${
          formatCount(s.session.tokens_out ?? 0)
        }`,
      );
    }
    push(parts.join(" · "));
  }
  section = "focus";
  if (sections.has("focus") && s.focus !== undefined && s.focus !== "") {
    push(`focus: ${relativePath(s.focus, root)}`);
  }
  section = "recent_files";
  if (sections.has("recent_files") && !level.dropRecent && (s.recent_files ?? []).length > 0) {
    push(`recent_files: ${list(s.recent_files!.map((f) => relativePath(f, root)), level.files)}`);
  }
  section = "build";
  if (sections.has("build") && s.build !== undefined) {
    const b = s.build;
    const what = b.command !== undefined
      ? ` \`${clipLine(b.command, 60)}\``
      : b.tag !== undefined
      ? ` ${b.tag}`
      : "";
    let line = b.status === "running"
      ? `build: running${what}`
      : b.status === "ok"
      ? `build: ok${what}`
      : `build: FAILED${what}${b.exit_code !== undefined ? ` exit=${b.exit_code}` : ""}`;
    if ((b.errors_30m ?? 0) > 0) {
      line += ` · ${b.errors_30m} failed run${b.errors_30m === 1 ? "" : "s"} in 30 min`;
    }
    if (b.age_ms !== undefined) line += ` · ${formatAge(b.age_ms)}`;
    push(line);
    if (b.status === "failed" && b.last_error !== undefined && b.last_error !== "") {
      push(`build_error: ${clipLine(b.last_error, 200)}`);
    }
  }
  section = "external";
  if (sections.has("external") && s.external_changes !== undefined) {
    const files = s.external_changes.files.map((f) => relativePath(f, root)).sort();
    const git = level.dropExternalGit
      ? (s.external_changes.git ?? []).slice(0, 1)
      : s.external_changes.git ?? [];
    if (files.length > 0) push(`external_changes: ${list(files, level.files)}`);
    for (const event of git.slice(0, 2)) push(`git: ${clipLine(event, 120)}`);
  }
  section = "anomalies";
  if (sections.has("anomalies")) {
    const anomalies = [...(s.anomalies ?? [])].sort((a, b) =>
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
      (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) ||
      (a.evidence < b.evidence ? -1 : a.evidence > b.evidence ? 1 : 0)
    );
    if (anomalies.length === 0) {
      push("anomalies: none (earlier ones resolved)");
    } else {
      push("anomalies:");
      for (const a of anomalies.slice(0, level.anomalies)) {
        const evidence = level.evidence > 0 ? ` ${clipLine(a.evidence, level.evidence)}` : "";
        push(
          `- [${a.severity}] ${a.kind}:${evidence} → ${clipLine(a.suggestion, level.suggestion)}`,
        );
      }
      if (anomalies.length > level.anomalies) push(`- +${anomalies.length - level.anomalies} more`);
    }
  }
  return lines;
}

/**
 * Renders the block for `current`, leaving out what `previous` (the snapshot last injected
 * into the same session) already said. Returns empty text when nothing changed.
 *
 * @example
 * ```ts
 * const first = renderContext(snapshot);          // full block
 * const next = renderContext(snapshot, snapshot); // { text: "", … } — nothing new
 * ```
 */
export function renderContext(
  current: ContextSnapshot,
  previous?: ContextSnapshot,
  options: RenderContextOptions = {},
): RenderedContext {
  const maxTokens = options.maxTokens ?? 500;
  const changed = options.force
    ? CONTENT_SECTIONS.filter((s) => !isEmpty(current, s))
    : changedSections(current, previous);
  if (
    changed.length === 0 &&
    !(options.force && (current.session !== undefined || options.header !== undefined))
  ) {
    return { text: "", sections: [], tokens: 0, truncated: false };
  }
  const sections = new Set<ContextSection>(changed);
  const frame = (lines: readonly TaggedLine[]): string =>
    ["<vantage-context>", ...lines.map((l) => l.text), "</vantage-context>"].join("\n");
  const included = (
    lines: readonly TaggedLine[],
  ): ContextSection[] => [
    ...new Set(lines.map((l) => l.section).filter((x): x is ContextSection => x !== undefined)),
  ];
  for (let i = 0; i < LEVELS.length; i++) {
    const lines = renderLines(current, sections, LEVELS[i], options.header);
    const text = frame(lines);
    if (estimateTokens(text) <= maxTokens) {
      return { text, sections: included(lines), tokens: estimateTokens(text), truncated: i > 0 };
    }
    if (i === LEVELS.length - 1) {
      // Still too long at the tightest level: drop whole lines from the end, keeping the frame.
      const kept = [...lines];
      const marker: TaggedLine = { text: "…" };
      while (kept.length > 0 && estimateTokens(frame([...kept, marker])) > maxTokens) kept.pop();
      const cut = frame([...kept, marker]);
      return { text: cut, sections: included(kept), tokens: estimateTokens(cut), truncated: true };
    }
  }
  return { text: "", sections: [], tokens: 0, truncated: false };
}
