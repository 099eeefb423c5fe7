/**
 * The git sensor: reads HEAD and the branch of a working tree, and turns two successive
 * readings into events — new commits, branch switches, history rewrites (reset, rebase, amend).
 *
 * Git runs with `--no-optional-locks` (and `GIT_OPTIONAL_LOCKS=0`) so that polling never takes
 * the index lock an agent's own `git commit` needs. A directory that is not a repository, or a
 * machine without git, yields `is_repo: false` rather than an error.
 *
 * @module
 */

/** One reading of a working tree's git state. JSON-safe. */
export interface GitState {
  /** The directory asked about. */
  cwd: string;
  /** `cwd` is inside a git working tree. */
  is_repo: boolean;
  /** Top-level directory of the working tree. */
  root?: string;
  /** Full commit id of HEAD; absent in a repository without commits. */
  head?: string;
  /** Short branch name; absent when HEAD is detached. */
  branch?: string;
  /** HEAD points at a commit, not a branch. */
  detached: boolean;
  /** Subject line of the HEAD commit. */
  subject?: string;
  /** When the reading was taken, ms since the epoch. */
  checked_at: number;
  /** Why git could not be asked (not installed, timed out). Absent for "not a repository". */
  error?: string;
}

/** A commit as listed by {@linkcode listCommits}. */
export interface GitCommit {
  /** Full commit id. */
  sha: string;
  /** First line of the message. */
  subject: string;
  /** Author time, ms since the epoch. */
  ts: number;
}

/** What changed between two readings. */
export type GitEvent =
  | { kind: "git_commit"; sha: string; subject: string; branch?: string; ts: number }
  | { kind: "git_branch_switch"; from?: string; to?: string; sha?: string; ts: number }
  | {
    kind: "git_head_move";
    from: string;
    to: string;
    branch?: string;
    subject?: string;
    ts: number;
  };

/** Options for the functions that run git. */
export interface GitOptions {
  /** git executable. Default `git`. */
  git?: string;
  /** Give up after this long. Default 5000 ms. */
  timeoutMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface GitResult {
  ok: boolean;
  stdout: string;
  error?: string;
}

async function git(cwd: string, args: string[], options: GitOptions): Promise<GitResult> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? 5000);
  try {
    const output = await new Deno.Command(options.git ?? "git", {
      args: ["--no-optional-locks", "-C", cwd, ...args],
      env: { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal,
    }).output();
    return { ok: output.success, stdout: new TextDecoder().decode(output.stdout).trimEnd() };
  } catch (error) {
    if (signal.aborted) return { ok: false, stdout: "", error: "git timed out" };
    const message = error instanceof Deno.errors.NotFound
      ? "git is not installed"
      : error instanceof Error
      ? error.message
      : String(error);
    return { ok: false, stdout: "", error: message };
  }
}

/**
 * Reads HEAD, branch and HEAD's subject of the working tree containing `cwd`.
 *
 * @example
 * ```ts
 * const state = await readGitState("/repo");
 * state.branch; // "main"
 * state.head;   // "3f4e920…"
 * ```
 */
export async function readGitState(cwd: string, options: GitOptions = {}): Promise<GitState> {
  const now = options.now ?? Date.now;
  const top = await git(cwd, ["rev-parse", "--show-toplevel"], options);
  if (!top.ok) {
    const state: GitState = { cwd, is_repo: false, detached: false, checked_at: now() };
    if (top.error !== undefined) state.error = top.error;
    return state;
  }
  const [branch, head] = await Promise.all([
    git(cwd, ["symbolic-ref", "-q", "--short", "HEAD"], options),
    // `%x1f` separates fields without any chance of appearing in a subject.
    git(cwd, ["log", "-1", "--format=%H%x1f%s"], options),
  ]);
  const state: GitState = {
    cwd,
    is_repo: true,
    root: top.stdout,
    detached: !branch.ok,
    checked_at: now(),
  };
  if (branch.ok && branch.stdout !== "") state.branch = branch.stdout;
  if (head.ok && head.stdout !== "") {
    const [sha, subject] = head.stdout.split("\x1f");
    state.head = sha;
    if (subject !== undefined) state.subject = subject;
  }
  return state;
}

/**
 * Lists the commits reachable from `to` but not from `from`, newest first (at most `max`).
 * Returns undefined when `from` is not an ancestor of `to` (history was rewritten) or git fails.
 */
export async function listCommits(
  cwd: string,
  from: string,
  to: string,
  max = 20,
  options: GitOptions = {},
): Promise<GitCommit[] | undefined> {
  const ancestor = await git(cwd, ["merge-base", "--is-ancestor", from, to], options);
  if (!ancestor.ok) return undefined;
  const log = await git(cwd, [
    "log",
    `--max-count=${max}`,
    "--format=%H%x1f%at%x1f%s",
    `${from}..${to}`,
  ], options);
  if (!log.ok) return undefined;
  if (log.stdout === "") return [];
  return log.stdout.split("\n").map((line) => {
    const [sha, at, subject] = line.split("\x1f");
    return { sha, subject: subject ?? "", ts: Number(at) * 1000 };
  });
}

/**
 * Compares two readings: a branch switch, the commits made on the same branch (when the
 * caller resolved them with {@linkcode listCommits}), or a HEAD move that is not a fast-forward.
 * Pure: all git access happens before.
 *
 * @example
 * ```ts
 * diffGitStates(
 *   { cwd: "/r", is_repo: true, branch: "main", head: "a", detached: false, checked_at: 1 },
 *   { cwd: "/r", is_repo: true, branch: "fix", head: "a", detached: false, checked_at: 2 },
 * ); // [{ kind: "git_branch_switch", from: "main", to: "fix", sha: "a", ts: 2 }]
 * ```
 */
export function diffGitStates(
  previous: GitState | undefined,
  next: GitState,
  commits?: readonly GitCommit[],
): GitEvent[] {
  if (previous === undefined || !previous.is_repo || !next.is_repo) return [];
  const events: GitEvent[] = [];
  const ts = next.checked_at;
  if (previous.branch !== next.branch || previous.detached !== next.detached) {
    const event: GitEvent = { kind: "git_branch_switch", ts };
    if (previous.branch !== undefined) event.from = previous.branch;
    if (next.branch !== undefined) event.to = next.branch;
    if (next.head !== undefined) event.sha = next.head;
    events.push(event);
    return events;
  }
  if (previous.head === next.head || next.head === undefined) return events;
  if (previous.head === undefined) {
    // First commit of a fresh repository.
    events.push(commitEvent(next.head, next.subject ?? "", next.branch, ts));
    return events;
  }
  if (commits !== undefined) {
    // Oldest first: the order they were made in.
    for (const commit of [...commits].reverse()) {
      events.push(commitEvent(commit.sha, commit.subject, next.branch, commit.ts || ts));
    }
    return events;
  }
  const move: GitEvent = { kind: "git_head_move", from: previous.head, to: next.head, ts };
  if (next.branch !== undefined) move.branch = next.branch;
  if (next.subject !== undefined) move.subject = next.subject;
  events.push(move);
  return events;
}

function commitEvent(
  sha: string,
  subject: string,
  branch: string | undefined,
  ts: number,
): GitEvent {
  const event: GitEvent = { kind: "git_commit", sha, subject, ts };
  if (branch !== undefined) event.branch = branch;
  return event;
}

/**
 * Takes a new reading and reports what changed since `previous` (commits are listed with
 * `git log` when HEAD moved forward on the same branch). Pass the returned state next time.
 *
 * @example
 * ```ts
 * let state: GitState | undefined;
 * const poll = await pollGit("/repo", state);
 * state = poll.state;
 * poll.events; // [{ kind: "git_commit", sha, subject, branch, ts }, …]
 * ```
 */
export async function pollGit(
  cwd: string,
  previous: GitState | undefined,
  options: GitOptions & { maxCommits?: number } = {},
): Promise<{ state: GitState; events: GitEvent[] }> {
  const state = await readGitState(cwd, options);
  let commits: GitCommit[] | undefined;
  if (
    previous?.is_repo && state.is_repo && previous.branch === state.branch &&
    previous.detached === state.detached && previous.head !== undefined &&
    state.head !== undefined && previous.head !== state.head
  ) {
    commits = await listCommits(cwd, previous.head, state.head, options.maxCommits ?? 20, options);
  }
  return { state, events: diffGitStates(previous, state, commits) };
}
