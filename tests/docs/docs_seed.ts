/**
 * A small document memory written through the {@linkcode DocsStore} interface alone, so it
 * lands the same on SQLite and on PostgreSQL without `docs.add`: contents stored as chunks,
 * documents with every field of a new row, tags, metadata, collections, two snapshots with
 * their members, a code graph across two files, a document added in a session, and a second
 * version of one path that supersedes the first. The same calls in the same order give the
 * same ids on both backends.
 */
import { extractText } from "../../src/docs/text_extract.ts";
import { putContentIn } from "../../src/docs/store_content.ts";
import type { DocsStore } from "../../src/store/docs/docs_store.ts";
import type { NewDocument } from "../../src/store/docs/documents.ts";
import type { StoreMode } from "../../src/store/repository.ts";

/** When the seeded files were made; each document is stored a minute after the one before. */
export const SEED_T0 = Date.parse("2026-11-20T09:00:00Z");

/** The session the seeded to-do list was added in. */
export const SEED_SESSION = "review";

/** The folder every seeded path is below. */
export const SEED_ROOT = "/seed/project";

const APP_TS = `import { parse } from "./parser.ts";

/** Runs the tool. */
export function main(args: string[]): number {
  const tree = parse(args.join(" "));
  return tree.length;
}
`;

const PARSER_TS = `/** Splits a line into words. */
export function parse(line: string): string[] {
  return line.split(/\\s+/).filter((word) => word !== "");
}
`;

const AUTH_V1 = `# Authentication

Tokens are issued per person and checked on every request.
`;

const AUTH_V2 = `# Authentication

Tokens are issued per person, hashed at rest, and checked on every request.
A revoked token is refused from the next request on.
`;

const INDEX_HTML = `<!doctype html>
<html><head><title>Project site</title></head>
<body><h1>Welcome</h1><p>Read the &amp; handbook for authentication.</p></body></html>
`;

const TODO_TXT = `review the parser
check the token expiry
`;

/** A long text of many chunks: the same words in a fixed pseudo-random order on every run. */
function longText(lines: number): string {
  const words = ["token", "parser", "request", "session", "graph", "chunk", "store", "search"];
  let state = 12345;
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const line: string[] = [];
    for (let w = 0; w < 9; w++) {
      state = (state * 1103515245 + 12345) % 2147483648;
      line.push(words[state % words.length] + String(state % 997));
    }
    out.push(`${i + 1}: ${line.join(" ")}`);
  }
  return out.join("\n") + "\n";
}

/** A few bytes that are not text: a PNG signature and the start of its header. */
const LOGO_PNG = Uint8Array.fromHex("89504e470d0a1a0a0000000d494844520000000100000001080600000000");

/** What the seeder stored, for a suite to name in its calls. */
export interface Seeded {
  /** Document ids by a short name. */
  ids: Record<string, number>;
  /** Content hashes by the same names. */
  hashes: Record<string, string>;
}

interface SeedFile {
  key: string;
  relative: string;
  bytes: Uint8Array;
  snapshot: string | null;
  session: string | null;
  source?: string;
  collection?: string;
  tags?: string[];
  metadata?: Record<string, string>;
}

const text = (value: string) => new TextEncoder().encode(value);

/** The files in the order they are stored (the superseding version last). */
const FILES: SeedFile[] = [
  {
    key: "auth_v1",
    relative: "notes/auth.md",
    bytes: text(AUTH_V1),
    snapshot: "snap-1",
    session: null,
    collection: "handbook",
    tags: ["auth", "notes"],
    metadata: { owner: "ana", status: "draft" },
  },
  {
    key: "app",
    relative: "src/app.ts",
    bytes: text(APP_TS),
    snapshot: "snap-1",
    session: null,
    collection: "code",
    tags: ["code"],
  },
  {
    key: "parser",
    relative: "src/parser.ts",
    bytes: text(PARSER_TS),
    snapshot: "snap-1",
    session: null,
    collection: "code",
    tags: ["code", "parsing"],
    metadata: { reviewed: "yes" },
  },
  {
    key: "site",
    relative: "site/index.html",
    bytes: text(INDEX_HTML),
    snapshot: "snap-1",
    session: null,
    source: "https://example.org/index.html",
  },
  { key: "logo", relative: "assets/logo.png", bytes: LOGO_PNG, snapshot: "snap-1", session: null },
  {
    key: "log",
    relative: "logs/build.log",
    bytes: text(longText(4000)),
    snapshot: "snap-1",
    session: null,
    tags: ["logs"],
  },
  {
    key: "todo",
    relative: "notes/todo.txt",
    bytes: text(TODO_TXT),
    snapshot: null,
    session: SEED_SESSION,
    tags: ["notes"],
  },
  {
    key: "auth_v2",
    relative: "notes/auth.md",
    bytes: text(AUTH_V2),
    snapshot: "snap-2",
    session: null,
    tags: ["auth", "notes", "current"],
    metadata: { owner: "ana", status: "final" },
  },
];

/** The graph of the two source files, as the indexer stores it (file, symbol and reference keys). */
async function seedGraph(docs: DocsStore<StoreMode>, ids: Record<string, number>): Promise<void> {
  const app = `file:${SEED_ROOT}/src/app.ts`;
  const parser = `file:${SEED_ROOT}/src/parser.ts`;
  const main = `symbol:${SEED_ROOT}/src/app.ts#main`;
  const parse = `symbol:${SEED_ROOT}/src/parser.ts#parse`;
  await docs.insertGraph(ids.app, [
    { node_key: app, type: "file", name: "app.ts", line: 1, parent: null },
    { node_key: main, type: "function", name: "main", line: 4, parent: app },
  ], [
    { src: app, dst: "module:./parser.ts", relation: "IMPORTS", line: 1 },
    { src: app, dst: main, relation: "DEFINES", line: 4 },
    { src: main, dst: "ref:parse", relation: "CALLS", line: 5 },
    { src: app, dst: parser, relation: "IMPORTS", line: 1 },
  ]);
  await docs.insertGraph(ids.parser, [
    { node_key: parser, type: "file", name: "parser.ts", line: 1, parent: null },
    { node_key: parse, type: "function", name: "parse", line: 2, parent: parser },
  ], [
    { src: parser, dst: parse, relation: "DEFINES", line: 2 },
  ]);
}

/**
 * Stores the seed through `docs`, every write awaited in turn, and answers what it stored.
 *
 * @example
 * ```ts ignore
 * const seeded = await seedDocs(backend.docs);
 * ```
 */
export async function seedDocs(docs: DocsStore<StoreMode>): Promise<Seeded> {
  const ids: Record<string, number> = {};
  const hashes: Record<string, string> = {};
  for (const [i, file] of FILES.entries()) {
    const at = SEED_T0 + i * 60_000;
    const content = await putContentIn(docs, file.bytes, at);
    const path = `${SEED_ROOT}/${file.relative}`;
    const name = path.slice(path.lastIndexOf("/") + 1);
    const dot = name.lastIndexOf(".");
    const extracted = extractText(path, file.bytes);
    const row: NewDocument = {
      hash: content.hash,
      path,
      relative_path: file.relative,
      name,
      extension: dot > 0 ? name.slice(dot).toLowerCase() : "",
      mime: extracted.mime,
      is_text: extracted.isText ? 1 : 0,
      size: file.bytes.length,
      title: extracted.title ?? name,
      created_at: SEED_T0 - 86_400_000,
      modified_at: at - 1_000,
      indexed_at: at,
      snapshot_id: file.snapshot,
      session_id: file.session,
      source_url: file.source ?? null,
    };
    const id = await docs.insertDocument(row);
    const superseded = await docs.supersedeOtherVersions(path, id);
    for (const older of superseded) await docs.inheritCollections(older, id);
    if (file.collection !== undefined) {
      await docs.addToCollection(id, file.collection, file.relative);
    }
    if (file.tags !== undefined) await docs.addTags(id, file.tags);
    if (file.metadata !== undefined) await docs.setMetadata(id, file.metadata);
    if (file.snapshot !== null) {
      await docs.upsertSnapshot({
        snapshot_id: file.snapshot,
        label: file.snapshot === "snap-1" ? "first import" : "auth rewrite",
        created_at: at,
        directory_path: SEED_ROOT,
        collection: file.collection ?? null,
        session_id: null,
        git_commit: file.snapshot === "snap-1" ? "a1b2c3d4" : "e5f6a7b8",
        git_branch: "main",
        git_remote: "https://example.org/project.git",
        files_count: 0,
      });
      await docs.addSnapshotMember(file.snapshot, id);
      await docs.refreshSnapshotCount(file.snapshot);
    }
    ids[file.key] = id;
    hashes[file.key] = content.hash;
  }
  await seedGraph(docs, ids);
  return { ids, hashes };
}
