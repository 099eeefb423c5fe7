/**
 * A fingerprint of everything a process could have written: every file under
 * a folder (path, size, SHA-256; folders by path) and, for each SQLite
 * database found there, a digest of every table's rows read through a
 * read-only connection. Two fingerprints compare with
 * {@linkcode describeChanges}, which names each difference.
 */
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";

/** One entry of a folder: a file with its size and hash, or a folder. */
export type TreeEntry = { kind: "dir" } | { kind: "file"; size: number; sha256: string };

/** A fingerprint of a folder and of the databases in it. */
export interface DataSnapshot {
  /** Relative path → entry, for every file and folder kept by the filter. */
  files: Map<string, TreeEntry>;
  /** Relative database path → table → row count and digest. */
  databases: Map<string, Map<string, { rows: number; sha256: string }>>;
}

/**
 * Files that change when nothing was written, so a byte comparison would
 * report noise: SQLite's `-shm` (the WAL index every reader updates) and
 * `-wal` (created when any connection opens the database, emptied or removed
 * by a checkpoint). Every row the WAL carries is seen by the database digest
 * instead, so leaving the files out hides no write.
 */
export function changesWithoutWrites(path: string): boolean {
  return path.endsWith("-shm") || path.endsWith("-wal");
}

const SQLITE_MAGIC = "SQLite format 3\0";

/** Takes a fingerprint of `root`, leaving out paths `skip` names (relative, `/`-separated). */
export async function snapshotData(
  root: string,
  skip: (path: string) => boolean = changesWithoutWrites,
): Promise<DataSnapshot> {
  const files = new Map<string, TreeEntry>();
  const databases: DataSnapshot["databases"] = new Map();
  const walk = async (relative: string): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(relative === "" ? root : `${root}/${relative}`)) {
      entries.push(entry);
    }
    entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    for (const entry of entries) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (skip(path)) continue;
      if (entry.isDirectory) {
        files.set(path, { kind: "dir" });
        await walk(path);
      } else if (entry.isFile) {
        const bytes = await Deno.readFile(`${root}/${path}`);
        files.set(path, {
          kind: "file",
          size: bytes.byteLength,
          sha256: createHash("sha256").update(bytes).digest("hex"),
        });
        if (new TextDecoder().decode(bytes.subarray(0, 16)) === SQLITE_MAGIC) {
          databases.set(path, databaseDigest(`${root}/${path}`));
        }
      } else {
        files.set(path, { kind: "file", size: -1, sha256: "not a regular file" });
      }
    }
  };
  await walk("");
  return { files, databases };
}

/**
 * Every table's rows, read-only: each row serialised (blobs as hex), the
 * rows sorted so the digest is the table's content whatever order SQLite
 * returns it in. Virtual tables are left out: their content lives in shadow
 * tables, which are ordinary tables and read here.
 */
export function databaseDigest(path: string): Map<string, { rows: number; sha256: string }> {
  const db = new DatabaseSync(path, { readOnly: true, timeout: 5000 });
  try {
    const tables = db.prepare(
      `SELECT name FROM sqlite_master
        WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
        ORDER BY name`,
    ).all() as Array<{ name: string }>;
    const digest = new Map<string, { rows: number; sha256: string }>();
    for (const { name } of tables) {
      const statement = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
      // 64-bit hashes and the like do not fit a JavaScript number.
      statement.setReadBigInts(true);
      const rows = statement.all();
      const lines = rows.map((row) =>
        JSON.stringify(
          Object.entries(row as Record<string, unknown>),
          (_key, value) =>
            value instanceof Uint8Array
              ? `x'${Array.from(value, (b) => b.toString(16).padStart(2, "0")).join("")}'`
              : typeof value === "bigint"
              ? `${value}n`
              : value,
        )
      ).sort();
      const hash = createHash("sha256");
      for (const line of lines) hash.update(line).update("\n");
      digest.set(name, { rows: rows.length, sha256: hash.digest("hex") });
    }
    return digest;
  } finally {
    db.close();
  }
}

/** Each difference between two fingerprints, one readable line each (empty when equal). */
export function describeChanges(before: DataSnapshot, after: DataSnapshot): string[] {
  const changes: string[] = [];
  for (const [path, entry] of before.files) {
    const now = after.files.get(path);
    if (now === undefined) changes.push(`removed ${path}`);
    else if (JSON.stringify(now) !== JSON.stringify(entry)) {
      changes.push(`changed ${path}: ${JSON.stringify(entry)} → ${JSON.stringify(now)}`);
    }
  }
  for (const [path, entry] of after.files) {
    if (!before.files.has(path)) changes.push(`added ${path}: ${JSON.stringify(entry)}`);
  }
  for (const [path, tables] of before.databases) {
    const now = after.databases.get(path);
    if (now === undefined) continue; // Reported with the files.
    for (const [table, digest] of tables) {
      const later = now.get(table);
      if (later === undefined) changes.push(`${path}: table ${table} dropped`);
      else if (later.sha256 !== digest.sha256) {
        changes.push(`${path}: table ${table} rows changed (${digest.rows} → ${later.rows} rows)`);
      }
    }
    for (const table of now.keys()) {
      if (!tables.has(table)) changes.push(`${path}: table ${table} created`);
    }
  }
  return changes;
}
