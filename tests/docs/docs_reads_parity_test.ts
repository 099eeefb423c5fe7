/**
 * The document reads and document sessions on both backends: the same seed goes into a SQLite
 * data home and a PostgreSQL database through the DocsStore interface (tests/docs/docs_seed.ts,
 * no `docs.add`), then `docs.list`, `docs.get`, `docs.list_collections`, `docs.list_snapshots`,
 * `docs.graph` and `docs.status` run on each with the same arguments and the same clock, and a
 * session flow (start, pin, scoped list, unpin, stop) runs on each in the same order. Every
 * response, errors included, must be the same whole; `docs.status` differs only where the
 * backends hold different things, as its schema says (SQLite's pack files, a server's rows).
 */
import assert from "node:assert/strict";
import { compressChunk } from "../../src/docs/compression.ts";
import type { ExecuteResponse } from "../../src/ops/executor.ts";
import { PATHS } from "../../src/ops/service_keys.ts";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openDocsBackends } from "./docs_backends.ts";
import { SEED_ROOT, SEED_SESSION, seedDocs, type Seeded } from "./docs_seed.ts";

/** One call and what it must answer on SQLite: a result passing `check`, or an error kind. */
interface Call {
  id: string;
  args: Record<string, unknown>;
  /** The error kind expected; a result when absent. */
  fails?: string;
  /** What the result must hold, so the two answers compared are answers of something. */
  check?: (result: Record<string, unknown>) => void;
}

/** The kind of a response: "result", or the error's kind. */
function outcome(response: ExecuteResponse): string {
  if ("result" in response) return "result";
  if ("operation_error" in response) return response.operation_error.kind;
  return response.error.kind;
}

function listed(result: Record<string, unknown>): Array<Record<string, unknown>> {
  return (result.documents ?? []) as Array<Record<string, unknown>>;
}

/** Asserts a list answer's paths (below the seed folder), in order. */
const paths = (...expected: string[]) => (result: Record<string, unknown>) => {
  const got = result.paths !== undefined
    ? result.paths as string[]
    : listed(result).map((doc) => doc.path as string);
  assert.deepEqual(got, expected.map((path) => `${SEED_ROOT}/${path}`));
};

/** The read calls, naming what the seed stored. */
function readCalls(seeded: Seeded): Call[] {
  const { hashes } = seeded;
  return [
    // docs.list: defaults, sorts, paging, recent, filters, globs, paths only, scopes.
    {
      id: "docs.list",
      args: {},
      check: paths(
        "notes/auth.md",
        "notes/todo.txt",
        "logs/build.log",
        "assets/logo.png",
        "site/index.html",
        "src/parser.ts",
        "src/app.ts",
      ),
    },
    { id: "docs.list", args: { sort_by: "name", sort_order: "asc" } },
    { id: "docs.list", args: { sort_by: "size", limit: 3, offset: 1 } },
    { id: "docs.list", args: { sort_by: "created", sort_order: "asc" } },
    { id: "docs.list", args: { sort_by: "modified" } },
    { id: "docs.list", args: { recent: 2 }, check: paths("notes/auth.md", "notes/todo.txt") },
    { id: "docs.list", args: { recent: 5, limit: 2, offset: 1 } },
    { id: "docs.list", args: { type: "binary" }, check: paths("assets/logo.png") },
    { id: "docs.list", args: { type: "text", sort_by: "name", sort_order: "asc" } },
    { id: "docs.list", args: { extension: ".ts" }, check: paths("src/parser.ts", "src/app.ts") },
    { id: "docs.list", args: { tags: "notes" }, check: paths("notes/auth.md", "notes/todo.txt") },
    { id: "docs.list", args: { tags: ["code", "parsing"] }, check: paths("src/parser.ts") },
    { id: "docs.list", args: { collection: "code" }, check: paths("src/parser.ts", "src/app.ts") },
    // The new version of auth.md inherited the collection of the one it replaced.
    { id: "docs.list", args: { collection: "handbook" }, check: paths("notes/auth.md") },
    { id: "docs.list", args: { snapshot_id: "snap-2" }, check: paths("notes/auth.md") },
    { id: "docs.list", args: { snapshot_id: "snap-1", limit: 2 } },
    { id: "docs.list", args: { pattern: "**/*.ts" }, check: paths("src/parser.ts", "src/app.ts") },
    { id: "docs.list", args: { pattern: "notes/*", paths_only: true } },
    { id: "docs.list", args: { pattern: "**/*.{md,txt,html}", limit: 1, offset: 1 } },
    { id: "docs.list", args: { paths_only: true, sort_by: "name", sort_order: "asc" } },
    { id: "docs.list", args: { session: SEED_SESSION }, fails: "not_found" },
    { id: "docs.list", args: { use_session: true }, fails: "invalid_arguments" },
    { id: "docs.list", args: { use_session: true, global_search: true, limit: 1 } },
    { id: "docs.list", args: { tags: "nothing-tagged-so" }, check: paths() },

    // docs.get: by hash, prefix, name, suffix, path; content of text, HTML, binary, many chunks.
    {
      id: "docs.get",
      args: { hash: hashes.auth_v2 },
      check: (r) => assert.equal(r.latest, true),
    },
    // The superseded version is still found by its own hash.
    {
      id: "docs.get",
      args: { hash: hashes.auth_v1, include_content: true },
      check: (r) => assert.equal(r.latest, false),
    },
    { id: "docs.get", args: { hash: hashes.app.slice(0, 12).toUpperCase() } },
    {
      id: "docs.get",
      args: { name: "auth.md", include_content: true },
      check: (r) => assert.match(r.content as string, /hashed at rest/),
    },
    { id: "docs.get", args: { name: "src/parser.ts", include_content: true } },
    { id: "docs.get", args: { name: `${SEED_ROOT}/site/index.html`, include_content: true } },
    {
      id: "docs.get",
      args: { name: "logo.png", include_content: true },
      check: (r) => assert.equal(r.content_encoding, "base64"),
    },
    {
      id: "docs.get",
      args: { name: "build.log", include_content: true },
      check: (r) => assert.ok((r.content as string).length > 100_000),
    },
    {
      id: "docs.get",
      args: { name: "app.ts", graph: true },
      check: (r) => assert.ok((r.related as unknown[]).length >= 3),
    },
    { id: "docs.get", args: { name: "app.ts", graph: true, depth: 1 } },
    { id: "docs.get", args: { name: "missing.md" }, fails: "not_found" },
    { id: "docs.get", args: { hash: "0123456789abcdef" }, fails: "not_found" },
    { id: "docs.get", args: { hash: "xyz-not-hex" }, fails: "invalid_arguments" },
    { id: "docs.get", args: {}, fails: "invalid_arguments" },
    {
      id: "docs.get",
      args: { name: "app.ts", outputPath: "/tmp/x.ts" },
      fails: "invalid_arguments",
    },

    // docs.list_collections and docs.list_snapshots.
    {
      id: "docs.list_collections",
      args: {},
      check: (r) => assert.equal(r.total, 2),
    },
    {
      id: "docs.list_snapshots",
      args: {},
      check: (r) => assert.equal(r.total, 2),
    },
    { id: "docs.list_snapshots", args: { limit: 1 } },

    // docs.graph: walks forwards and backwards, by relation, by node key, the type listings.
    {
      id: "docs.graph",
      args: { name: "app.ts" },
      check: (r) => assert.ok((r.total as number) >= 2),
    },
    { id: "docs.graph", args: { name: "app.ts", depth: 3 } },
    { id: "docs.graph", args: { hash: hashes.app, relation: "calls", depth: 2 } },
    {
      id: "docs.graph",
      args: { node_key: `symbol:${SEED_ROOT}/src/parser.ts#parse`, reverse: true, depth: 2 },
      check: (r) => assert.ok((r.total as number) >= 1),
    },
    { id: "docs.graph", args: { node_key: "ref:parse", depth: 2 } },
    { id: "docs.graph", args: { name: "app.ts", depth: 2, limit: 1 } },
    { id: "docs.graph", args: { list_types: true }, check: (r) => assert.equal(r.total, 2) },
    { id: "docs.graph", args: { list_type: "function" }, check: (r) => assert.equal(r.total, 2) },
    { id: "docs.graph", args: { list_type: "file", limit: 1 } },
    { id: "docs.graph", args: { name: "app.ts", relation: "EATS" }, fails: "invalid_arguments" },
    { id: "docs.graph", args: { name: "nowhere.ts" }, fails: "not_found" },
    { id: "docs.graph", args: {}, fails: "invalid_arguments" },

    // docs.status: the comparable part (see statusParts).
    {
      id: "docs.status",
      args: {},
      check: (r) => assert.equal(r.total_objects, 8),
    },
    { id: "docs.status", args: { detailed: true, file_types: true } },
  ];
}

/**
 * The part of a `docs.status` answer both backends hold, and checks of the part they do not:
 * SQLite reports its pack files and nothing else; a server reports no pack files and the block
 * bytes its rows hold.
 */
function statusParts(backend: DocsBackend, result: Record<string, unknown>): unknown {
  const details = result.details as Record<string, unknown> | undefined;
  if (details === undefined) return result;
  const { database_block_bytes: rows, ...shared } = details;
  if (backend.name === "sqlite") {
    assert.equal(rows, undefined);
  } else {
    assert.equal(rows, details.stored_bytes);
    assert.ok((rows as number) > 0);
    assert.equal(details.pack_files, 0);
    assert.equal(details.pack_bytes, 0);
  }
  return { ...result, details: shared };
}

/** The session flow: each step runs on both backends before the next. */
function sessionCalls(seeded: Seeded): Call[] {
  const inScope = (...expected: string[]) => paths(...expected);
  return [
    { id: "doc_session.pin", args: { name: "app.ts" }, fails: "invalid_arguments" },
    { id: "doc_session.stop", args: {}, fails: "invalid_arguments" },
    { id: "doc_session.stop", args: { name: "nobody" }, fails: "not_found" },
    {
      id: "doc_session.start",
      args: { name: SEED_SESSION, label: "Code review", description: "the parser" },
      check: (r) => {
        assert.equal(r.resumed, false);
        assert.equal(r.documents, 1);
      },
    },
    { id: "docs.list", args: { use_session: true }, check: inScope("notes/todo.txt") },
    {
      id: "doc_session.pin",
      args: { name: "app.ts" },
      check: (r) => assert.deepEqual([r.matched, r.changed], [1, 1]),
    },
    {
      id: "doc_session.pin",
      args: { path: "**/notes/*.md" },
      check: (r) => assert.equal(r.changed, 1),
    },
    // Pinned again: matched, nothing changed.
    {
      id: "doc_session.pin",
      args: { hash: seeded.hashes.app },
      check: (r) => assert.deepEqual([r.matched, r.changed], [1, 0]),
    },
    {
      id: "docs.list",
      args: { use_session: true },
      check: inScope("notes/auth.md", "notes/todo.txt", "src/app.ts"),
    },
    { id: "docs.list", args: { session: SEED_SESSION, paths_only: true, pattern: "**/*.ts" } },
    { id: "docs.status", args: { detailed: true } },
    {
      id: "doc_session.unpin",
      args: { name: "app.ts" },
      check: (r) => assert.equal(r.changed, 1),
    },
    { id: "doc_session.unpin", args: { name: "nothing-like-it.md" } },
    {
      id: "docs.list",
      args: { use_session: true },
      check: inScope("notes/auth.md", "notes/todo.txt"),
    },
    { id: "doc_session.pin", args: {}, fails: "invalid_arguments" },
    { id: "doc_session.pin", args: { name: "app.ts", session: "nobody" }, fails: "not_found" },
    {
      id: "doc_session.stop",
      args: {},
      check: (r) => assert.deepEqual([r.current, r.pinned], [false, 1]),
    },
    { id: "docs.list", args: { use_session: true }, fails: "invalid_arguments" },
    { id: "docs.list", args: { session: SEED_SESSION, sort_by: "name" } },
    // Started again by name: resumed, its pins kept; then one named by the clock.
    {
      id: "doc_session.start",
      args: { name: SEED_SESSION },
      check: (r) => assert.deepEqual([r.resumed, r.label, r.pinned], [true, "Code review", 1]),
    },
    {
      id: "doc_session.start",
      args: {},
      check: (r) => assert.equal(r.session_id, "session-2026-12-01T12-00-00-000Z"),
    },
    { id: "doc_session.pin", args: { name: "parser.ts" } },
    { id: "doc_session.stop", args: { name: SEED_SESSION } },
    { id: "docs.status", args: { detailed: true } },
  ];
}

/** The time a damage was met, which each backend's clock of record (the real one) gives its own. */
const MET_AT = /damage met at \d{4}-\d\d-\d\dT[\d:.]+Z/g;

/** Once a chunk is damaged: the read that meets it fails, and the status then says so. */
function damageCalls(): Call[] {
  return [
    { id: "docs.status", args: {}, check: (r) => assert.equal(statusOf(r), "ok") },
    { id: "docs.get", args: { name: "parser.ts", include_content: true }, fails: "internal_error" },
    // The description needs no content: still answered.
    { id: "docs.get", args: { name: "parser.ts" } },
    {
      id: "docs.status",
      args: { detailed: true },
      check: (r) => {
        assert.equal(statusOf(r), "degraded");
        assert.match(JSON.stringify(r.damage), /src\/parser\.ts .* is corrupt/);
      },
    },
  ];
}

function statusOf(result: Record<string, unknown>): unknown {
  return (result.damage as { status: string }).status;
}

/** Runs `call` on both backends and compares the whole answers. */
async function compare(backends: DocsBackend[], call: Call): Promise<void> {
  const answers: unknown[] = [];
  for (const backend of backends) {
    const response = await backend.call(call.id, call.args);
    assert.equal(
      outcome(response),
      call.fails ?? "result",
      `${backend.name}: ${JSON.stringify(response).slice(0, 2000)}`,
    );
    if ("result" in response) {
      const result = response.result as Record<string, unknown>;
      call.check?.(result);
      answers.push(
        call.id === "docs.status"
          ? JSON.parse(JSON.stringify(statusParts(backend, result)).replace(MET_AT, "damage met"))
          : result,
      );
    } else {
      answers.push(response);
    }
  }
  assert.deepEqual(answers[1], answers[0]);
}

Deno.test({
  name: "the document reads and document sessions answer the same on SQLite and PostgreSQL",
  ignore: skipWithoutPostgres("the document read parity suite"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "vantage-docs-reads-" });
    const backends = await openDocsBackends(dir);
    try {
      // A served data home exists on either backend (serve keeps its token there): damage an
      // operation meets is recorded in it.
      for (const backend of backends) {
        await Deno.mkdir(backend.services.get(PATHS).home, { recursive: true });
      }
      const seeds: Seeded[] = [];
      for (const backend of backends) seeds.push(await seedDocs(backend.docs));
      assert.deepEqual(seeds[1], seeds[0]);
      assert.equal(Object.keys(seeds[0].ids).length, 8);

      for (const call of readCalls(seeds[0])) {
        await t.step(`${call.id} ${JSON.stringify(call.args)}`, () => compare(backends, call));
      }

      const generations = async () =>
        await Promise.all(backends.map((b) => b.docs.readCounter("index_generation")));
      const before = await generations();
      for (const [i, call] of sessionCalls(seeds[0]).entries()) {
        await t.step(
          `session flow #${i + 1}: ${call.id} ${JSON.stringify(call.args)}`,
          () => compare(backends, call),
        );
      }
      // Each start (three) and each pin or unpin that ran (six) moves the index generation once.
      const after = await generations();
      assert.deepEqual(after.map((n, i) => n - before[i]), [9, 9]);
      // Both sessions started at the fixed "now": compared by name.
      assert.deepEqual(
        (await Promise.all(backends.map((b) => b.docs.listSessions(10)))).map((rows) =>
          rows.map((row) => [row.session_id, row.is_current, row.stopped_at]).sort()
        ),
        backends.map(() => [
          [SEED_SESSION, 0, DOCS_NOW],
          ["session-2026-12-01T12-00-00-000Z", 1, null],
        ]),
      );

      // Last, as it degrades the store: a chunk whose bytes no longer match its hash.
      const parser = seeds[0].hashes.parser;
      const size = (await backends[0].docs.readChunk(parser))!.size;
      const other = compressChunk(new Uint8Array(size).fill(0x2a));
      for (const backend of backends) {
        await backend.docs.rewriteChunkBytes(parser, size, other, () => 1);
      }
      for (const [i, call] of damageCalls().entries()) {
        await t.step(
          `damage #${i + 1}: ${call.id} ${JSON.stringify(call.args)}`,
          () => compare(backends, call),
        );
      }
    } finally {
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
