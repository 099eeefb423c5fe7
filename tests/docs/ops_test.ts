import assert from "node:assert/strict";
import { sha256Hex } from "../../src/docs/content_hash.ts";
import { ingestInline } from "../../src/docs/doc_ingest.ts";
import { rankDocuments } from "../../src/docs/doc_search.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { HttpEmbedder } from "../../src/docs/http_embedder.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { VANTAGE_NAMING } from "../../src/mcp/operation_names.ts";
import { openHarness, writeTree } from "./harness.ts";

Deno.test("the docs and doc_session cassettes carry their scopes, composite names and full tool names", () => {
  const catalog = builtinCatalog({ naming: VANTAGE_NAMING });
  const docs = catalog.cassettes.find((c) => c.name === "docs")!;
  const reads = [
    "search",
    "grep",
    "list",
    "get",
    "graph",
    "status",
    "list_collections",
    "list_snapshots",
    "suggest_context",
    "semantic_dedupe",
    "verify",
  ];
  const writes = ["add", "update", "delete", "restore", "export", "download", "repair"];
  for (const name of reads) {
    const op = catalog.get(`docs.${name}`)!;
    assert.deepEqual(op.scopes, ["docs:read"], name);
    assert.deepEqual(catalog.namesOf(op.id), {
      tool: `docs_${name}`,
      composite: { tool: "query", name },
    });
    assert.equal(op.annotations.readOnlyHint, true);
  }
  for (const name of writes) {
    const op = catalog.get(`docs.${name}`)!;
    assert.deepEqual(op.scopes, name === "download" ? ["docs:write", "net"] : ["docs:write"]);
    assert.deepEqual(catalog.namesOf(op.id).composite, { tool: "execute", name });
  }
  assert.equal(docs.operations.length, reads.length + writes.length);
  assert.equal(catalog.cassettes.find((c) => c.name === "session"), undefined);
  for (const name of ["start", "stop", "pin", "unpin", "watch"]) {
    const op = catalog.get(`doc_session.${name}`)!;
    assert.equal(op.id, `doc_session.${name}`);
    // The id from before the rename still finds it; listings show only the new one.
    assert.equal(catalog.get(`session.${name}`), op);
    assert.equal(catalog.cassetteOf(`session.${name}`)?.name, "doc_session");
    assert.ok(!catalog.operations().some((o) => o.id === `session.${name}`));
    // watch stores documents, so it also needs docs:write.
    assert.deepEqual(
      op.scopes,
      name === "watch" ? ["session:write", "docs:write"] : ["session:write"],
    );
    assert.deepEqual(catalog.namesOf(op.id), {
      tool: `doc_session_${name}`,
      composite: { tool: "session", name },
    });
  }
});

Deno.test("download stores a URL's bytes, verifies checksums, and needs the net scope", async () => {
  const docs = await openHarness();
  const body = "id,name\n1,alpha\n2,beta\n";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/data.csv") {
      return new Response(body, { headers: { "content-type": "text/csv" } });
    }
    return new Response("nope", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  try {
    const ok = await docs.run("docs.download", {
      url: `${base}/data.csv`,
      checksum: `sha256:${sha256Hex(body)}`,
      tags: ["dataset"],
    });
    assert.equal(ok.verified, true);
    assert.equal(ok.hash, sha256Hex(body));
    const got = await docs.run("docs.get", { hash: ok.hash as string, include_content: true });
    assert.equal(got.content, body);
    assert.equal(got.name, "data.csv");
    assert.equal(got.source_url, `${base}/data.csv`);
    assert.deepEqual(got.tags, ["dataset"]);

    const mismatch = await docs.call("docs.download", {
      url: `${base}/data.csv`,
      checksum: `sha256:${"0".repeat(64)}`,
    });
    assert.ok("operation_error" in mismatch);
    assert.match(mismatch.operation_error.message, /checksum mismatch/);
    const missing = await docs.call("docs.download", { url: `${base}/missing` });
    assert.ok("operation_error" in missing);
    assert.match(missing.operation_error.message, /HTTP 404/);

    const refused = await docs.call("docs.download", { url: `${base}/data.csv` }, [
      "docs:read",
      "docs:write",
    ]);
    assert.ok("error" in refused);
    assert.equal(refused.error.kind, "forbidden");
    assert.match(refused.error.message, /needs scope net/);
  } finally {
    await server.shutdown();
    await docs.close();
  }
});

Deno.test("watch once re-adds only changed files; a watch re-adds edits until stopped", async () => {
  const docs = await openHarness();
  const root = await Deno.makeTempDir({ prefix: "vantage-watch-" });
  try {
    await writeTree(root, { "a.md": "# A\n\nfirst\n", "b.md": "# B\n\nsecond\n" });
    const first = await docs.run("doc_session.watch", { path: root, once: true });
    assert.equal((first.rescan as Record<string, number>).documents_added, 2);
    await Deno.writeTextFile(`${root}/a.md`, "# A\n\nfirst, edited with zebra\n");
    const second = await docs.run("doc_session.watch", { path: root, once: true });
    const rescan = second.rescan as Record<string, number>;
    assert.equal(rescan.documents_updated, 1);
    assert.equal(rescan.documents_unchanged, 1);

    const started = await docs.run("doc_session.watch", { path: root });
    assert.equal(started.watching, true);
    await Deno.writeTextFile(`${root}/c.md`, "# C\n\nA quokka appears.\n");
    let found = false;
    for (let i = 0; i < 50 && !found; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const hits = await docs.run("docs.search", { query: "quokka", type: "keyword" });
      found = (hits.results as unknown[]).length === 1;
    }
    assert.ok(found, "the watcher added the new file");
    const stopped = await docs.run("doc_session.watch", { path: root, enable: false });
    assert.equal(stopped.watching, false);
    assert.deepEqual(stopped.watches, []);
  } finally {
    await docs.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("graph walks calls across files and in reverse; get includes related nodes", async () => {
  const docs = await openHarness();
  const root = await Deno.makeTempDir({ prefix: "vantage-graph-" });
  try {
    await writeTree(root, {
      "lib.ts": "export function helper() {\n  return 1;\n}\n",
      "app.ts":
        'import { helper } from "./lib.ts";\nexport function run() {\n  return helper();\n}\n',
      "README.md": "# Readme\n\nSee [the app](./app.ts).\n",
    });
    await docs.run("docs.add", { path: root });
    const calls = await docs.run("docs.graph", { name: "app.ts", relation: "calls", depth: 2 });
    const reached = calls.nodes as Array<{ node_key: string; path?: string }>;
    assert.ok(
      reached.some((n) =>
        n.node_key === `symbol:${root}/lib.ts#helper` && n.path === `${root}/lib.ts`
      ),
      JSON.stringify(calls),
    );
    const callers = await docs.run("docs.graph", {
      node_key: `symbol:${root}/lib.ts#helper`,
      reverse: true,
      relation: "CALLS",
    });
    assert.ok(
      (callers.nodes as Array<{ node_key: string }>).some((n) =>
        n.node_key === `symbol:${root}/app.ts#run`
      ),
      JSON.stringify(callers),
    );
    const links = await docs.run("docs.graph", { name: "README.md", relation: "LINKS_TO" });
    assert.equal((links.nodes as Array<{ path?: string }>)[0].path, `${root}/app.ts`);
    const types = await docs.run("docs.graph", { list_types: true });
    assert.ok((types.types as Array<{ type: string }>).some((t) => t.type === "function"));
    const functions = await docs.run("docs.graph", { list_type: "function" });
    assert.equal(functions.total, 2);
    const bad = await docs.call("docs.graph", { name: "app.ts", relation: "EATS" });
    assert.ok("operation_error" in bad);
    assert.match(bad.operation_error.message, /relation 'EATS' is unknown/);
    const got = await docs.run("docs.get", { name: "app.ts", graph: true, depth: 1 });
    assert.ok(
      (got.related as Array<{ node_key: string }>).some((n) =>
        n.node_key === `symbol:${root}/app.ts#run`
      ),
    );
  } finally {
    await docs.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("semantic_dedupe groups near-duplicates and names a canonical member", async () => {
  const docs = await openHarness();
  try {
    const text = "The retry policy backs off exponentially with jitter and caps at thirty seconds. "
      .repeat(6);
    await docs.run("docs.add", { content: text, name: "notes/retry.md" });
    await docs.run("docs.add", { content: text + "Reviewed.", name: "archive/retry.md" });
    await docs.run("docs.add", {
      content: "Completely different: a recipe for bread with flour and yeast.",
      name: "bread.md",
    });
    const result = await docs.run("docs.semantic_dedupe", {});
    assert.equal(result.total, 1);
    const group = (result.groups as Array<Record<string, unknown>>)[0];
    assert.equal(group.member_count, 2);
    assert.equal(group.algorithm_version, "semantic-dedupe-v1");
    const members = group.members as Array<{ role: string; path: string; pair_score?: number }>;
    assert.equal(members[0].role, "canonical");
    assert.equal(members[0].path, "archive/retry.md", "keep-newest");
    assert.ok((members[1].pair_score ?? 0) > 0.9, JSON.stringify(group));
    const byKey = await docs.run("docs.semantic_dedupe", { group_key: group.group_key });
    assert.equal(byKey.total, 1);
  } finally {
    await docs.close();
  }
});

Deno.test("an HTTP embedder's vectors are added after the write and used by semantic search", async () => {
  const docs = await openHarness();
  const local = new HashedEmbedder({ dimensions: 64 });
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    requests++;
    const { input } = await request.json() as { input: string[] };
    const data = input.map((text, index) => ({ index, embedding: [...local.embedOne(text)] }));
    return Response.json({ data });
  });
  try {
    const embedder = new HttpEmbedder({
      url: `http://127.0.0.1:${server.addr.port}`,
      model: "fake",
    });
    await ingestInline(docs.db, [
      { name: "a.md", bytes: new TextEncoder().encode("# Kubernetes\n\npods and deployments") },
      { name: "b.md", bytes: new TextEncoder().encode("# Baking\n\nsourdough starter") },
    ], { session: null, embedder, now: Date.now() });
    assert.ok(requests >= 1);
    const { hits } = await rankDocuments(docs.db, {
      query: "kubernetes pods",
      mode: "semantic",
      limit: 2,
      fuzzy: false,
      similarity: 0.7,
      filter: {},
      embedder,
    });
    assert.equal(hits[0].id, 1);
  } finally {
    await server.shutdown();
    await docs.close();
  }
});

Deno.test("update accepts key=value strings or an object; list filters and sorts", async () => {
  const docs = await openHarness();
  try {
    await docs.run("docs.add", { content: "aaa", name: "one.md", tags: "x,y", collection: "c1" });
    await docs.run("docs.add", { content: "bbbbbb", name: "two.py", tags: ["y"] });
    await docs.run("docs.add", {
      content: new TextDecoder("latin1").decode(new Uint8Array([0, 1, 2, 3])),
      name: "three.bin",
    });
    await docs.run("docs.update", { name: "one.md", metadata: { owner: "ana", level: 3 } });
    await docs.run("docs.update", {
      name: "one.md",
      metadata: ["status=done"],
      remove_tags: ["x"],
    });
    const one = await docs.run("docs.get", { name: "one.md" });
    assert.deepEqual(one.metadata, { level: "3", owner: "ana", status: "done" });
    assert.deepEqual(one.tags, ["y"]);
    const bad = await docs.call("docs.update", { name: "one.md", metadata: ["nokey"] });
    assert.ok("operation_error" in bad);
    assert.match(bad.operation_error.message, /key=value/);
    const missing = await docs.call("docs.update", { name: "nope.md", tags: ["z"] });
    assert.ok("operation_error" in missing);
    const bySize = await docs.run("docs.list", {
      sort_by: "size",
      sort_order: "asc",
      paths_only: true,
    });
    assert.deepEqual(bySize.paths, ["one.md", "three.bin", "two.py"]);
    const tagged = await docs.run("docs.list", {
      tags: ["y"],
      paths_only: true,
      sort_by: "name",
      sort_order: "asc",
    });
    assert.deepEqual(tagged.paths, ["one.md", "two.py"]);
    const binary = await docs.run("docs.list", { type: "binary", paths_only: true });
    assert.deepEqual(binary.paths, ["three.bin"]);
    const ext = await docs.run("docs.list", { extension: "py", paths_only: true });
    assert.deepEqual(ext.paths, ["two.py"]);
    const recent = await docs.run("docs.list", { recent: 1, paths_only: true });
    assert.equal((recent.paths as string[]).length, 1);
    const glob = await docs.run("docs.list", { pattern: "*.md", paths_only: true });
    assert.deepEqual(glob.paths, ["one.md"]);
    const paged = await docs.run("docs.list", {
      limit: 1,
      offset: 1,
      sort_by: "name",
      sort_order: "asc",
      paths_only: true,
    });
    assert.deepEqual(paged.paths, ["three.bin"]);
    assert.equal(paged.total, 3);
    const collection = await docs.run("docs.list", { collection: "c1", paths_only: true });
    assert.deepEqual(collection.paths, ["one.md"]);
  } finally {
    await docs.close();
  }
});

Deno.test("hybrid search keeps answering from keywords when the embedding service is down", async () => {
  const docs = await openHarness();
  try {
    const local = new HashedEmbedder();
    await ingestInline(docs.db, [
      { name: "a.md", bytes: new TextEncoder().encode("# Gateway\n\nrate limits for the gateway") },
    ], { session: null, embedder: local, now: Date.now() });
    const down = new HttpEmbedder({ url: "http://127.0.0.1:9", model: "absent", timeoutMs: 2000 });
    const ranking = await rankDocuments(docs.db, {
      query: "gateway rate limits",
      mode: "hybrid",
      limit: 5,
      fuzzy: true,
      similarity: 0.7,
      filter: {},
      embedder: down,
    });
    assert.equal(ranking.hits[0].id, 1);
    assert.match(ranking.warnings![0], /semantic search was skipped/);
  } finally {
    await docs.close();
  }
});

Deno.test("grep anchors match at line starts", async () => {
  const docs = await openHarness();
  try {
    await docs.run("docs.add", {
      content: "intro\nimport x from 'y';\n  import z;\n",
      name: "m.ts",
    });
    const result = await docs.run("docs.grep", { pattern: "^import", line_numbers: true });
    const file = (result.results as Array<{ matches: Array<{ line: number }> }>)[0];
    assert.deepEqual(file.matches.map((m) => m.line), [2]);
  } finally {
    await docs.close();
  }
});
