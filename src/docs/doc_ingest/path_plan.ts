/**
 * What an add of a path starts from, on either engine: the path made absolute and checked to
 * exist (a clear `not_found` when it does not), the report, the folder's git facts, and the
 * files to store (a folder's walked, text before binaries; a file alone) with the folder their
 * relative paths are taken from.
 *
 * @module
 */
import { basename, resolve } from "node:path";
import { VantageError } from "../../core/errors.ts";
import { gitInfo } from "../git_info.ts";
import { newReport } from "./ingest.ts";
import { type FileEntry, listFiles, textFirst } from "./scan.ts";
import { type GitFacts, NO_GIT } from "./snapshot.ts";
import type { IngestOptions, IngestReport } from "./types.ts";

/** An add of one path, planned. */
export interface PathPlan {
  /** The report the add fills in. */
  report: IngestReport;
  /** The folder's git facts (none for a file). */
  git: GitFacts;
  /** The files to store. */
  files: FileEntry[];
  /** The folder the snapshot names: the folder added, or a file's own folder. */
  directory: string;
}

/**
 * Plans the add of `path` (already checked for read access).
 *
 * @example
 * ```ts ignore
 * const { report, git, files, directory } = await planPathAdd("/repo/docs", options);
 * ```
 */
export async function planPathAdd(path: string, options: IngestOptions): Promise<PathPlan> {
  const absolute = resolve(path);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(absolute);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new VantageError("not_found", `no file or folder at ${absolute}`, {
        details: { path: absolute },
      });
    }
    throw error;
  }
  const report = newReport(options);
  const isDirectory = info.isDirectory;
  return {
    report,
    git: isDirectory ? await gitInfo(absolute) : NO_GIT,
    files: isDirectory
      ? textFirst(listFiles(absolute, options, report))
      : [{ path: absolute, relativePath: basename(absolute) }],
    directory: isDirectory ? absolute : resolve(absolute, ".."),
  };
}
