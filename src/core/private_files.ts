/**
 * Private by default: the data home holds agents' prompts, transcripts,
 * documents and the server's token, so its folders are 0700 and its files
 * 0600 whatever the umask says. Modes are set when a file or folder is made
 * and again on folders that already exist (a data home from an earlier
 * version was 0755). Deno-only APIs: the hook process loads this module.
 *
 * @module
 */

/** The mode of every folder Vantage makes in its data home. */
export const PRIVATE_FOLDER_MODE = 0o700;

/** The mode of every file Vantage writes in its data home. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `path` (and missing parents) a folder only its owner may enter, and
 * narrows an existing one to that.
 *
 * @example
 * ```ts ignore
 * makePrivateFolderSync("/home/me/.vantage");
 * ```
 */
export function makePrivateFolderSync(path: string): void {
  Deno.mkdirSync(path, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  narrow(path, PRIVATE_FOLDER_MODE);
}

/** Like {@linkcode makePrivateFolderSync}, without blocking. */
export async function makePrivateFolder(path: string): Promise<void> {
  await Deno.mkdir(path, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  narrow(path, PRIVATE_FOLDER_MODE);
}

/**
 * Narrows existing files to owner read/write; missing ones are skipped.
 * SQLite creates a database's `-wal` and `-shm` files with the database
 * file's own mode, so narrowing the database right after it is opened
 * covers the files it makes later.
 */
export function makeFilesPrivate(...paths: string[]): void {
  for (const path of paths) narrow(path, PRIVATE_FILE_MODE);
}

/** A SQLite database file and the two files SQLite keeps beside it in WAL mode. */
export function sqliteFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}

function narrow(path: string, mode: number): void {
  try {
    const info = Deno.statSync(path);
    if (info.mode !== null && (info.mode & 0o777) === mode) return;
    Deno.chmodSync(path, mode);
  } catch {
    // Missing, not ours to change, or a platform without modes (Windows): nothing to narrow.
  }
}
