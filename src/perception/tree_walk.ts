/**
 * A bounded breadth-first walk over a project tree that honours the ignore rules, loading each
 * directory's `.gitignore` before looking at its entries. Shared by the project sensor (which
 * counts files) and the file watcher (which needs the directory list).
 *
 * Breadth-first matters for the budget: when a tree has more directories than the caller may
 * watch or scan, the shallow ones — where the source usually is — are kept.
 *
 * @module
 */

import { IgnoreMatcher, loadGitignore } from "./ignore_rules.ts";

/** Limits and callbacks for {@linkcode walkTree}. */
export interface WalkOptions {
  /** Rules to apply; `.gitignore` files met on the way are loaded into it. Default: a new one. */
  ignore?: IgnoreMatcher;
  /** Read `.gitignore` files while walking. Default true. */
  loadGitignores?: boolean;
  /** Stop after this many directories (the root counts). Default unlimited. */
  maxDirs?: number;
  /** Stop after reporting this many files. Default unlimited. */
  maxFiles?: number;
  /** Do not descend below this depth (root = 0). Default unlimited. */
  maxDepth?: number;
  /** Called for every kept file with its root-relative path and name. */
  onFile?: (relPath: string, name: string, depth: number) => void;
  /** Aborts the walk between directories. */
  signal?: AbortSignal;
  /**
   * Root-relative directory to start from (default the root). Its ancestors are assumed not
   * ignored and their `.gitignore` files already loaded into `ignore`.
   */
  start?: string;
}

/** What {@linkcode walkTree} saw. */
export interface WalkResult {
  /** Kept directories, root-relative (`""` is the root), in breadth-first order. */
  dirs: string[];
  /** Files reported to `onFile`. */
  files: number;
  /** Directories skipped by the ignore rules. */
  ignored_dirs: number;
  /** A limit stopped the walk before the whole tree was seen. */
  truncated: boolean;
  /** Directories queued but not visited when a limit stopped the walk (a lower bound). */
  pending_dirs: number;
  /** Directories that could not be read (permissions, removed while walking). */
  unreadable_dirs: number;
}

/**
 * Walks `root` breadth-first, skipping ignored entries and symbolic links (following links
 * could escape the project or loop).
 *
 * @example
 * ```ts
 * const { dirs } = await walkTree("/repo", { maxDirs: 2000 });
 * ```
 */
export async function walkTree(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const ignore = options.ignore ?? new IgnoreMatcher();
  const loadIgnores = options.loadGitignores ?? true;
  const maxDirs = options.maxDirs ?? Infinity;
  const maxFiles = options.maxFiles ?? Infinity;
  const maxDepth = options.maxDepth ?? Infinity;
  const result: WalkResult = {
    dirs: [],
    files: 0,
    ignored_dirs: 0,
    truncated: false,
    pending_dirs: 0,
    unreadable_dirs: 0,
  };
  const start = options.start ?? "";
  const startDepth = start === "" ? 0 : start.split("/").length;
  const queue: Array<{ rel: string; depth: number }> = [{ rel: start, depth: startDepth }];
  let head = 0;
  while (head < queue.length) {
    if (options.signal?.aborted || result.dirs.length >= maxDirs || result.files >= maxFiles) {
      result.truncated = true;
      break;
    }
    const { rel, depth } = queue[head++];
    result.dirs.push(rel);
    if (loadIgnores) await loadGitignore(ignore, root, rel);
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(rel === "" ? root : `${root}/${rel}`));
    } catch {
      result.unreadable_dirs++;
      continue;
    }
    // Sorted so that which directories survive a truncation does not depend on the disk.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.isSymlink) continue;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) {
        if (ignore.ignoresEntry(childRel, true)) {
          result.ignored_dirs++;
        } else if (depth + 1 <= maxDepth) {
          queue.push({ rel: childRel, depth: depth + 1 });
        }
      } else if (entry.isFile && !ignore.ignoresEntry(childRel, false)) {
        if (result.files >= maxFiles) {
          result.truncated = true;
          continue;
        }
        result.files++;
        options.onFile?.(childRel, entry.name, depth + 1);
      }
    }
  }
  result.pending_dirs = queue.length - head;
  if (result.pending_dirs > 0) result.truncated = true;
  return result;
}
