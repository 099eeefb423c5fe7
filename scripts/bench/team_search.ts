/**
 * `search_sessions` at 1,000,000 messages on SQLite and on PostgreSQL, in
 * the same run, over the same generated messages (a Zipf vocabulary of
 * 50,000 words, 12–36 words a message, 2,000 sessions in 20 projects, as
 * `deno task bench agent`'s search figures):
 *
 * - filling each store: SQLite through its message inserts and the search
 *   index worker caught up; PostgreSQL through the store's `insertMessages`
 *   in batches of 20,000, which take the `COPY` path, beside the first
 *   200,000 messages again through the row path (`INSERT … SELECT FROM
 *   unnest`, 2,000 a statement) into a database of their own;
 * - storage per million messages: SQLite's store and search index files,
 *   PostgreSQL's `pg_total_relation_size` of `messages` (heap, TOAST, its
 *   indexes with the GIN word index) and `sessions`;
 * - the same queries through the operation on each store: the first one
 *   of a newly opened store (a new process would pay it; the page cache is
 *   warm), then p50/p95 over repeated runs, beside the word index's own
 *   query as the operation asks it (the rest is the operation's work: the
 *   project's sessions, each hit's session, snippets).
 */
import { join } from "node:path";
import { resolvePaths } from "../../src/core/config.ts";
import type { TranscriptMessage } from "../../src/model/agent_records.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { providePostgresStore } from "../../src/ops/postgres_services.ts";
import { vantageServices } from "../../src/ops/runtime.ts";
import { MESSAGE_SEARCH } from "../../src/ops/service_keys.ts";
import { insertMessages, maxMessageId } from "../../src/store/agent/messages.ts";
import { MessageIndexer } from "../../src/store/agent/message_index.ts";
import { openDatabase, transaction } from "../../src/store/database.ts";
import { insertMessages as pgInsertMessages } from "../../src/store/postgres/agent/messages.ts";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/postgres_store.ts";
import { parseStoreLocation } from "../../src/store/postgres/store_url.ts";
import type { PostgresCluster } from "../../tests/helpers/postgres_cluster.ts";
import { prng, ZipfVocabulary } from "../lib/claude_corpus.ts";
import { percentile, printTable } from "./stats.ts";

const BATCH = 20_000;
const SESSIONS = 2000;
/** Messages the row path stores, beside the same first messages by COPY. */
const ROW_PATH_MESSAGES = 200_000;
/** Timed runs of each query after its first. */
const RUNS = 20;

/**
 * The same messages on every call: fixed seeds, `count` of them in batches, each session's
 * messages together in time (as a transcript's are, and as a push's batches carry them).
 */
class MessageSource {
  /** The vocabulary's words, rarest last (its draws are each call's own). */
  readonly words: readonly string[];
  readonly start = Date.now() - 6 * 86_400_000;
  constructor(readonly count: number) {
    this.words = new ZipfVocabulary(50_000, prng(42)).words;
  }

  *batches(limit = this.count): Generator<TranscriptMessage[]> {
    // A vocabulary draws from its own generator: a new one per call gives the same texts.
    const vocabulary = new ZipfVocabulary(50_000, prng(42));
    const random = prng(4242);
    const end = Math.min(limit, this.count);
    for (let offset = 0; offset < end; offset += BATCH) {
      const rows: TranscriptMessage[] = [];
      for (let i = offset; i < Math.min(end, offset + BATCH); i++) {
        const session = Math.floor((i * SESSIONS) / this.count);
        rows.push({
          agent: session % 3 === 0 ? "codex" : "claude_code",
          session_id: `session-${session}`,
          cwd: `/work/project-${session % 20}`,
          ts: this.start + Math.floor((i / this.count) * 6 * 86_400_000),
          role: i % 2 === 0 ? "user" : "assistant",
          message_type: i % 2 === 0 ? "user" : "assistant",
          text: vocabulary.sentence(12 + Math.floor(random() * 24)),
          message_key: `m-${i}`,
        });
      }
      yield rows;
    }
  }
}

const textBytes = (rows: TranscriptMessage[]) =>
  rows.reduce((sum, m) => sum + new TextEncoder().encode(m.text).length, 0);

/** Fills a SQLite data home; answers its seconds, with the search index caught up, and the text's bytes. */
async function fillSqlite(
  dataHome: string,
  source: MessageSource,
): Promise<{ seconds: number; bytes: number }> {
  const paths = resolvePaths(dataHome);
  const db = openDatabase(paths.database);
  const started = performance.now();
  const indexer = await MessageIndexer.start(paths.database, () => maxMessageId(db));
  let bytes = 0;
  for (const rows of source.batches()) {
    bytes += textBytes(rows);
    transaction(db, () => insertMessages(db, rows));
    // The index worker indexes while the next batch is stored, as serve's does.
    indexer.kick();
  }
  await indexer.caughtUp();
  indexer.close();
  const seconds = (performance.now() - started) / 1000;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return { seconds, bytes };
}

/** Bytes of the data home's store and search index files (their WAL files included). */
function sqliteBytes(dataHome: string): { store: number; index: number } {
  const size = (name: string) => {
    try {
      return Deno.statSync(join(dataHome, name)).size;
    } catch {
      return 0;
    }
  };
  const all = (base: string) => size(base) + size(`${base}-wal`) + size(`${base}-shm`);
  return { store: all("vantage.db"), index: all("search.db") };
}

/** Fills a PostgreSQL store by `path`; answers seconds in all and after the first 200,000. */
async function fillPostgres(
  opened: PostgresStore,
  source: MessageSource,
  path: "copy" | "rows",
  limit = source.count,
): Promise<{ seconds: number; firstSeconds: number; bytes: number }> {
  const started = performance.now();
  let done = 0;
  let firstSeconds = 0;
  let bytes = 0;
  for (const rows of source.batches(limit)) {
    bytes += textBytes(rows);
    await pgInsertMessages(opened.pool, rows, path);
    done += rows.length;
    if (done === Math.min(ROW_PATH_MESSAGES, source.count)) {
      firstSeconds = (performance.now() - started) / 1000;
    }
  }
  return { seconds: (performance.now() - started) / 1000, firstSeconds, bytes };
}

async function openPg(url: string): Promise<PostgresStore> {
  const location = parseStoreLocation(url);
  if (location.kind !== "postgres") throw new Error(`not a PostgreSQL URL: ${url}`);
  return await openPostgresStore(location, { max: 4, statementTimeoutMs: 600_000 });
}

interface Query {
  label: string;
  query: string;
  project: string;
}

/** What one query took: its first run, RUNS more, the index query alone, sessions found. */
interface QueryTimes {
  first: number;
  runs: number[];
  index: number[];
  sessions: number;
}

/** The sessions of the project a query names (all: null), as the generator files them. */
function scopeOf(q: Query): string[] | null {
  if (q.project === "*") return null;
  const project = Number(q.project.slice("/work/project-".length));
  return Array.from({ length: SESSIONS / 20 }, (_, i) => `session-${i * 20 + project}`);
}

/**
 * The first run of each query on a newly opened store, then RUNS more: ms each; and, as the
 * reference, the word index's own query as the operation asks it (newest 200 matches).
 */
async function timeQueries(
  services: ReturnType<typeof vantageServices>,
  queries: Query[],
): Promise<QueryTimes[]> {
  const catalog = builtinCatalog();
  const caller = { scopes: ["agent:read"], cwd: "/work/project-3" };
  const out: QueryTimes[] = [];
  for (const q of queries) {
    const times: number[] = [];
    let sessions = 0;
    for (let i = 0; i <= RUNS; i++) {
      const t0 = performance.now();
      const response = await executeOperation(
        catalog,
        "agent.search_sessions",
        { query: q.query, project: q.project, since_min: 10_080 * 2 },
        caller,
        { services },
      );
      times.push(performance.now() - t0);
      if (!("result" in response)) throw new Error(`${q.label}: ${JSON.stringify(response)}`);
      sessions = (response.result as { sessions?: unknown[] }).sessions?.length ?? 0;
    }
    const search = services.get(MESSAGE_SEARCH);
    const expression = q.query.split(" ").map((word) => `"${word}"`).join(" ");
    const since = Date.now() - 10_080 * 2 * 60_000;
    const index: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await search.searchByTerms(expression, scopeOf(q), since, 200);
      index.push(performance.now() - t0);
    }
    out.push({ first: times[0], runs: times.slice(1), index, sessions });
  }
  return out;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/** Runs the 1M-message search, storage and bulk-load figures (PostgreSQL's when `cluster`). */
export async function benchTeamSearch(
  cluster: PostgresCluster | undefined,
  messageCount = Number(Deno.env.get("VANTAGE_BENCH_MESSAGES") ?? 1_000_000),
): Promise<void> {
  const source = new MessageSource(messageCount);
  const first = Math.min(ROW_PATH_MESSAGES, messageCount);
  const firstLabel = `first ${first.toLocaleString("en")}`;
  const perMillion = 1_000_000 / messageCount;
  const words = source.words;
  const queries: Query[] = [
    { label: `rare word '${words[40_000]}'`, query: words[40_000], project: "*" },
    { label: `mid word '${words[2_000]}'`, query: words[2_000], project: "*" },
    { label: `very common word '${words[0]}'`, query: words[0], project: "*" },
    {
      label: `two words '${words[150]} ${words[3_000]}'`,
      query: `${words[150]} ${words[3_000]}`,
      project: "*",
    },
    { label: `common word, one project`, query: words[0], project: "/work/project-3" },
    { label: `rare word, one project`, query: words[40_000], project: "/work/project-3" },
  ];

  const home = await Deno.makeTempDir({ prefix: "vantage-bench-team-search-" });
  try {
    const dataHome = join(home, "sqlite");
    const { seconds: sqliteSeconds, bytes } = await fillSqlite(dataHome, source);
    const sqliteSize = sqliteBytes(dataHome);
    const sqliteServices = vantageServices(resolvePaths(dataHome));
    const sqliteTimes = await timeQueries(sqliteServices, queries);
    sqliteServices.close();

    let pg:
      | {
        fill: { seconds: number; firstSeconds: number; bytes: number };
        rows: { seconds: number };
        messagesBytes: number;
        ginBytes: number;
        sessionsBytes: number;
        times: QueryTimes[];
      }
      | undefined;
    if (cluster !== undefined) {
      const rowsStore = await openPg(await cluster.createDatabase("bench_rows"));
      let rows: { seconds: number };
      try {
        rows = await fillPostgres(rowsStore, source, "rows", ROW_PATH_MESSAGES);
      } finally {
        await rowsStore.close();
      }
      const url = await cluster.createDatabase("bench_search");
      const filling = await openPg(url);
      let fill: { seconds: number; firstSeconds: number; bytes: number };
      let sizes: { m: number; gin: number; s: number };
      try {
        fill = await fillPostgres(filling, source, "copy");
        // What autovacuum would get to after such a load: the GIN index's pending list merged,
        // the planner's statistics taken.
        // One statement each: VACUUM cannot run in the transaction a script of several makes.
        await filling.pool.exec("VACUUM ANALYZE messages");
        await filling.pool.exec("VACUUM ANALYZE sessions");
        const [row] = await filling.pool.query(
          `SELECT pg_total_relation_size('messages') AS m,
             pg_relation_size('messages_search') AS gin,
             pg_total_relation_size('sessions') AS s`,
        );
        sizes = { m: Number(row.m), gin: Number(row.gin), s: Number(row.s) };
      } finally {
        await filling.close();
      }
      // A newly opened store, as a serve started on this database would have.
      const opened = await openPg(url);
      try {
        const services = providePostgresStore(vantageServices(resolvePaths(home)), opened);
        const times = await timeQueries(services, queries);
        pg = {
          fill,
          rows,
          messagesBytes: sizes.m,
          ginBytes: sizes.gin,
          sessionsBytes: sizes.s,
          times,
        };
      } finally {
        await opened.close();
      }
    }

    const count = messageCount.toLocaleString("en");
    console.log(
      `\nFilling a store with ${count} messages (${mb(bytes)} of text, ${SESSIONS} sessions), ` +
        `batches of ${BATCH.toLocaleString("en")}`,
    );
    const fillRows: string[][] = [["store, path", "messages", "seconds", "messages/s", "MB/s"]];
    const fillRow = (label: string, n: number, seconds: number, textMb: number) => [
      label,
      n.toLocaleString("en"),
      seconds.toFixed(1),
      (n / seconds).toFixed(0),
      (textMb / seconds).toFixed(1),
    ];
    fillRows.push(
      fillRow("SQLite: inserts + FTS5 index worker", messageCount, sqliteSeconds, bytes / 1e6),
    );
    if (pg !== undefined) {
      const share = first / messageCount;
      fillRows.push(fillRow("PostgreSQL: COPY path", messageCount, pg.fill.seconds, bytes / 1e6));
      if (pg.fill.firstSeconds > 0) {
        fillRows.push(
          fillRow(
            `PostgreSQL: COPY path, ${firstLabel}`,
            first,
            pg.fill.firstSeconds,
            (bytes * share) / 1e6,
          ),
        );
      }
      fillRows.push(
        fillRow(
          `PostgreSQL: row path (unnest), ${firstLabel}`,
          first,
          pg.rows.seconds,
          (bytes * share) / 1e6,
        ),
      );
    }
    printTable(fillRows);

    console.log(`\nStorage per million messages`);
    const storage: string[][] = [["store", "messages and their search index", "of which"]];
    storage.push([
      "SQLite",
      mb((sqliteSize.store + sqliteSize.index) * perMillion),
      `store file ${mb(sqliteSize.store * perMillion)}, search index file ${
        mb(sqliteSize.index * perMillion)
      }`,
    ]);
    if (pg !== undefined) {
      storage.push([
        "PostgreSQL",
        mb((pg.messagesBytes + pg.sessionsBytes) * perMillion),
        `GIN word index ${mb(pg.ginBytes * perMillion)}, sessions ${
          mb(pg.sessionsBytes * perMillion)
        }`,
      ]);
    }
    printTable(storage);

    console.log(
      `\nsearch_sessions over ${count} messages (through the operation, in process; ` +
        `first: the first query of a newly opened store; then ${RUNS} runs; index alone: ` +
        `the word index's query the operation makes, newest 200 matches)`,
    );
    const header = ["query", "SQLite first", "p50", "p95", "index alone p50"];
    if (pg !== undefined) header.push("PostgreSQL first", "p50", "p95", "index alone p50");
    const table: string[][] = [header];
    for (const [i, q] of queries.entries()) {
      const s = sqliteTimes[i];
      const row = [
        q.label,
        s.first.toFixed(1),
        percentile(s.runs, 50).toFixed(1),
        percentile(s.runs, 95).toFixed(1),
        percentile(s.index, 50).toFixed(1),
      ];
      if (pg !== undefined) {
        const p = pg.times[i];
        row.push(
          p.first.toFixed(1),
          percentile(p.runs, 50).toFixed(1),
          percentile(p.runs, 95).toFixed(1),
          percentile(p.index, 50).toFixed(1),
        );
        if (p.sessions !== s.sessions) {
          row.push(`(sessions found differ: ${s.sessions}/${p.sessions})`);
        }
      }
      table.push(row);
    }
    printTable(table);
  } finally {
    await Deno.remove(home, { recursive: true }).catch(() => {});
  }
}
