/**
 * Every file Vantage writes for a caller (a restore, a document exported to
 * a path) lands inside the folders the user opened with `VANTAGE_ROOTS`, and
 * never inside the data home. This is Vantage's own check, made whatever
 * permissions Deno was given (`-A` included):
 *
 * - the target folder is resolved to its real path (every link on the way
 *   followed) and that real path must lie inside the real path of a root and
 *   outside the real data home; a link that leads elsewhere is refused;
 * - folders that do not exist yet are made one at a time below that real
 *   path, each checked to be a folder and not a link once made;
 * - the file itself is never opened through its name: the bytes go to a new
 *   temporary file (created exclusively, so no link can be followed) in the
 *   real folder, which is checked again, and the temporary file is renamed
 *   over the name (a rename replaces a link; it does not write through it).
 *
 * What is left is the moment between the last check and the rename: Deno
 * offers no `openat`/`renameat`, so a folder swapped for a link exactly then
 * is not caught; the file would still be one Vantage created, never an
 * existing file overwritten through a link.
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { VantageError } from "./errors.ts";

/** Where writes may go. */
export interface WriteRoots {
  /** Folders writes must stay inside (`VANTAGE_ROOTS`). */
  roots: readonly string[];
  /** The data home, which only the store itself writes. */
  dataHome?: string;
}

/** A checked place to write one file. */
export interface WriteTarget {
  /** The real folder the file goes in (links resolved). */
  folder: string;
  /** The file's name in it. */
  name: string;
  /** `folder/name`. */
  path: string;
  /** The root it is inside (real path). */
  root: string;
}

/** Whether `child` is `parent` or below it (both absolute, normalized). */
function within(child: string, parent: string): boolean {
  const inside = relative(parent, child);
  return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside) &&
    !inside.split(sep).includes(".."));
}

/** The real path of `path`; undefined when it does not exist. */
function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    // Not even readable under this process's permissions: certainly not a place to write.
    refuse(
      `cannot write to ${path}: this process may not even read it (${
        error instanceof Error ? error.message : String(error)
      }); list the folders Vantage may write into in VANTAGE_ROOTS`,
      path,
    );
  }
}

function refuse(message: string, path: string): never {
  throw new VantageError("forbidden", message, { details: { path } });
}

/** The real paths of the roots that exist. */
function realRoots(allowed: WriteRoots): string[] {
  const roots: string[] = [];
  for (const root of allowed.roots) {
    try {
      roots.push(Deno.realPathSync(resolve(root)));
    } catch {
      // A root that is missing (or unreadable) holds nothing to write into.
    }
  }
  return roots;
}

/**
 * Checks a folder for writing into and makes what is missing of it;
 * returns its real path. Throws `forbidden` naming the path when it is (or
 * leads) outside every root, or inside the data home.
 */
export function prepareWriteFolder(
  allowed: WriteRoots,
  folder: string,
  options: { create?: boolean } = {},
): { folder: string; root: string } {
  const absolute = resolve(folder);
  const roots = realRoots(allowed);
  if (roots.length === 0) {
    refuse(
      `cannot write to ${absolute}: no folder is open for writing; list the folders Vantage may write into in VANTAGE_ROOTS`,
      absolute,
    );
  }
  // The deepest part of the path that exists, with every link in it resolved.
  let existing = absolute;
  const missing: string[] = [];
  let real = realPath(existing);
  while (real === undefined) {
    const parent = dirname(existing);
    if (parent === existing) refuse(`cannot write to ${absolute}: no part of it exists`, absolute);
    missing.unshift(basename(existing));
    existing = parent;
    real = realPath(existing);
  }
  const root = roots.find((candidate) => within(real!, candidate));
  const leadsTo = real === existing ? "" : ` (it leads to ${real})`;
  if (root === undefined) {
    refuse(
      `cannot write to ${absolute}: ${existing}${leadsTo} is outside the folders Vantage may write into (VANTAGE_ROOTS: ${
        allowed.roots.join(", ")
      })`,
      absolute,
    );
  }
  const home = allowed.dataHome === undefined ? undefined : realPath(resolve(allowed.dataHome));
  const insideHome = (path: string) => home !== undefined && within(path, home);
  if (insideHome(real)) {
    refuse(
      `cannot write to ${absolute}: it is inside Vantage's data home ${allowed.dataHome}, which only the store itself writes`,
      absolute,
    );
  }
  const info = Deno.statSync(real);
  if (!info.isDirectory) refuse(`cannot write into ${absolute}: ${real} is not a folder`, absolute);
  let current = real;
  // A dry run only checks: what is missing would be made inside the checked real folder.
  if (options.create === false) return { folder: join(real, ...missing), root };
  for (const name of missing) {
    const next = join(current, name);
    try {
      Deno.mkdirSync(next);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    // Made by us or by someone else meanwhile: either way it must be a real folder now.
    const made = Deno.lstatSync(next);
    if (made.isSymlink || !made.isDirectory) {
      refuse(`cannot write into ${absolute}: ${next} is a link or not a folder`, absolute);
    }
    current = next;
  }
  return { folder: current, root };
}

/** Checks the place of one file to write (its folder made when missing). */
export function prepareWriteTarget(
  allowed: WriteRoots,
  path: string,
  options: { create?: boolean } = {},
): WriteTarget {
  const absolute = resolve(path);
  const name = basename(absolute);
  if (name === "" || name === "." || name === "..") {
    refuse(`cannot write to ${absolute}: it names no file`, absolute);
  }
  const { folder, root } = prepareWriteFolder(allowed, dirname(absolute), options);
  return { folder, name, path: join(folder, name), root };
}

/** What to do when the target file exists. */
export interface WriteOptions {
  /** Replace an existing file (default false: `conflict`). */
  overwrite?: boolean;
  /** Modification time to give the file. */
  modified?: Date;
}

/**
 * Writes `pieces` to a checked target: a fresh temporary file in the real
 * folder, renamed over the name once complete and the folder checked again.
 * An existing link at the name is refused (never written through); an
 * existing file is replaced only with `overwrite`.
 */
export function writeConfined(
  target: WriteTarget,
  pieces: Iterable<Uint8Array>,
  options: WriteOptions = {},
): void {
  const existing = lstatOrUndefined(target.path);
  if (existing?.isSymlink) {
    refuse(
      `cannot write to ${target.path}: it is a link, which Vantage never writes through`,
      target.path,
    );
  }
  if (existing?.isDirectory) {
    refuse(`cannot write to ${target.path}: it is a folder`, target.path);
  }
  if (existing !== undefined && options.overwrite !== true) {
    throw new VantageError("conflict", `${target.path} exists; pass overwrite to replace it`, {
      details: { path: target.path },
    });
  }
  const temporary = join(
    target.folder,
    `.${target.name}.vantage-${crypto.randomUUID().slice(0, 12)}.tmp`,
  );
  // Exclusive creation: a link planted under this name is never followed.
  const file = Deno.openSync(temporary, { write: true, createNew: true, mode: 0o644 });
  let done = false;
  try {
    for (const piece of pieces) {
      let written = 0;
      while (written < piece.length) written += file.writeSync(piece.subarray(written));
    }
    const opened = file.statSync();
    file.close();
    // The folder must still be the real one checked, and the file there the one written.
    const folderNow = realPath(target.folder);
    const here = lstatOrUndefined(temporary);
    if (
      folderNow !== target.folder || here === undefined || here.isSymlink ||
      here.ino !== opened.ino || here.dev !== opened.dev
    ) {
      refuse(
        `cannot write to ${target.path}: its folder changed while it was written`,
        target.path,
      );
    }
    const again = lstatOrUndefined(target.path);
    if (again?.isSymlink || again?.isDirectory) {
      refuse(`cannot write to ${target.path}: a link or folder appeared there`, target.path);
    }
    Deno.renameSync(temporary, target.path);
    done = true;
  } finally {
    if (!done) {
      try {
        file.close();
      } catch {
        // Already closed.
      }
      try {
        Deno.removeSync(temporary);
      } catch {
        // Gone already.
      }
    }
  }
  if (options.modified !== undefined) {
    try {
      Deno.utimeSync(target.path, options.modified, options.modified);
    } catch {
      // Keeping the original time is a courtesy; the bytes are what matter.
    }
  }
}

function lstatOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
