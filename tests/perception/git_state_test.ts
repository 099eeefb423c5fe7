import assert from "node:assert/strict";
import {
  diffGitStates,
  type GitState,
  pollGit,
  readGitState,
} from "../../src/perception/git_state.ts";

// Runs git in a scratch repository (never in the project's own).
async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: [
      "-c",
      "user.name=T",
      "-c",
      "user.email=t@example.com",
      "-c",
      "init.defaultBranch=main",
      ...args,
    ],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function commit(cwd: string, file: string, message: string): Promise<void> {
  await Deno.writeTextFile(`${cwd}/${file}`, message);
  await git(cwd, "add", file);
  await git(cwd, "commit", "-q", "-m", message);
}

Deno.test("readGitState tolerates directories outside any repository and a missing git", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const state = await readGitState(dir, { now: () => 5 });
    assert.deepEqual(state, { cwd: dir, is_repo: false, detached: false, checked_at: 5 });
    const noGit = await readGitState(dir, { git: "vantage-no-such-git" });
    assert.equal(noGit.is_repo, false);
    assert.equal(noGit.error, "git is not installed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readGitState reads branch, HEAD and subject, also in an empty repository", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await git(dir, "init", "-q");
    const empty = await readGitState(dir);
    assert.equal(empty.is_repo, true);
    assert.equal(empty.branch, "main");
    assert.equal(empty.head, undefined);
    await commit(dir, "a.txt", "first commit");
    const state = await readGitState(dir);
    assert.equal(state.branch, "main");
    assert.match(state.head ?? "", /^[0-9a-f]{40}$/);
    assert.equal(state.subject, "first commit");
    assert.equal(state.detached, false);
    assert.equal(await Deno.realPath(state.root!), await Deno.realPath(dir));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("pollGit reports new commits, branch switches and history rewrites", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await git(dir, "init", "-q");
    await commit(dir, "a.txt", "one");
    let { state, events } = await pollGit(dir, undefined);
    assert.deepEqual(events, [], "the first reading has nothing to compare with");

    await commit(dir, "b.txt", "two");
    await commit(dir, "c.txt", "three");
    ({ state, events } = await pollGit(dir, state));
    assert.deepEqual(events.map((e) => [e.kind, "subject" in e ? e.subject : ""]), [
      ["git_commit", "two"],
      ["git_commit", "three"],
    ]);

    ({ state, events } = await pollGit(dir, state));
    assert.deepEqual(events, [], "no change, no event");

    await git(dir, "checkout", "-q", "-b", "feature");
    ({ state, events } = await pollGit(dir, state));
    assert.equal(events.length, 1);
    assert.equal(events[0].kind, "git_branch_switch");
    assert.ok(
      events[0].kind === "git_branch_switch" && events[0].from === "main" &&
        events[0].to === "feature",
    );

    await git(dir, "reset", "-q", "--hard", "HEAD~1");
    ({ state, events } = await pollGit(dir, state));
    assert.equal(events.length, 1);
    assert.equal(events[0].kind, "git_head_move");

    await git(dir, "checkout", "-q", "--detach");
    ({ state, events } = await pollGit(dir, state));
    assert.equal(state.detached, true);
    assert.ok(events[0].kind === "git_branch_switch" && events[0].to === undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("diffGitStates is silent when either reading is not a repository", () => {
  const repo: GitState = {
    cwd: "/r",
    is_repo: true,
    branch: "main",
    head: "a",
    detached: false,
    checked_at: 1,
  };
  const none: GitState = { cwd: "/r", is_repo: false, detached: false, checked_at: 2 };
  assert.deepEqual(diffGitStates(repo, none), []);
  assert.deepEqual(diffGitStates(none, repo), []);
  assert.deepEqual(diffGitStates(undefined, repo), []);
  assert.deepEqual(
    diffGitStates({ ...repo, head: undefined }, { ...repo, subject: "init", checked_at: 3 }),
    [
      { kind: "git_commit", sha: "a", subject: "init", branch: "main", ts: 3 },
    ],
  );
});
