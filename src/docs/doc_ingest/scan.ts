/**
 * Finding the files of an add: the folder walk (include/exclude globs, no links, no `.git`),
 * texts ordered before binaries, how a file's kind and size are told, and which errors mean a
 * file is skipped rather than the add failed.
 *
 * @module
 */
import { join, relative, resolve } from "node:path";
import { VantageError } from "../../core/errors.ts";
import { filePieces } from "../content_store.ts";
import { createPathFilter } from "../glob.ts";
import type { FileKind } from "../ingest_balance.ts";
import { namedAsBinary } from "../text_extract.ts";
import type { IngestOptions, IngestReport } from "./types.ts";

/** One file to add. */
export interface FileEntry {
  /** Absolute path. */
  path: string;
  /** Path below the added folder, forward slashes. */
  relativePath: string;
  /** Display name when it is not the path's base name (inline content, downloads). */
  name?: string;
  /** The file's status, when the listing already read it. */
  info?: Deno.FileInfo;
}

/** Every file below `root` the options select, in name order; a folder that cannot be read is reported skipped. */
export function listFiles(
  root: string,
  options: IngestOptions,
  report: IngestReport,
): FileEntry[] {
  const filter = createPathFilter(options.include, options.exclude);
  const skip = new Set((options.skipFolders ?? []).map((folder) => resolve(folder)));
  const recursive = options.recursive ?? true;
  const files: FileEntry[] = [];
  // Synchronous reads: one call per folder instead of one awaited step per entry, several
  // times faster on folders of thousands of files.
  const walk = (folder: string): void => {
    if (skip.has(folder)) return;
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(folder)];
    } catch (error) {
      report.skipped.push({ path: folder, reason: messageOf(error) });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const relativePath = relative(root, path).replaceAll("\\", "/");
      if (entry.isDirectory) {
        // Git's object store is never a document; the user's files beside it are.
        if (entry.name === ".git" || !recursive) continue;
        if (filter.excludes(relativePath + "/")) continue;
        walk(path);
      } else if (entry.isFile) {
        if (!filter.selects(relativePath)) continue;
        let info: Deno.FileInfo | undefined;
        try {
          info = Deno.statSync(path);
        } catch {
          // Gone already: the add reports it when it gets there.
        }
        files.push({ path, relativePath, info });
      }
      // Symbolic links are skipped: following them could leave the folder or loop.
    }
  };
  walk(root);
  return files;
}

/**
 * The files in listing order, those named as binary moved to the end. Text
 * gives the index worker its work (full-text indexing, embedding) while
 * binaries are main-thread work only: taken last, they are stored while the
 * worker finishes the last texts instead of leaving it idle at the start.
 */
export function textFirst(files: FileEntry[]): FileEntry[] {
  const texts: FileEntry[] = [];
  const binaries: FileEntry[] = [];
  for (const file of files) (namedAsBinary(file.path) ? binaries : texts).push(file);
  return texts.concat(binaries);
}

/** How a file's storing cost is estimated: by what its name says. */
export function kindOf(path: string): FileKind {
  return namedAsBinary(path) ? "binary" : "text";
}

/** A file's size now, 0 when it cannot be read. */
export function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

/** The first `limit` bytes of a file (a large file is read piece by piece). */
export function readPrefix(path: string, limit: number): Uint8Array {
  for (const piece of filePieces(path, limit)) return piece;
  return new Uint8Array(0);
}

/** Whether an error only means this file cannot be added (the add goes on without it). */
export function isFileProblem(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.IsADirectory ||
    error instanceof Deno.errors.InvalidData ||
    (error instanceof VantageError && error.kind === "conflict");
}

/** The message of an error, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
