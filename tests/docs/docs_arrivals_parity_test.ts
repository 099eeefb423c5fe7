/**
 * The ways documents arrive and leave besides `docs.add`, on both backends through the real
 * catalog: `docs.download` from a local HTTP server (a checksum verified, a mismatch refused
 * with nothing stored, a missing URL, the same URL again), `docs.export` of what was downloaded
 * (a text, a binary of many chunks, an existing file refused then replaced, a damaged chunk
 * refused with no file left behind), and `doc_session.watch` (a one-shot rescan, a changed file
 * rescanned, then a live watch re-adding a new and an edited file). Each answer must be the same
 * on SQLite and on PostgreSQL, but for what each backend draws itself (a generated snapshot id,
 * the file an export wrote, the folder a live watch watches).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sha256Hex } from "../../src/docs/content_hash.ts";
import { compressChunk } from "../../src/docs/compression.ts";
import { unwatchFolder } from "../../src/docs/doc_watch.ts";
import type { ExecuteResponse } from "../../src/ops/executor.ts";
import { PATHS } from "../../src/ops/service_keys.ts";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openDocsBackends } from "./docs_backends.ts";

const ignore = skipWithoutPostgres("the document arrivals parity suite");

/** A generated snapshot id: the time with three random digits, drawn by each backend. */
const GENERATED_SNAPSHOT = /^\d{4}-\d\d-\d\dT[\d:.]+Z$/;

/** `length` bytes that repeat nowhere in them, the same every run (xorshift32). */
function noise(length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let state = 0x1b873593;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

/** An answer with its generated snapshot id named as such (checked to be one). */
function generatedSnapshot(result: Record<string, unknown>): Record<string, unknown> {
  if (!("snapshot_id" in result)) return result;
  assert.match(String(result.snapshot_id), GENERATED_SNAPSHOT);
  return { ...result, snapshot_id: "generated" };
}

/** A whole response with its variable parts named (snapshot ids, this backend's folder). */
function comparable(response: ExecuteResponse, folder?: string): unknown {
  const named = "result" in response ? resultNamed(response.result, folder) : response;
  const text = JSON.stringify(named);
  return JSON.parse(folder === undefined ? text : text.replaceAll(folder, "<folder>"));
}

/** A result with its generated snapshot ids named, and only this backend's own watches. */
function resultNamed(answer: unknown, folder?: string): Record<string, unknown> {
  const result = answer as Record<string, unknown>;
  const named: Record<string, unknown> = {
    ...generatedSnapshot(result),
    ...(result.rescan !== undefined
      ? { rescan: generatedSnapshot(result.rescan as Record<string, unknown>) }
      : {}),
  };
  // The watches listed are the process's: both backends' live watches run in this one.
  if (folder !== undefined && Array.isArray(result.watches)) {
    named.watches = (result.watches as Array<{ root: string }>).filter((w) => w.root === folder);
  }
  return named;
}

/** Runs one call on both backends; asserts the same outcome and answer, and answers them. */
async function both(
  backends: DocsBackend[],
  id: string,
  args: (backend: DocsBackend) => Record<string, unknown>,
  options: { fails?: string; folder?: (backend: DocsBackend) => string } = {},
): Promise<ExecuteResponse[]> {
  const responses: ExecuteResponse[] = [];
  for (const backend of backends) {
    const response = await backend.call(id, args(backend));
    const kind = "result" in response
      ? "result"
      : "operation_error" in response
      ? response.operation_error.kind
      : response.error.kind;
    assert.equal(
      kind,
      options.fails ?? "result",
      `${backend.name} ${id}: ${JSON.stringify(response)}`,
    );
    responses.push(response);
  }
  const [first, second] = responses.map((response, index) =>
    comparable(response, options.folder?.(backends[index]))
  );
  assert.deepEqual(second, first, `${id} answered differently`);
  return responses;
}

const resultOf = (response: ExecuteResponse) =>
  (response as { result: Record<string, unknown> }).result;

/** The test's HTTP server: a CSV, a binary of many chunks, nothing else. */
function artifactServer(csv: string, blob: Uint8Array<ArrayBuffer>) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    requests++;
    const path = new URL(request.url).pathname;
    if (path === "/data.csv") {
      return new Response(csv, { headers: { "content-type": "text/csv" } });
    }
    if (path === "/files/blob.bin") {
      return new Response(blob, { headers: { "content-type": "application/octet-stream" } });
    }
    return new Response("no such file", { status: 404 });
  });
  return { base: `http://127.0.0.1:${server.addr.port}`, server, requests: () => requests };
}

Deno.test({
  name: "docs.download and docs.export answer and store the same on SQLite and PostgreSQL",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-arrivals-" });
    const backends = await openDocsBackends(dir);
    const csv = "id,name\n1,walrus\n2,narwhal\n";
    const blob = noise(3 * 1024 * 1024 + 17);
    const http = artifactServer(csv, blob);
    const out = (backend: DocsBackend) => join(dir, `out-${backend.name}`);
    try {
      for (const backend of backends) {
        // A served data home exists on either backend: damage an export meets is recorded there.
        await Deno.mkdir(backend.services.get(PATHS).home, { recursive: true });
        await Deno.mkdir(out(backend));
        await backend.docs.startSession("fetching", null, null, DOCS_NOW);
      }
      const [downloaded] = await both(backends, "docs.download", () => ({
        url: `${http.base}/data.csv`,
        checksum: `sha256:${sha256Hex(csv)}`,
        tags: ["dataset"],
        metadata: { source: "zoo" },
        collection: "fetched",
        snapshot_label: "First fetch",
      }));
      const csvResult = resultOf(downloaded);
      assert.equal(csvResult.verified, true);
      assert.equal(csvResult.hash, sha256Hex(csv));
      assert.equal(csvResult.documents_added, 1);
      assert.equal(csvResult.session_id, "fetching");
      assert.equal(csvResult.content_type, "text/csv");

      // A binary of many chunks, without a checksum, under a name of the caller's.
      const [blobDownload] = await both(backends, "docs.download", () => ({
        url: `${http.base}/files/blob.bin`,
        name: "archive/blob.bin",
      }));
      const blobResult = resultOf(blobDownload);
      assert.equal(blobResult.verified, false);
      assert.equal(blobResult.bytes, blob.length);
      assert.ok((blobResult.new_chunks as number) > 10, `${blobResult.new_chunks} chunks`);

      // The same URL again stores nothing new.
      const [again] = await both(backends, "docs.download", () => ({
        url: `${http.base}/data.csv`,
      }));
      assert.equal(resultOf(again).documents_unchanged, 1);
      assert.equal(resultOf(again).new_chunks, 0);

      // A checksum mismatch stores nothing; neither does a missing URL.
      const totals = await Promise.all(backends.map((b) => b.docs.documentTotals()));
      const [mismatch] = await both(backends, "docs.download", () => ({
        url: `${http.base}/data.csv`,
        name: "never-stored.csv",
        checksum: `sha256:${"0".repeat(64)}`,
      }), { fails: "conflict" });
      assert.match(JSON.stringify(mismatch), /checksum mismatch/);
      const [missing] = await both(backends, "docs.download", () => ({
        url: `${http.base}/missing.csv`,
      }), { fails: "unavailable" });
      assert.match(JSON.stringify(missing), /HTTP 404/);
      assert.deepEqual(await Promise.all(backends.map((b) => b.docs.documentTotals())), totals);
      for (const backend of backends) {
        assert.deepEqual(await backend.docs.documentsByName("never-stored.csv"), []);
      }

      // What was downloaded is described the same, with where it came from.
      const [described] = await both(backends, "docs.get", () => ({
        name: "data.csv",
        include_content: true,
      }));
      const info = resultOf(described);
      assert.equal(info.content, csv);
      assert.equal(info.source_url, `${http.base}/data.csv`);
      assert.deepEqual(info.tags, ["dataset"]);
      assert.deepEqual(info.metadata, { source: "zoo" });
      assert.deepEqual(info.collections, ["fetched"]);

      // Exports: each backend into its own folder, the same bytes as were served.
      const exported = (backend: DocsBackend, file: string) => join(out(backend), file);
      await both(backends, "docs.export", (b) => ({
        name: "data.csv",
        outputPath: exported(b, "data.csv"),
      }), { folder: out });
      await both(backends, "docs.export", (b) => ({
        hash: (blobResult.hash as string).slice(0, 12),
        outputPath: exported(b, "blob.bin"),
      }), { folder: out });
      for (const backend of backends) {
        assert.equal(await Deno.readTextFile(exported(backend, "data.csv")), csv);
        assert.deepEqual(await Deno.readFile(exported(backend, "blob.bin")), blob);
      }
      // An existing file is replaced only when asked.
      await both(backends, "docs.export", (b) => ({
        name: "data.csv",
        outputPath: exported(b, "blob.bin"),
      }), { fails: "conflict", folder: out });
      await both(backends, "docs.export", (b) => ({
        name: "data.csv",
        outputPath: exported(b, "blob.bin"),
        overwrite: true,
      }), { folder: out });
      for (const backend of backends) {
        assert.equal(await Deno.readTextFile(exported(backend, "blob.bin")), csv);
      }
      await both(backends, "docs.export", (b) => ({
        name: "nothing-by-this-name.txt",
        outputPath: exported(b, "none.txt"),
      }), { fails: "not_found", folder: out });
      // Outside the roots, or into the data home: refused on both.
      await both(backends, "docs.export", (b) => ({
        name: "data.csv",
        outputPath: join(b.services.get(PATHS).home, "data.csv"),
      }), { fails: "forbidden", folder: (b) => b.services.get(PATHS).home });

      // A damaged chunk: the export fails and leaves no file (nor a temporary one) behind.
      const hash = csvResult.hash as string;
      const size = (await backends[0].docs.readChunk(hash))!.size;
      const other = compressChunk(new Uint8Array(size).fill(0x2a));
      for (const backend of backends) {
        await backend.docs.rewriteChunkBytes(hash, size, other, () => 1);
      }
      await both(backends, "docs.export", (b) => ({
        name: "data.csv",
        outputPath: exported(b, "damaged.csv"),
      }), { fails: "internal_error", folder: out });
      for (const backend of backends) {
        assert.deepEqual(
          [...Deno.readDirSync(out(backend))].map((entry) => entry.name).sort(),
          ["blob.bin", "data.csv"],
        );
      }
      assert.ok(http.requests() >= 10);
    } finally {
      await http.server.shutdown();
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Waits until `found` holds, polling; false when it never did within ten seconds. */
async function eventually(found: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await found()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

Deno.test({
  name: "doc_session.watch re-adds a folder's changes on PostgreSQL as on SQLite",
  ignore,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vantage-watch-parity-" });
    const backends = await openDocsBackends(dir);
    // A live watch is the process's, one per folder: each backend watches a copy of its own.
    const folderOf = (backend: DocsBackend) => join(dir, `watched-${backend.name}`);
    try {
      const shared = join(dir, "shared");
      await Deno.mkdir(join(shared, "sub"), { recursive: true });
      await Deno.writeTextFile(join(shared, "a.md"), "# A\n\nThe first note.\n");
      await Deno.writeTextFile(join(shared, "sub", "b.md"), "# B\n\nThe second note.\n");
      await Deno.writeTextFile(join(shared, "skip.log"), "left out\n");
      const args = { path: shared, once: true, exclude: ["*.log"], tags: ["watched"] };
      const [first] = await both(backends, "doc_session.watch", () => args);
      const rescan = resultOf(first).rescan as Record<string, number>;
      assert.equal(rescan.documents_added, 2);
      assert.equal(resultOf(first).watching, false);

      await Deno.writeTextFile(join(shared, "a.md"), "# A\n\nThe first note, with a pangolin.\n");
      const [second] = await both(backends, "doc_session.watch", () => args);
      const changed = resultOf(second).rescan as Record<string, number>;
      assert.equal(changed.documents_updated, 1);
      assert.equal(changed.documents_unchanged, 1);
      for (const backend of backends) {
        const [row] = await backend.docs.documentsByName("a.md");
        assert.deepEqual(await backend.docs.tagsOf(row.id), ["watched"]);
        assert.equal(row.hash, sha256Hex("# A\n\nThe first note, with a pangolin.\n"));
      }

      // A live watch: a new file and an edit are re-added while it runs.
      for (const backend of backends) {
        await Deno.mkdir(folderOf(backend));
        await Deno.writeTextFile(join(folderOf(backend), "c.md"), "# C\n\nBefore.\n");
      }
      const [started] = await both(backends, "doc_session.watch", (b) => ({
        path: folderOf(b),
        collection: "live",
      }), { folder: folderOf });
      assert.equal(resultOf(started).watching, true);
      for (const backend of backends) {
        await Deno.writeTextFile(join(folderOf(backend), "c.md"), "# C\n\nAfter, an okapi.\n");
        await Deno.writeTextFile(join(folderOf(backend), "d.md"), "# D\n\nNew, a quokka.\n");
      }
      const live = async (backend: DocsBackend) => {
        const rows = await backend.docs.documentsForPaths(
          ["c.md", "d.md"].map((name) => join(folderOf(backend), name)),
        );
        return rows.filter((row) => row.is_latest === 1).map((row) => [row.name, row.hash]).sort();
      };
      const wanted = [
        ["c.md", sha256Hex("# C\n\nAfter, an okapi.\n")],
        ["d.md", sha256Hex("# D\n\nNew, a quokka.\n")],
      ];
      for (const backend of backends) {
        const seen = await eventually(async () =>
          JSON.stringify(await live(backend)) === JSON.stringify(wanted)
        );
        assert.ok(seen, `${backend.name}: the watch re-added c.md and d.md`);
        const [d] = await backend.docs.documentsByName("d.md");
        assert.deepEqual(await backend.docs.collectionsOf(d.id), ["live"]);
      }
      // Stopped: how many events each saw is the file system's to say, so each is read alone.
      for (const backend of backends) {
        const stopped = await backend.run("doc_session.watch", {
          path: folderOf(backend),
          enable: false,
        });
        const watch = stopped.watch as Record<string, unknown>;
        assert.equal(watch.root, folderOf(backend));
        assert.ok((watch.rescans as number) >= 1);
        assert.equal(watch.last_error, null);
        const watches = stopped.watches as Array<{ root: string }>;
        assert.ok(watches.every((running) => running.root !== folderOf(backend)));
      }
    } finally {
      for (const backend of backends) unwatchFolder(folderOf(backend));
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
