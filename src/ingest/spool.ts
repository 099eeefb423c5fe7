/**
 * The hook spool: where a hook leaves its payload when the server cannot
 * take it in time. Appends are locked and fsynced; the server swaps the file
 * out under the same lock and replays it. Delivery ids make replay
 * idempotent, so an event that reached the server *and* the spool (a slow
 * answer) is still stored once.
 *
 * @module
 */
import { joinPath } from "../core/config.ts";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../core/private_files.ts";

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
  /** Entries handed to the handler. */
  entries: number;
  /** Lines that were not valid entries (kept in a `.rejected` file). */
  rejected: number;
}

/**
 * Takes the spool (and any batch a crash left behind) and hands every entry
 * to `handle`, oldest first. A batch file is deleted only after all of its
 * entries were handled, so a crash mid-replay replays the batch again —
 * harmless, because handling is idempotent.
 */
export async function replaySpool(
  spoolPath: string,
  handle: (entry: SpoolEntry) => void | Promise<void>,
): Promise<ReplayCounts> {
  const counts: ReplayCounts = { entries: 0, rejected: 0 };
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
  for (const name of batches.sort()) {
    const path = joinPath(dir, name);
    const text = await Deno.readTextFile(path);
    const rejected: string[] = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const entry = parseEntry(line);
      if (entry === undefined) {
        rejected.push(line);
        continue;
      }
      await handle(entry);
      counts.entries++;
    }
    if (rejected.length > 0) {
      counts.rejected += rejected.length;
      await Deno.writeTextFile(joinPath(dir, "rejected.jsonl"), rejected.join("\n") + "\n", {
        append: true,
        mode: PRIVATE_FILE_MODE,
      });
    }
    await Deno.remove(path);
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

function parseEntry(line: string): SpoolEntry | undefined {
  try {
    const value = JSON.parse(line);
    if (
      value !== null && typeof value === "object" && typeof value.delivery_id === "string" &&
      typeof value.agent === "string" && typeof value.payload === "string" &&
      typeof value.received_at === "number"
    ) {
      return value as SpoolEntry;
    }
  } catch {
    // A torn line from a crash mid-write: reported as rejected.
  }
  return undefined;
}
