/**
 * What an install changed, kept in the data home (`install/<adapter>.json`),
 * so an uninstall can put every file back exactly: whether each file existed,
 * a hash of what Vantage wrote and of the original, where the backup is, and
 * which folders Vantage created.
 *
 * @module
 */
import { join } from "node:path";
import { makePrivateFolder, PRIVATE_FILE_MODE } from "../core/private_files.ts";
import { VantageError } from "../core/errors.ts";
import { type InstallEnvironment, installStateDirectory } from "./environment.ts";
import { readTextIfExists, removeFile, removeFolderIfEmpty, writeTextAtomic } from "./file_io.ts";

/** One file an install changed. */
export interface FileRecord {
  /** Absolute path. */
  path: string;
  /** Whether the file existed before Vantage first changed it. */
  existed: boolean;
  /** SHA-256 of the content before Vantage first changed it (when it existed). */
  original_sha256?: string;
  /** The backup holding that original content, when one was made or already matched. */
  backup?: string;
  /** SHA-256 of the content Vantage last wrote; absent when Vantage removed the file. */
  written_sha256?: string;
}

/** Everything one adapter's installs changed. */
export interface InstallRecord {
  /** Record format version. */
  version: 1;
  /** The adapter (`claude-code`, `codex`, `copilot-cli`, `openclaw`, or `autostart`). */
  adapter: string;
  /** The files changed, in the order first changed. */
  files: FileRecord[];
  /** Folders Vantage created, outermost first. */
  created_folders: string[];
}

/** Where an adapter's record lives. */
export function recordPath(environment: InstallEnvironment, adapter: string): string {
  return join(installStateDirectory(environment), `${adapter}.json`);
}

/** Reads an adapter's record, or undefined when it has none (or it is unreadable). */
export async function readInstallRecord(
  environment: InstallEnvironment,
  adapter: string,
): Promise<InstallRecord | undefined> {
  const text = await readTextIfExists(recordPath(environment, adapter)).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as InstallRecord;
    if (parsed.version !== 1 || !Array.isArray(parsed.files)) return undefined;
    parsed.created_folders ??= [];
    return parsed;
  } catch {
    // A damaged record only costs exactness: uninstall falls back to removing entries.
    return undefined;
  }
}

/** Writes an adapter's record (only when its content changed, so a repeat install writes nothing). */
export async function writeInstallRecord(
  environment: InstallEnvironment,
  record: InstallRecord,
): Promise<void> {
  const path = recordPath(environment, record.adapter);
  const text = JSON.stringify(record, null, 2) + "\n";
  if (await readTextIfExists(path).catch(() => undefined) === text) return;
  // Records live in the data home: private like everything else there.
  await makePrivateFolder(installStateDirectory(environment));
  await writeTextAtomic(path, text, PRIVATE_FILE_MODE);
}

/** Deletes an adapter's record, and the record folder when it is left empty. */
export async function deleteInstallRecord(
  environment: InstallEnvironment,
  adapter: string,
): Promise<void> {
  await removeFile(recordPath(environment, adapter));
  await removeFolderIfEmpty(installStateDirectory(environment));
}

/** The adapters that have a record. */
export async function recordedAdapters(environment: InstallEnvironment): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(installStateDirectory(environment))) {
      if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name.slice(0, -5));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new VantageError("internal_error", `cannot list install records: ${error}`);
    }
  }
  return names.sort();
}
