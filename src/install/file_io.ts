/**
 * Reading and writing agent config files safely: exact text in and out (a
 * byte-order mark included), atomic replacement through a temporary file and
 * a rename, symlinked configs written through to their target, and the
 * original backed up once.
 *
 * @module
 */
import { createHash, randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { VantageError } from "../core/errors.ts";
import { isPermissionRefusal } from "../core/permissions.ts";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** The suffix of the one backup Vantage keeps of a file it changed. */
export const BACKUP_SUFFIX = ".vantage-backup";

/**
 * The file's text exactly as stored, or undefined when it does not exist.
 * Refuses a file that is not UTF-8 text.
 */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    if (isPermissionRefusal(error)) throw refused(path, "read");
    if (error instanceof Deno.errors.IsADirectory) {
      throw new VantageError("conflict", `${path} is a folder, where Vantage expects a file`);
    }
    throw error;
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new VantageError(
      "conflict",
      `${path} is not UTF-8 text; Vantage never overwrites a file it cannot read`,
      { details: { file: path } },
    );
  }
}

/** The SHA-256 of a text's UTF-8 bytes, as hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(encoder.encode(text)).digest("hex");
}

/**
 * Replaces `path` with `text` atomically: the text goes to a temporary file
 * beside it, which is renamed over the original, so a crash leaves either
 * the old file or the new one. The original's permissions are kept; a
 * symlink is followed and its target replaced.
 */
export async function writeTextAtomic(
  path: string,
  text: string,
  newFileMode = 0o644,
): Promise<void> {
  const target = await resolveSymlink(path);
  let mode = newFileMode;
  try {
    mode = (await Deno.stat(target)).mode ?? mode;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const temporary = join(
    dirname(target),
    `.${basename(target)}.vantage-${randomBytes(6).toString("hex")}.tmp`,
  );
  try {
    await Deno.writeFile(temporary, encoder.encode(text), { mode: mode & 0o777, createNew: true });
    await Deno.chmod(temporary, mode & 0o777).catch(() => {});
    await Deno.rename(temporary, target);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    if (isPermissionRefusal(error)) throw refused(target, "write");
    throw error;
  }
}

/** Removes `path`, ignoring a missing file. */
export async function removeFile(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (isPermissionRefusal(error)) throw refused(path, "write");
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/**
 * Copies `text` (the original content of `path`) to `path.vantage-backup`
 * unless a backup already exists: the first original is the one worth
 * keeping, so a backup is never overwritten. Returns the backup's path and
 * whether it holds exactly `text`.
 */
export async function backupOnce(
  path: string,
  text: string,
): Promise<{ backup: string; matches: boolean; created: boolean }> {
  const backup = path + BACKUP_SUFFIX;
  const existing = await readTextIfExists(backup).catch(() => undefined);
  if (existing !== undefined) return { backup, matches: existing === text, created: false };
  await writeTextAtomic(backup, text);
  return { backup, matches: true, created: true };
}

/**
 * Creates `folder` and its missing parents, and returns the folders it
 * created, outermost first, so an uninstall can remove exactly those.
 */
export async function ensureFolder(folder: string): Promise<string[]> {
  const missing: string[] = [];
  let current = folder;
  for (;;) {
    try {
      const info = await Deno.stat(current);
      if (!info.isDirectory) {
        throw new VantageError("conflict", `${current} is a file, where Vantage needs a folder`);
      }
      break;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      missing.unshift(current);
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
  }
  for (const each of missing) {
    await Deno.mkdir(each).catch((error) => {
      if (isPermissionRefusal(error)) throw refused(each, "write");
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    });
  }
  return missing;
}

/** Removes `folder` if it is empty; returns whether it was removed. */
export async function removeFolderIfEmpty(folder: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(folder)) return false;
    await Deno.remove(folder);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * The error for a Deno permission refusal while installing: the process may
 * not touch an agent's config, so say which file and how to allow it.
 */
function refused(path: string, access: "read" | "write"): VantageError {
  return new VantageError(
    "forbidden",
    `${access} access to ${path} was refused by Deno's permissions; installing into an agent ` +
      `needs read and write access to its config files (run with --allow-read and --allow-write ` +
      `covering them)`,
    { details: { file: path, access } },
  );
}

async function resolveSymlink(path: string): Promise<string> {
  try {
    const info = await Deno.lstat(path);
    return info.isSymlink ? await Deno.realPath(path) : path;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    throw error;
  }
}
