/**
 * The sensors `serve` runs for each project an agent is active in: a file
 * watcher (changes attributed to an agent or to someone unknown), a git
 * poller (commits, branch moves) and the project indexer (refreshed daily).
 * Only folders Vantage may read are watched: a project outside the read
 * roots is reported once and left alone.
 *
 * @module
 */
import type { Logger } from "../core/log.ts";
import type { HookEvent } from "../model/agent_records.ts";
import { type DatabaseSync, transaction } from "../store/database.ts";
import { insertFileChange } from "../store/perception/file_changes.ts";
import { insertGitMove } from "../store/perception/git_moves.ts";
import { getProjectState, saveProjectState } from "../store/perception/project_state.ts";
import { attributeChanges } from "./attribution.ts";
import { type FileChangeEvent, type ProjectWatcher, watchProject } from "./file_watcher.ts";
import { type GitState, pollGit } from "./git_state.ts";
import { detectProject } from "./project_detect.ts";

/** Options for {@link ProjectSensors}. */
export interface SensorOptions {
  /** The store. */
  db: DatabaseSync;
  /** Where to log. */
  log: Logger;
  /** Recent hook events in a project, for attribution. */
  recentEvents: (project: string) => readonly HookEvent[];
  /** Most projects watched at once (default 8). */
  maxProjects?: number;
  /** How often git is polled, ms (default 5000). */
  gitIntervalMs?: number;
  /** How old a project index may get before it is refreshed, ms (default a day). */
  projectMaxAgeMs?: number;
  /** Folders never watched (too broad: the user's home, the filesystem root). */
  refuse?: readonly string[];
  /** Called after file changes or git moves are stored. */
  onChange?: (project: string) => void;
}

interface Watched {
  watcher?: ProjectWatcher;
  git?: GitState;
  gitTimer?: ReturnType<typeof setInterval>;
  lastTouched: number;
}

/** Runs the per-project sensors. */
export class ProjectSensors {
  #options: SensorOptions;
  #projects = new Map<string, Watched>();
  #refused = new Set<string>();

  /** Creates the sensors; nothing runs until a project is touched. */
  constructor(options: SensorOptions) {
    this.#options = options;
  }

  /** Notes activity in `root`, starting its sensors if they are not running. */
  touch(root: string | undefined): void {
    if (root === undefined || root === "" || this.#refused.has(root)) return;
    const existing = this.#projects.get(root);
    if (existing !== undefined) {
      existing.lastTouched = Date.now();
      return;
    }
    if ((this.#options.refuse ?? []).includes(root) || root === "/") {
      this.#refuse(root, "it is too broad to watch");
      return;
    }
    if (!readable(root)) {
      this.#refuse(
        root,
        "it is outside the folders Vantage may read; add it to VANTAGE_ROOTS to watch it",
      );
      return;
    }
    if (this.#projects.size >= (this.#options.maxProjects ?? 8)) this.#evictOldest();
    const entry: Watched = { lastTouched: Date.now() };
    this.#projects.set(root, entry);
    void this.#start(root, entry);
  }

  /** Re-indexes a project now. */
  async refreshProject(root: string): Promise<void> {
    const state = await detectProject(root);
    saveProjectState(this.#options.db, root, JSON.stringify(state), Date.now());
  }

  /** Stops every sensor. */
  close(): void {
    for (const [root] of this.#projects) this.#stop(root);
  }

  /** The projects being watched. */
  watched(): string[] {
    return [...this.#projects.keys()];
  }

  async #start(root: string, entry: Watched): Promise<void> {
    const { db, log } = this.#options;
    try {
      const stored = getProjectState(db, root);
      if (
        stored === undefined ||
        Date.now() - stored.refreshed_at > (this.#options.projectMaxAgeMs ?? 86_400_000)
      ) {
        await this.refreshProject(root);
      }
    } catch (error) {
      log.warn("project indexing failed", { root, error: String(error) });
    }
    if (!this.#projects.has(root)) return;
    try {
      entry.watcher = await watchProject(root, {
        onChanges: (changes) => this.#record(root, changes),
        onError: (error) => log.warn("file watcher error", { root, error: String(error) }),
      });
      if (!this.#projects.has(root)) entry.watcher.close();
    } catch (error) {
      log.warn("cannot watch project", { root, error: String(error) });
    }
    const poll = async () => {
      try {
        const result = await pollGit(root, entry.git);
        entry.git = result.state;
        if (result.events.length === 0) return;
        transaction(db, () => {
          for (const event of result.events) {
            if (event.kind === "git_commit") {
              insertGitMove(db, {
                project: root,
                ts: event.ts,
                kind: "commit",
                branch: event.branch ?? null,
                from_ref: null,
                to_ref: event.sha,
                summary: event.subject,
              });
            } else if (event.kind === "git_branch_switch") {
              insertGitMove(db, {
                project: root,
                ts: event.ts,
                kind: "branch_switch",
                branch: event.to ?? null,
                from_ref: event.from ?? null,
                to_ref: event.to ?? null,
                summary: null,
              });
            } else {
              insertGitMove(db, {
                project: root,
                ts: event.ts,
                kind: "head_move",
                branch: event.branch ?? null,
                from_ref: event.from,
                to_ref: event.to,
                summary: event.subject ?? null,
              });
            }
          }
        });
        this.#options.onChange?.(root);
      } catch (error) {
        log.debug("git poll failed", { root, error: String(error) });
      }
    };
    await poll();
    if (this.#projects.has(root)) {
      entry.gitTimer = setInterval(poll, this.#options.gitIntervalMs ?? 5000);
    }
  }

  #record(root: string, changes: FileChangeEvent[]): void {
    const attributed = attributeChanges(changes, this.#options.recentEvents(root));
    transaction(this.#options.db, () => {
      for (const change of attributed) {
        insertFileChange(this.#options.db, {
          project: root,
          path: change.path,
          kind: change.kind,
          ts: change.ts,
          source: change.attribution,
          session_id: change.session_id ?? null,
          agent: change.agent ?? null,
        });
      }
    });
    this.#options.onChange?.(root);
  }

  #refuse(root: string, why: string): void {
    this.#refused.add(root);
    this.#options.log.info(`not watching ${root}: ${why}`);
  }

  #evictOldest(): void {
    let oldest: [string, Watched] | undefined;
    for (const entry of this.#projects) {
      if (oldest === undefined || entry[1].lastTouched < oldest[1].lastTouched) oldest = entry;
    }
    if (oldest !== undefined) this.#stop(oldest[0]);
  }

  #stop(root: string): void {
    const entry = this.#projects.get(root);
    if (entry === undefined) return;
    this.#projects.delete(root);
    clearInterval(entry.gitTimer);
    try {
      entry.watcher?.close();
    } catch {
      // Already closed.
    }
  }
}

function readable(path: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "read", path }).state === "granted";
  } catch {
    return false;
  }
}
