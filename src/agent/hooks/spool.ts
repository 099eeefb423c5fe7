/**
 * The hook spool: where a hook leaves its payload when the server cannot
 * take it in time. Appends are locked and fsynced; the server swaps the file
 * out under the same lock and replays it. Delivery ids make replay
 * idempotent, so an event that reached the server *and* the spool (a slow
 * answer) is still stored once. An entry whose handling throws (a busy
 * database) stays for the next replay without holding up the others, and is
 * set aside after {@linkcode REPLAY_ATTEMPTS} tries.
 *
 * @module
 */
import { joinPath } from "../../core/config.ts";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../../core/private_files.ts";

/** The folder of a path (no node:path: the hook loads this module on every call). */
function parentOf(path: string): string {
  const cut = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return cut <= 0 ? (cut === 0 ? path.slice(0, 1) : ".") : path.slice(0, cut);
}

/** One spooled hook delivery. */
export interface SpoolEntry {
  /** Unique per hook invocation. */
  delivery_id: string;
  /** Canonical agent name. */
  agent: string;
  /** Event name the hook was registered under, when given. */
  event?: string;
  /** When the hook received the payload, ms. */
  received_at: number;
  /** The payload exactly as the agent sent it. */
  payload: string;
  /** The machine the hook ran on, when known. */
  host?: string;
  /**
   * Team mode: the person whose token sent it. Kept only in a spool the server writes itself
   * (see {@linkcode ReplayOptions.keepPerson}); a hook's spool never vouches for a person.
   */
  person?: string;
  /** How many replays failed on this entry so far (absent: none). */
  failures?: number;
}

/** Replays that may fail on one entry before it is moved to `rejected.jsonl`. */
export const REPLAY_ATTEMPTS = 5;

/**
 * Thrown by a replay's handler when the entry cannot be taken now for a reason that is not
 * the entry's (the server it goes to is down): the replay stops there and keeps that entry
 * and every one after it for the next replay, none of them counted as failing.
 */
export class SpoolPaused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "SpoolPaused";
  }
}

const encoder = new TextEncoder();

/**
 * Appends one entry as a line, under an exclusive lock, and fsyncs it. If
 * the server swapped the file out while this process waited for the lock,
 * the append goes to the new file.
 */
export async function appendToSpool(spoolPath: string, entry: SpoolEntry): Promise<void> {
  await makePrivateFolder(parentOf(parentOf(spoolPath)));
  await makePrivateFolder(parentOf(spoolPath));
  const line = encoder.encode(JSON.stringify(entry) + "\n");
  for (let attempt = 0; attempt < 5; attempt++) {
    const file = await Deno.open(spoolPath, {
      append: true,
      create: true,
      mode: PRIVATE_FILE_MODE,
    });
    try {
      await file.lock(true);
      // Same inode as the path still names? Otherwise the replayer took this file away.
      const [held, current] = await Promise.all([
        file.stat(),
        Deno.stat(spoolPath).catch(() => undefined),
      ]);
      if (current === undefined || held.ino !== current.ino) continue;
      let written = 0;
      while (written < line.length) written += await file.write(line.subarray(written));
      await file.syncData();
      return;
    } finally {
      file.close();
    }
  }
  throw new Error(`could not append to the spool ${spoolPath}: it kept being swapped out`);
}

/** What a replay did. */
export interface ReplayCounts {
  /** Entries the handler took. */
  entries: number;
  /** Lines that were not valid entries, or failed every attempt (kept in `rejected.jsonl`). */
  rejected: number;
  /** Entries whose handling threw this time (kept for the next replay unless out of attempts). */
  failed: number;
  /** The handler paused the replay ({@linkcode SpoolPaused}): what was left waits whole. */
  paused?: boolean;
}

/** How a replay treats its entries. */
export interface ReplayOptions {
  /**
   * Keep each entry's `person`: only for a spool no one but the server writes (its held
   * hooks), never the hooks' spool, which any local process can append to.
   */
  keepPerson?: boolean;
  /**
   * Whether a failure counts toward the entry's attempts (default: every one does). A store
   * that is away is no fault of the entry: it is kept, uncounted, for the next replay.
   */
  counts?: (error: unknown) => boolean;
}

/**
 * Takes the spool (and any batch a crash left behind) and hands every entry
 * to `handle`, oldest first. A batch file is deleted only after all of its
 * entries were handled, so a crash mid-replay replays the batch again —
 * harmless, because handling is idempotent. When `handle` throws, the entry
 * is reported to `onFailure` and kept in its batch for the next replay; the
 * rest of the batch goes on. When it throws {@linkcode SpoolPaused}, the
 * replay stops and everything not handled yet stays, uncounted.
 */
export async function replaySpool(
  spoolPath: string,
  handle: (entry: SpoolEntry) => void | Promise<void>,
  onFailure: (entry: SpoolEntry, error: unknown) => void = () => {},
  options: ReplayOptions = {},
): Promise<ReplayCounts> {
  const counts: ReplayCounts = { entries: 0, rejected: 0, failed: 0 };
  const dir = parentOf(spoolPath);
  await swapOut(spoolPath);
  let batches: string[];
  try {
    batches = [];
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.startsWith("batch-") && entry.name.endsWith(".jsonl")) {
        batches.push(entry.name);
      }
    }
  } catch {
    return counts;
  }
  let paused = false;
  for (const name of batches.sort()) {
    if (paused) break;
    const path = joinPath(dir, name);
    const text = await Deno.readTextFile(path);
    const rejected: string[] = [];
    const retry: string[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      if (paused) {
        retry.push(line);
        continue;
      }
      const entry = parseEntry(line, options.keepPerson === true);
      if (entry === undefined) {
        rejected.push(line);
        continue;
      }
      try {
        await handle(entry);
        counts.entries++;
      } catch (error) {
        if (error instanceof SpoolPaused) {
          paused = true;
          counts.paused = true;
          retry.push(line);
          continue;
        }
        counts.failed++;
        onFailure(entry, error);
        if (options.counts !== undefined && !options.counts(error)) {
          retry.push(JSON.stringify(entry));
          continue;
        }
        const failures = (entry.failures ?? 0) + 1;
        const kept = JSON.stringify({ ...entry, failures });
        (failures >= REPLAY_ATTEMPTS ? rejected : retry).push(kept);
      }
    }
    if (rejected.length > 0) {
      counts.rejected += rejected.length;
      await Deno.writeTextFile(joinPath(dir, "rejected.jsonl"), rejected.join("\n") + "\n", {
        append: true,
        mode: PRIVATE_FILE_MODE,
      });
    }
    if (retry.length === 0) {
      await Deno.remove(path);
    } else {
      // Replace the batch by what is left of it in one rename, so a crash keeps one or the other.
      const rest = `${path}.rest`;
      await Deno.writeTextFile(rest, retry.join("\n") + "\n");
      await Deno.rename(rest, path);
    }
  }
  return counts;
}

async function swapOut(spoolPath: string): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(spoolPath, { read: true, write: true });
  } catch {
    return; // No spool: nothing was spooled.
  }
  try {
    await file.lock(true);
    const stat = await file.stat();
    if (stat.size === 0) return;
    // A sortable name, so batches replay in the order they were taken.
    const stamp = String(Date.now()).padStart(15, "0");
    await Deno.rename(
      spoolPath,
      joinPath(parentOf(spoolPath), `batch-${stamp}-${crypto.randomUUID()}.jsonl`),
    );
  } finally {
    file.close();
  }
}

function parseEntry(line: string, keepPerson: boolean): SpoolEntry | undefined {
  try {
    const value = JSON.parse(line);
    if (
      value !== null && typeof value === "object" && typeof value.delivery_id === "string" &&
      typeof value.agent === "string" && typeof value.payload === "string" &&
      typeof value.received_at === "number" &&
      (value.failures === undefined || typeof value.failures === "number") &&
      (value.event === undefined || typeof value.event === "string") &&
      (value.host === undefined || typeof value.host === "string") &&
      (value.person === undefined || typeof value.person === "string")
    ) {
      // Only the entry's own fields: a spooled hook is the local owner's, never a person's.
      const entry: SpoolEntry = {
        delivery_id: value.delivery_id,
        agent: value.agent,
        received_at: value.received_at,
        payload: value.payload,
      };
      if (value.event !== undefined) entry.event = value.event;
      if (value.host !== undefined) entry.host = value.host;
      if (keepPerson && value.person !== undefined) entry.person = value.person;
      if (value.failures !== undefined) entry.failures = value.failures;
      return entry;
    }
  } catch {
    // A torn line from a crash mid-write: reported as rejected.
  }
  return undefined;
}
