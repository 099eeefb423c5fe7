/**
 * Keeping stored documents in step with a folder. `rescanFolder` is the
 * one-shot form: every file whose size or modification time differs from its
 * stored latest version is added again. `watchFolder` runs `Deno.watchFs` in
 * this process and re-adds changed files shortly after they settle; a watch
 * lives exactly as long as the process that started it (an `mcp-serve`, a
 * `vantage call doc_session.watch` left running), and `unwatchFolder` ends it.
 *
 * @module
 */
import { resolve } from "node:path";

/** A running watch. */
export interface WatchInfo {
  /** The folder watched. */
  root: string;
  /** When it started (ISO 8601). */
  since: string;
  /** Change events seen. */
  events: number;
  /** Re-adds run. */
  rescans: number;
  /** The last re-add's error, if it failed. */
  last_error: string | null;
}

interface Watch {
  info: WatchInfo;
  watcher: Deno.FsWatcher;
  timer: ReturnType<typeof setTimeout> | undefined;
  changed: Set<string>;
}

const WATCHES = new Map<string, Watch>();

/** How long a folder must be quiet before changed files are re-added. */
export const SETTLE_MS = 300;

/**
 * Starts watching `root` (absolute, already checked for read access).
 * `onChange` receives the changed paths once they settle; starting a watch
 * that already runs returns the running one.
 */
export function watchFolder(
  root: string,
  onChange: (paths: string[]) => Promise<void>,
  now: number,
): WatchInfo {
  const key = resolve(root);
  const running = WATCHES.get(key);
  if (running !== undefined) return { ...running.info };
  const watcher = Deno.watchFs(key, { recursive: true });
  const watch: Watch = {
    info: {
      root: key,
      since: new Date(now).toISOString(),
      events: 0,
      rescans: 0,
      last_error: null,
    },
    watcher,
    timer: undefined,
    changed: new Set(),
  };
  WATCHES.set(key, watch);
  const settle = () => {
    watch.timer = undefined;
    const paths = [...watch.changed];
    watch.changed.clear();
    watch.info.rescans++;
    onChange(paths).then(
      () => {
        watch.info.last_error = null;
      },
      (error) => {
        watch.info.last_error = error instanceof Error ? error.message : String(error);
      },
    );
  };
  (async () => {
    try {
      for await (const event of watcher) {
        if (event.kind === "access" || event.kind === "other") continue;
        watch.info.events++;
        for (const path of event.paths) {
          // Git's bookkeeping changes constantly and is never a document.
          if (!path.includes("/.git/")) watch.changed.add(path);
        }
        if (watch.changed.size === 0) continue;
        if (watch.timer !== undefined) clearTimeout(watch.timer);
        watch.timer = setTimeout(settle, SETTLE_MS);
      }
    } catch {
      // The watcher was closed, or the folder vanished: the watch is over either way.
    } finally {
      if (watch.timer !== undefined) clearTimeout(watch.timer);
      if (WATCHES.get(key) === watch) WATCHES.delete(key);
    }
  })();
  return { ...watch.info };
}

/** Stops watching `root`; returns the watch's final state, or undefined when none ran. */
export function unwatchFolder(root: string): WatchInfo | undefined {
  const key = resolve(root);
  const watch = WATCHES.get(key);
  if (watch === undefined) return undefined;
  WATCHES.delete(key);
  if (watch.timer !== undefined) clearTimeout(watch.timer);
  try {
    watch.watcher.close();
  } catch {
    // Already closed.
  }
  return { ...watch.info };
}

/** The watches running in this process. */
export function activeWatches(): WatchInfo[] {
  return [...WATCHES.values()].map((watch) => ({ ...watch.info }));
}
