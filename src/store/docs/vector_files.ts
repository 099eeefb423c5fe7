/**
 * Column files of sealed vectors (`docs-vectors/seg-*.vvec` beside the
 * store): one run of a model's vectors, laid out one dimension after
 * another, so a query that uses 40 of 384 dimensions reads about a tenth of
 * the file, in 40 contiguous reads, instead of loading every vector.
 *
 * A file is written whole under a temporary name, synced and renamed before
 * the store transaction that names it commits, and never changes after that;
 * it is removed only after the transaction that dropped its row committed
 * (a reader that already opened it keeps reading what it opened, and one that
 * finds it gone lists the segments again). A file no row names (a crash
 * between rename and commit) is removed once it is old enough that no writer
 * can still be about to name it.
 *
 * Layout, little-endian: a 64-byte header (`VVEC0001`, rows u32, dimensions
 * u32, rest zero), the vector ids (f64 each, ascending), the document ids (i32
 * each), then for each dimension its `rows` float32 values.
 *
 * @module
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "../../core/private_files.ts";
import { type DatabaseSync, storeFilePath } from "../database.ts";

const MAGIC = "VVEC0001";
const HEADER_BYTES = 64;
const FILE_NAME = /^seg-[0-9a-z]+-[0-9a-f]{12}\.vvec$/;
const TEMP_NAME = /^\.tmp-[0-9a-f]{12}$/;

/** Whether this machine stores float32 the way the files do (every platform Deno runs on). */
export const LITTLE_ENDIAN: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The folder of a store's vector files; undefined for a store without a file
 * (in memory), whose vectors are never sealed.
 */
export function vectorFolder(db: DatabaseSync): string | undefined {
  const file = storeFilePath(db);
  return file === undefined || !LITTLE_ENDIAN ? undefined : join(dirname(file), "docs-vectors");
}

/** What a new file holds: ids, document ids and each dimension's column. */
export interface SegmentContent {
  /** Vector ids, ascending. */
  ids: Float64Array;
  /** The document of each vector. */
  documents: Int32Array;
  /** Vector length. */
  dimensions: number;
  /** The values of dimension `d` for every vector, in id order. */
  column(d: number): Float32Array;
}

/**
 * Writes a new column file into `folder` and returns its name. The file
 * exists under that name only once complete and synced.
 */
export function writeSegmentFile(folder: string, content: SegmentContent): string {
  mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const rows = content.ids.length;
  const temp = join(folder, `.tmp-${randomHex(12)}`);
  const name = `seg-${Date.now().toString(36)}-${randomHex(12)}.vvec`;
  const fd = openSync(temp, "wx", PRIVATE_FILE_MODE);
  try {
    const header = new Uint8Array(HEADER_BYTES);
    header.set(new TextEncoder().encode(MAGIC));
    const view = new DataView(header.buffer);
    view.setUint32(8, rows, true);
    view.setUint32(12, content.dimensions, true);
    writeAll(fd, header);
    writeAll(fd, bytesOf(content.ids));
    writeAll(fd, bytesOf(content.documents));
    for (let d = 0; d < content.dimensions; d++) {
      const column = content.column(d);
      if (column.length !== rows) {
        throw new Error(`column ${d} holds ${column.length} values for ${rows} vectors`);
      }
      writeAll(fd, bytesOf(column));
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, join(folder, name));
    // The new name must survive a power cut as well as the bytes.
    const dir = openSync(folder, "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
  return name;
}

/** One open column file. */
export class SegmentFile {
  /** Vector ids, ascending. */
  readonly ids: Float64Array;
  /** The document of each vector. */
  readonly documents: Int32Array;
  readonly #fd: number;
  readonly #rows: number;
  readonly #dimensions: number;
  readonly #path: string;

  private constructor(fd: number, path: string, rows: number, dimensions: number) {
    this.#fd = fd;
    this.#path = path;
    this.#rows = rows;
    this.#dimensions = dimensions;
    this.ids = new Float64Array(rows);
    this.documents = new Int32Array(rows);
    this.#read(bytesOf(this.ids), HEADER_BYTES);
    this.#read(bytesOf(this.documents), HEADER_BYTES + rows * 8);
  }

  /**
   * Opens a file and checks it holds `rows` vectors of `dimensions` values;
   * undefined when the file is not there (removed after a merge; on Windows a
   * removed file still held open by another process refuses to open until
   * it is closed). Throws an error naming the file when it is damaged.
   */
  static open(
    folder: string,
    name: string,
    rows: number,
    dimensions: number,
  ): SegmentFile | undefined {
    const path = join(folder, name);
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === "ENOENT" || code === "EPERM" || code === "EACCES") return undefined;
      throw error;
    }
    try {
      const header = new Uint8Array(HEADER_BYTES);
      const got = readSync(fd, header, 0, HEADER_BYTES, 0);
      const view = new DataView(header.buffer);
      const expected = HEADER_BYTES + rows * 12 + rows * dimensions * 4;
      const size = fstatSync(fd).size;
      if (
        got !== HEADER_BYTES || new TextDecoder().decode(header.subarray(0, 8)) !== MAGIC ||
        view.getUint32(8, true) !== rows || view.getUint32(12, true) !== dimensions ||
        size !== expected
      ) {
        throw new Error(
          `vector file ${path} is damaged: expected ${rows} vectors of ${dimensions} values ` +
            `(${expected} bytes), found ${size} bytes`,
        );
      }
      return new SegmentFile(fd, path, rows, dimensions);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The values of dimension `d` for every vector. */
  column(d: number): Float32Array {
    const out = new Float32Array(this.#rows);
    this.#read(
      bytesOf(out),
      HEADER_BYTES + this.#rows * 12 + d * this.#rows * 4,
    );
    return out;
  }

  /** Vector length. */
  get dimensions(): number {
    return this.#dimensions;
  }

  /** Closes the file. */
  close(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // Closed already.
    }
  }

  #read(into: Uint8Array, position: number): void {
    let filled = 0;
    while (filled < into.length) {
      const read = readSync(this.#fd, into, filled, into.length - filled, position + filled);
      if (read === 0) throw new Error(`vector file ${this.#path} ends early`);
      filled += read;
    }
  }
}

/** Removes a column file; a file already gone is fine. */
export function removeSegmentFile(folder: string, name: string): void {
  removeQuietly(join(folder, name));
}

/**
 * Removes files in `folder` that no segment names (`named`) and that are
 * older than `minAgeMs`: left by a writer that crashed before its commit, or
 * by a merge whose removal failed. Returns how many were removed.
 */
export function sweepSegmentFiles(
  folder: string,
  named: ReadonlySet<string>,
  minAgeMs: number,
): number {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  const now = Date.now();
  for (const name of names) {
    if (named.has(name) || !(FILE_NAME.test(name) || TEMP_NAME.test(name))) continue;
    try {
      const modified = statSync(join(folder, name)).mtimeMs;
      if (now - modified < minAgeMs) continue;
      unlinkSync(join(folder, name));
      removed++;
    } catch {
      // Removed by another process meanwhile.
    }
  }
  return removed;
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written);
}

function bytesOf(array: Float64Array | Float32Array | Int32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function randomHex(chars: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(chars / 2)));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("").slice(0, chars);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Not there.
  }
}
