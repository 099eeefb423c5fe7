/**
 * The file sensor: watches a project tree and reports debounced, coalesced changes
 * `{path, kind: create|modify|remove, ts}`, filtered through the ignore rules.
 *
 * Resource model. On Linux, `Deno.watchFs` shares one inotify instance per process (a handful of
 * descriptors however many paths are watched), and every watched directory costs one inotify
 * watch, counted against the per-user `fs.inotify.max_user_watches`. A recursive watch adds one
 * for *every* directory below the root, `node_modules` and `target` included, and keeps adding
 * them as dependency installs create more. So on Linux this module lists the non-ignored
 * directories itself (breadth-first, shallow ones first) and watches them non-recursively, up
 * to `maxWatchedDirs` (default 2000); beyond that it reports `truncated`. Directories created
 * later are added while the budget lasts. On macOS (FSEvents: one stream for a whole tree) and
 * Windows (one handle per watched root) a recursive watch is the cheap choice and is used.
 *
 * Idle cost is nil: no polling, no timers until an event arrives.
 *
 * @module
 */

import { resolve } from "node:path";
import { IgnoreMatcher, loadGitignore, toRelativePath } from "./ignore_rules.ts";
import { walkTree } from "./tree_walk.ts";

/** What happened to a file. */
export type FileChangeKind = "create" | "modify" | "remove";

/** One coalesced change to one file. */
export interface FileChangeEvent {
  /** Absolute path. */
  path: string;
  /** What happened to the file. */
  kind: FileChangeKind;
  /** Time of the last raw event for this path in the batch, ms since the epoch. */
  ts: number;
}

/** How the tree is watched. */
export type WatchMode = "per_directory" | "recursive";

/** Counters describing a watcher, for status pages and budget decisions. */
export interface WatchStats {
  /** Absolute root being watched. */
  root: string;
  /** How the tree is watched. */
  mode: WatchMode;
  /** Directories watched (per-directory mode) or non-ignored directories seen (recursive mode). */
  watched_dirs: number;
  /** The directory budget. */
  max_watched_dirs: number;
  /** Some non-ignored directories are not watched because of the budget. */
  truncated: boolean;
  /** Non-ignored directories left unwatched (a lower bound). */
  skipped_dirs: number;
  /** Directories skipped because the ignore rules exclude them. */
  ignored_dirs: number;
  /** `Deno.watchFs` handles currently open. */
  watchers: number;
  /** Raw events received. */
  raw_events: number;
  /** Changes delivered. */
  changes: number;
}

/** Options for {@linkcode watchProject}. */
export interface WatchProjectOptions {
  /** Receives every batch of changes, sorted by path. Exceptions are caught and reported. */
  onChanges?: (changes: FileChangeEvent[]) => void;
  /** Receives errors of the underlying watcher (budget exhausted, root removed, …). */
  onError?: (error: unknown) => void;
  /** Most directories to watch in per-directory mode. Default 2000. */
  maxWatchedDirs?: number;
  /** Quiet time after the last raw event before a batch is delivered. Default 300 ms. */
  debounceMs?: number;
  /** Longest a change may wait while events keep arriving. Default 2000 ms. */
  maxWaitMs?: number;
  /** Ignore rules; `.gitignore` files are loaded into it. Default: built-in rules. */
  ignore?: IgnoreMatcher;
  /** `auto` (default): per-directory on Linux, recursive elsewhere. */
  mode?: WatchMode | "auto";
  /** Remember at most this many files (to tell a modification from a creation). Default 200 000. */
  maxKnownFiles?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** A running watcher. */
export interface ProjectWatcher {
  /** Absolute root being watched. */
  readonly root: string;
  /** Current counters. */
  stats(): WatchStats;
  /** Batches of changes as an async iterable (each call gets its own queue); ends on close. */
  batches(): AsyncIterableIterator<FileChangeEvent[]>;
  /** Stops watching and ends every `batches()` iterator. Idempotent. */
  close(): void;
  /** Settles when every underlying watcher loop has ended. */
  readonly closed: Promise<void>;
  /** Same as {@linkcode ProjectWatcher.close}. */
  [Symbol.dispose](): void;
}

interface Pending {
  kinds: Set<string>;
  ts: number;
}

interface Subscriber {
  items: FileChangeEvent[][];
  wake?: () => void;
}

// Consolidate into one `Deno.watchFs` handle once this many small ones accumulated.
const MAX_WATCHERS = 16;

class Watcher implements ProjectWatcher {
  readonly root: string;
  readonly #options: WatchProjectOptions;
  readonly #ignore: IgnoreMatcher;
  readonly #now: () => number;
  readonly #maxDirs: number;
  readonly #maxKnown: number;
  readonly #mode: WatchMode;
  readonly #dirs = new Set<string>();
  readonly #known = new Set<string>();
  readonly #pending = new Map<string, Pending>();
  readonly #subscribers = new Set<Subscriber>();
  readonly #handles = new Set<Deno.FsWatcher>();
  readonly #loops: Promise<void>[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #firstPendingAt = 0;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;
  #truncated = false;
  #skipped = 0;
  #ignoredDirs = 0;
  #rawEvents = 0;
  #changes = 0;
  #resolveClosed!: () => void;
  readonly closed: Promise<void>;

  constructor(root: string, options: WatchProjectOptions) {
    this.root = root;
    this.#options = options;
    this.#ignore = options.ignore ?? new IgnoreMatcher();
    this.#now = options.now ?? Date.now;
    this.#maxDirs = options.maxWatchedDirs ?? 2000;
    this.#maxKnown = options.maxKnownFiles ?? 200_000;
    const mode = options.mode ?? "auto";
    this.#mode = mode === "auto"
      ? (Deno.build.os === "linux" ? "per_directory" : "recursive")
      : mode;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  async start(): Promise<void> {
    const perDirectory = this.#mode === "per_directory";
    const walk = await walkTree(this.root, {
      ignore: this.#ignore,
      maxDirs: perDirectory ? this.#maxDirs : 100_000,
      onFile: (rel) => this.#remember(rel),
    });
    for (const dir of walk.dirs) this.#dirs.add(dir);
    this.#ignoredDirs = walk.ignored_dirs;
    if (perDirectory) {
      this.#truncated = walk.truncated;
      this.#skipped = walk.pending_dirs;
      this.#open(walk.dirs);
    } else {
      this.#attach(Deno.watchFs(this.root, { recursive: true }));
    }
  }

  #remember(rel: string): void {
    if (this.#known.size < this.#maxKnown) this.#known.add(rel);
  }

  #abs(rel: string): string {
    return rel === "" ? this.root : `${this.root}/${rel}`;
  }

  // Opens one non-recursive watch over `dirs`. A directory removed since it was listed makes
  // the whole call fail, so the list is re-checked once; an exhausted inotify budget halves it.
  #open(dirs: readonly string[]): void {
    let list = [...dirs];
    for (let attempt = 0; attempt < 8 && list.length > 0; attempt++) {
      try {
        this.#attach(Deno.watchFs(list.map((d) => this.#abs(d)), { recursive: false }));
        return;
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) {
          list = list.filter((d) => {
            try {
              return Deno.statSync(this.#abs(d)).isDirectory;
            } catch {
              this.#dirs.delete(d);
              return false;
            }
          });
          continue;
        }
        // ENOSPC from inotify_add_watch: the user's watch limit is reached.
        this.#options.onError?.(error);
        const keep = Math.floor(list.length / 2);
        for (const dir of list.slice(keep)) this.#dirs.delete(dir);
        this.#skipped += list.length - keep;
        this.#truncated = true;
        list = list.slice(0, keep);
      }
    }
  }

  #attach(handle: Deno.FsWatcher): void {
    this.#handles.add(handle);
    this.#loops.push(this.#loop(handle));
  }

  async #loop(handle: Deno.FsWatcher): Promise<void> {
    try {
      for await (const event of handle) {
        if (event.kind === "access" || event.kind === "other") continue;
        this.#rawEvents++;
        const ts = this.#now();
        for (const path of event.paths) {
          const entry = this.#pending.get(path);
          if (entry === undefined) this.#pending.set(path, { kinds: new Set([event.kind]), ts });
          else {
            entry.kinds.add(event.kind);
            entry.ts = ts;
          }
        }
        this.#schedule();
      }
    } catch (error) {
      if (!this.#closed) this.#options.onError?.(error);
    } finally {
      this.#handles.delete(handle);
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    const now = this.#now();
    const debounce = this.#options.debounceMs ?? 300;
    const maxWait = this.#options.maxWaitMs ?? 2000;
    if (this.#timer === undefined) this.#firstPendingAt = now;
    else clearTimeout(this.#timer);
    const delay = Math.max(0, Math.min(debounce, this.#firstPendingAt + maxWait - now));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.#flushing.then(() => this.#flush()).catch((error) => {
        this.#options.onError?.(error);
      });
    }, delay);
  }

  async #flush(): Promise<void> {
    if (this.#pending.size === 0 || this.#closed) return;
    const batch = [...this.#pending.entries()];
    this.#pending.clear();

    // A changed .gitignore changes what counts, so reload it before judging the rest.
    for (const [path] of batch) {
      if (!path.endsWith("/.gitignore")) continue;
      const rel = toRelativePath(this.root, path);
      if (rel === undefined) continue;
      const slash = rel.lastIndexOf("/");
      await loadGitignore(this.#ignore, this.root, slash === -1 ? "" : rel.slice(0, slash));
    }

    // Paths inside ignored directories (a recursive watch sees `node_modules` churn) are
    // dropped before any system call is spent on them.
    const candidates: Array<{ path: string; rel: string; pending: Pending }> = [];
    for (const [path, pending] of batch) {
      const rel = toRelativePath(this.root, path);
      if (rel === undefined || rel === "") continue;
      const slash = rel.lastIndexOf("/");
      if (slash !== -1 && this.#ignore.ignores(rel.slice(0, slash), true)) continue;
      candidates.push({ path, rel, pending });
    }
    const infos = await Promise.all(candidates.map(async ({ path }) => {
      try {
        return await Deno.lstat(path);
      } catch {
        return undefined;
      }
    }));

    const changes: FileChangeEvent[] = [];
    const newDirs: string[] = [];
    for (let i = 0; i < candidates.length; i++) {
      const { path, rel, pending } = candidates[i];
      const info = infos[i];
      if (info?.isDirectory) {
        if (!this.#dirs.has(rel) && !this.#ignore.ignoresEntry(rel, true)) newDirs.push(rel);
        continue;
      }
      if (info !== undefined) {
        if (this.#ignore.ignoresEntry(rel, false)) continue;
        const kind: FileChangeKind = this.#known.has(rel) ? "modify" : "create";
        this.#remember(rel);
        changes.push({ path, kind, ts: pending.ts });
        continue;
      }
      if (this.#dirs.has(rel)) {
        // A watched directory went away (its watch went with it); so did the files in it.
        this.#dropDir(rel, pending.ts, changes);
        continue;
      }
      if (this.#known.delete(rel)) {
        changes.push({ path, kind: "remove", ts: pending.ts });
        continue;
      }
      // A path never seen existing: created and deleted within one batch (editor scratch files,
      // atomic-save temp files), or an ignored directory. Only when the memory of known files
      // is full can it be a real file we forgot.
      if (this.#known.size < this.#maxKnown || pending.kinds.has("create")) continue;
      if (!this.#ignore.ignoresEntry(rel, false) && !this.#ignore.ignoresEntry(rel, true)) {
        changes.push({ path, kind: "remove", ts: pending.ts });
      }
    }

    if (newDirs.length > 0) await this.#addDirs(newDirs, changes);
    if (changes.length === 0) return;
    changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    this.#emit(changes);
  }

  #dropDir(rel: string, ts: number, changes: FileChangeEvent[]): void {
    const prefix = `${rel}/`;
    for (const dir of [...this.#dirs]) {
      if (dir === rel || dir.startsWith(prefix)) this.#dirs.delete(dir);
    }
    for (const file of [...this.#known]) {
      if (!file.startsWith(prefix)) continue;
      this.#known.delete(file);
      changes.push({ path: this.#abs(file), kind: "remove", ts });
    }
  }

  // New directories: watch them (and what they already contain) while the budget lasts, and
  // report the files found in them, which were created before any watch could see them.
  async #addDirs(dirs: string[], changes: FileChangeEvent[]): Promise<void> {
    const added: string[] = [];
    const ts = this.#now();
    dirs.sort();
    for (const dir of dirs) {
      if (this.#dirs.has(dir)) continue;
      const budget = this.#mode === "per_directory" ? this.#maxDirs - this.#dirs.size : Infinity;
      if (budget <= 0) {
        this.#truncated = true;
        this.#skipped++;
        continue;
      }
      const walk = await walkTree(this.root, {
        ignore: this.#ignore,
        start: dir,
        maxDirs: budget,
        onFile: (rel) => {
          if (this.#known.has(rel)) return;
          this.#remember(rel);
          changes.push({ path: this.#abs(rel), kind: "create", ts });
        },
      });
      for (const d of walk.dirs) {
        this.#dirs.add(d);
        added.push(d);
      }
      if (walk.truncated) {
        this.#truncated = true;
        this.#skipped += walk.pending_dirs;
      }
    }
    if (this.#mode !== "per_directory" || added.length === 0 || this.#closed) return;
    if (this.#handles.size >= MAX_WATCHERS) {
      // Replace the accumulated small watchers by one over every directory.
      const old = [...this.#handles];
      this.#open([...this.#dirs]);
      for (const handle of old) this.#closeHandle(handle);
    } else {
      this.#open(added);
    }
  }

  #closeHandle(handle: Deno.FsWatcher): void {
    try {
      handle.close();
    } catch {
      // Already closed.
    }
    this.#handles.delete(handle);
  }

  #emit(changes: FileChangeEvent[]): void {
    // A flush that was already running when close() was called must not deliver late.
    if (this.#closed) return;
    this.#changes += changes.length;
    try {
      this.#options.onChanges?.(changes);
    } catch (error) {
      this.#options.onError?.(error);
    }
    for (const subscriber of this.#subscribers) {
      subscriber.items.push(changes);
      subscriber.wake?.();
    }
  }

  stats(): WatchStats {
    return {
      root: this.root,
      mode: this.#mode,
      watched_dirs: this.#dirs.size,
      max_watched_dirs: this.#maxDirs,
      truncated: this.#truncated,
      skipped_dirs: this.#skipped,
      ignored_dirs: this.#ignoredDirs,
      watchers: this.#handles.size,
      raw_events: this.#rawEvents,
      changes: this.#changes,
    };
  }

  batches(): AsyncIterableIterator<FileChangeEvent[]> {
    const subscriber: Subscriber = { items: [] };
    this.#subscribers.add(subscriber);
    const done = (): IteratorResult<FileChangeEvent[]> => {
      this.#subscribers.delete(subscriber);
      subscriber.wake?.();
      return { done: true, value: undefined };
    };
    const iterator: AsyncIterableIterator<FileChangeEvent[]> = {
      next: async (): Promise<IteratorResult<FileChangeEvent[]>> => {
        while (subscriber.items.length === 0) {
          if (this.#closed || !this.#subscribers.has(subscriber)) return done();
          await new Promise<void>((resolve) => (subscriber.wake = resolve));
          subscriber.wake = undefined;
        }
        return { done: false, value: subscriber.items.shift()! };
      },
      return: (): Promise<IteratorResult<FileChangeEvent[]>> => Promise.resolve(done()),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const handle of [...this.#handles]) this.#closeHandle(handle);
    for (const subscriber of this.#subscribers) subscriber.wake?.();
    void Promise.allSettled([...this.#loops, this.#flushing]).then(() => this.#resolveClosed());
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/**
 * Starts watching a project root. Resolves once the initial scan is done and the watches are
 * in place, so a change made after it resolves is seen.
 *
 * @example
 * ```ts
 * const watcher = await watchProject("/repo", {
 *   onChanges: (changes) => store.recordFileChanges(changes),
 * });
 * watcher.stats(); // { mode: "per_directory", watched_dirs: 412, truncated: false, … }
 * watcher.close();
 * ```
 */
export async function watchProject(
  root: string,
  options: WatchProjectOptions = {},
): Promise<ProjectWatcher> {
  const watcher = new Watcher(resolve(root), options);
  try {
    await watcher.start();
  } catch (error) {
    watcher.close();
    throw error;
  }
  return watcher;
}
