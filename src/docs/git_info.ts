/**
 * Where a folder stands in git (commit, branch, remote), recorded with a
 * directory snapshot. Asked of the `git` executable only when this process
 * may run it; anything that fails simply leaves the fields empty.
 *
 * @module
 */
import { mayRun } from "./path_access.ts";

/** A folder's git position; fields are null when unknown. */
export interface GitInfo {
  /** Full commit id of HEAD. */
  commit: string | null;
  /** Current branch name (null when detached). */
  branch: string | null;
  /** URL of the `origin` remote (or the first remote). */
  remote: string | null;
}

const NONE: GitInfo = { commit: null, branch: null, remote: null };

/**
 * Reads the git position of `directory`.
 *
 * @example
 * ```ts ignore
 * const info = await gitInfo("/repo");
 * console.log(info.commit, info.branch, info.remote);
 * ```
 */
export async function gitInfo(directory: string): Promise<GitInfo> {
  if (!mayRun("git")) return NONE;
  const commit = await git(directory, ["rev-parse", "HEAD"]);
  if (commit === null) return NONE;
  const branch = await git(directory, ["rev-parse", "--abbrev-ref", "HEAD"]);
  let remote = await git(directory, ["config", "--get", "remote.origin.url"]);
  if (remote === null) {
    const remotes = await git(directory, ["remote"]);
    const first = remotes?.split("\n")[0];
    if (first) remote = await git(directory, ["config", "--get", `remote.${first}.url`]);
  }
  return { commit, branch: branch === "HEAD" ? null : branch, remote };
}

async function git(directory: string, args: string[]): Promise<string | null> {
  try {
    const output = await new Deno.Command("git", {
      args: ["-C", directory, ...args],
      stdout: "piped",
      stderr: "null",
      stdin: "null",
    }).output();
    if (!output.success) return null;
    const text = new TextDecoder().decode(output.stdout).trim();
    return text === "" ? null : text;
  } catch {
    return null;
  }
}
