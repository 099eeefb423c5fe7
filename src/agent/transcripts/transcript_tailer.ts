/**
 * Keeps the store up to date with every agent's transcripts: a scan at start
 * (which also backfills), then file-change notifications from the OS for
 * the agents' folders. Files are ingested one at a time, each from its
 * persisted offset, so bursts of appends coalesce into one read.
 *
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { DatabaseSync } from "../../store/database.ts";
import { emptyCounts, type IngestCounts, ingestTranscriptFile } from "./transcript_ingester.ts";
import { type TranscriptSource, transcriptSources } from "./transcript_paths.ts";
import type { ModelPrice } from "../usage/pricing.ts";
import type { AgentName } from "../../model/agent_records.ts";
import { syncStoredPrices } from "../usage/usage_pricing.ts";

/** A transcript file found on disk. */
export interface TranscriptFile {
  /** Absolute path. */
  path: string;
  /** The agent that writes it. */
  agent: AgentName;
  /** Size in bytes. */
  size: number;
  /** Last modification, ms. */
  mtime: number;
}

/**
 * Lists every transcript file under the agents' roots (missing roots are skipped). A file that
 * belongs to another (OpenClaw's store WAL) is listed as that one, with the later time and
 * the larger size of the two.
 */
export function findTranscriptFiles(sources: readonly TranscriptSource[]): TranscriptFile[] {
  const files: TranscriptFile[] = [];
  const byPath = new Map<string, TranscriptFile>();
  for (const source of sources) {
    const walk = (dir: string, depth: number): void => {
      if (depth > 8) return;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          walk(path, depth + 1);
        } else if (entry.isFile() && source.matches(relative(source.root, path))) {
          try {
            const stat = statSync(path);
            const transcript = source.transcriptOf?.(path) ?? path;
            const known = byPath.get(transcript);
            if (known !== undefined) {
              known.size = Math.max(known.size, stat.size);
              known.mtime = Math.max(known.mtime, stat.mtimeMs);
              continue;
            }
            const file = {
              path: transcript,
              agent: source.agent,
              size: stat.size,
              mtime: stat.mtimeMs,
            };
            byPath.set(transcript, file);
            files.push(file);
          } catch {
            // Removed while walking.
          }
        }
      }
    };
    walk(source.root, 0);
  }
  return files;
}

/** Options for {@link TranscriptTailer}. */
export interface TailerOptions {
  /** The user's home folder whose agent folders are tailed. */
  home: string;
  /** Price overrides. */
  prices?: Readonly<Record<string, ModelPrice>>;
  /** Only files modified at or after this time (ms) are read at start. */
  since?: number;
  /** Only these agents. */
  agents?: readonly AgentName[];
  /** Most bytes per ingest transaction (default: the ingester's). */
  batchBytes?: number;
  /** Coalescing delay after a change notification (default 100 ms). */
  debounceMs?: number;
  /** How often to look for agent folders that did not exist yet (default 10 s). */
  rootCheckMs?: number;
  /** Called after each file ingest that stored something. */
  onIngest?: (file: string, counts: IngestCounts) => void;
  /** Called when a file fails to ingest (the tailer keeps going). */
  onError?: (file: string, error: unknown) => void;
}

/** Tails the agents' transcript folders into the store. */
export class TranscriptTailer {
  #db: DatabaseSync;
  #options: TailerOptions;
  #sources: TranscriptSource[];
  #watchers = new Map<string, Deno.FsWatcher>();
  #pending = new Map<string, AgentName>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #rootTimer: ReturnType<typeof setInterval> | undefined;
  #queue: Promise<void> = Promise.resolve();
  #stopped = false;

  /** Creates a tailer over `db`; nothing happens until {@link start}. */
  constructor(db: DatabaseSync, options: TailerOptions) {
    this.#db = db;
    this.#options = options;
    this.#sources = transcriptSources(options.home).filter((s) =>
      options.agents === undefined || options.agents.includes(s.agent)
    );
  }

  /**
   * Reprices the stored calls when the prices changed, ingests everything new on disk, then
   * starts watching. Resolves after the scan.
   */
  async start(): Promise<IngestCounts> {
    syncStoredPrices(this.#db, this.#options.prices);
    const total = await this.scan();
    for (const source of this.#sources) this.#watch(source);
    this.#rootTimer = setInterval(() => {
      // Folders an agent creates later (first run after Vantage started) get watched then.
      for (const source of this.#sources) {
        if (!this.#watchers.has(source.root)) {
          this.#watch(source);
          if (this.#watchers.has(source.root)) void this.scan();
        }
      }
    }, this.#options.rootCheckMs ?? 10_000);
    return total;
  }

  /** Ingests every transcript file that grew since its stored offset. */
  scan(): Promise<IngestCounts> {
    return this.#enqueue(async () => {
      const total = emptyCounts();
      const files = findTranscriptFiles(this.#sources)
        .filter((f) => this.#options.since === undefined || f.mtime >= this.#options.since)
        .sort((a, b) => a.mtime - b.mtime);
      for (const file of files) {
        if (this.#stopped) break;
        merge(total, await this.#ingest(file.path, file.agent));
      }
      return total;
    });
  }

  /**
   * A hook named a transcript file (Claude Code and Codex send its path):
   * read it now, and watch its folder if the agent created that folder after
   * start-up.
   */
  notice(path: string): void {
    for (const source of this.#sources) {
      const rel = relative(source.root, path);
      if (rel.startsWith("..") || !source.matches(rel)) continue;
      if (!this.#watchers.has(source.root)) this.#watch(source);
      this.#schedule(source.transcriptOf?.(path) ?? path, source.agent);
      return;
    }
  }

  /**
   * Reads a transcript a hook named right away, ahead of the change notification, and waits
   * for it at most `waitMs` (the read carries on in the background past that). A hook that
   * needs what the transcript just recorded (Codex's exit codes) gets it without waiting for the
   * debounce. Paths outside the agents' transcript folders are ignored.
   */
  async readNow(path: string, waitMs: number): Promise<void> {
    if (this.#stopped) return;
    const source = this.#sources.find((s) => {
      const rel = relative(s.root, path);
      return !rel.startsWith("..") && s.matches(rel);
    });
    if (source === undefined) return;
    const file = source.transcriptOf?.(path) ?? path;
    const read = this.#enqueue(() => this.#ingest(file, source.agent));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => timer = setTimeout(resolve, waitMs));
    await Promise.race([read, timeout]);
    clearTimeout(timer);
  }

  /** Waits until every queued ingest has finished. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0 || this.#timer !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await this.#queue;
  }

  /** Stops watching; an ingest in progress finishes its current batch. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#rootTimer);
    for (const watcher of this.#watchers.values()) {
      try {
        watcher.close();
      } catch {
        // Already closed.
      }
    }
    this.#watchers.clear();
    await this.#queue.catch(() => {});
  }

  #watch(source: TranscriptSource): void {
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(source.root, { recursive: true });
    } catch {
      return; // The folder does not exist yet; the root check retries.
    }
    this.#watchers.set(source.root, watcher);
    (async () => {
      try {
        for await (const event of watcher) {
          if (event.kind !== "create" && event.kind !== "modify" && event.kind !== "any") continue;
          for (const path of event.paths) {
            if (source.matches(relative(source.root, path))) {
              this.#schedule(source.transcriptOf?.(path) ?? path, source.agent);
            }
          }
        }
      } catch {
        // The watcher closes when its folder is removed; the root check re-creates it.
      }
      this.#watchers.delete(source.root);
    })();
  }

  #schedule(path: string, agent: AgentName): void {
    if (this.#stopped) return;
    this.#pending.set(path, agent);
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const batch = [...this.#pending];
      this.#pending.clear();
      void this.#enqueue(async () => {
        for (const [file, fileAgent] of batch) await this.#ingest(file, fileAgent);
      });
    }, this.#options.debounceMs ?? 100);
  }

  #enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.then(() => {}, () => {});
    return run;
  }

  async #ingest(path: string, agent: AgentName): Promise<IngestCounts> {
    try {
      const counts = await ingestTranscriptFile(this.#db, path, agent, {
        prices: this.#options.prices,
      });
      if (counts.lines > 0) this.#options.onIngest?.(path, counts);
      return counts;
    } catch (error) {
      this.#options.onError?.(path, error);
      return emptyCounts();
    }
  }
}

/** Adds `part` into `total`. */
export function merge(total: IngestCounts, part: IngestCounts): void {
  total.bytes += part.bytes;
  total.lines += part.lines;
  total.messages += part.messages;
  total.usage += part.usage;
  total.tool_calls += part.tool_calls;
  total.completed.push(...part.completed);
  total.malformed += part.malformed;
  total.unknown += part.unknown;
  for (const session of part.sessions) total.sessions.add(session);
}
