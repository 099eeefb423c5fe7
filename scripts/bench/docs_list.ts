/**
 * `docs.list` of 1,000 documents on SQLite and on PostgreSQL, each document with two tags, a
 * metadata entry and a collection (what a listing reads beside the rows), through the real
 * operation catalog. Prints the median and best of the timed runs for each backend, and how
 * long the one add that stored the documents took.
 *
 * Run: `deno run -A scripts/bench/docs_list.ts [documents] [runs]`.
 */
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { ingestInline } from "../../src/docs/doc_ingest.ts";
import { ingestInlineOnServer } from "../../src/docs/server_ingest/server_ingest.ts";
import { DATABASE, DOCUMENT_SEARCH, STORE } from "../../src/ops/service_keys.ts";
import { POSTGRES_MISSING } from "../../tests/helpers/postgres_cluster.ts";
import { DOCS_NOW, type DocsBackend, openDocsBackends } from "../../tests/docs/docs_backends.ts";

const count = Number(Deno.args[0] ?? 1000);
const runs = Number(Deno.args[1] ?? 15);

/** Adds `count` small notes to a backend, in the add's own batches. */
async function seed(backend: DocsBackend): Promise<void> {
  const options = {
    session: null,
    embedder: new HashedEmbedder(),
    now: DOCS_NOW,
    tags: ["bench", "notes"],
    metadata: { team: "platform" },
    collection: "handbook",
  };
  const documents = Array.from({ length: count }, (_, i) => ({
    name: `note-${i}.md`,
    bytes: new TextEncoder().encode(`# Note ${i}\n\nText of note ${i} about lanterns.\n`),
  }));
  if (backend.name === "sqlite") {
    await ingestInline(backend.services.get(DATABASE), documents, options);
  } else {
    const server = {
      store: backend.services.get(STORE),
      search: backend.services.get(DOCUMENT_SEARCH),
    };
    await ingestInlineOnServer(server, documents, options);
  }
}

/** Median and best of `runs` timed listings, ms, after two untimed ones. */
async function timeList(backend: DocsBackend): Promise<{ median: number; best: number }> {
  const list = () => backend.run("docs.list", { limit: count });
  for (let i = 0; i < 2; i++) await list();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const answer = await list();
    times.push(performance.now() - started);
    if ((answer.documents as unknown[]).length !== count) throw new Error("short listing");
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], best: times[0] };
}

if (POSTGRES_MISSING !== undefined) throw new Error(POSTGRES_MISSING);
const dir = await Deno.makeTempDir({ prefix: "vantage-bench-list-" });
const backends = await openDocsBackends(dir);
try {
  for (const backend of backends) {
    const started = performance.now();
    await seed(backend);
    const added = performance.now() - started;
    const { median, best } = await timeList(backend);
    console.log(
      `${backend.name}: docs.list of ${count} documents, median ${median.toFixed(1)} ms, best ${
        best.toFixed(1)
      } ms (${runs} runs); their add ${added.toFixed(0)} ms`,
    );
  }
} finally {
  for (const backend of backends) await backend.close();
  await Deno.remove(dir, { recursive: true });
}
Deno.exit(0);
