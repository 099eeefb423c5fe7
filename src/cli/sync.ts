/**
 * `vantage sync [--to URL]`: pushes this data home's history and documents
 * to a team server as the person whose token it holds — or a team server's
 * store on PostgreSQL (`--store`), when a team moves its server. The work is
 * the sync feature's (`runSync`); this command finds the server and token,
 * opens the store, shows progress on stderr and prints the summary.
 *
 * @module
 */
import { readEnv, resolvePaths } from "../core/config.ts";
import { documentBytes, readContentFrom } from "../docs/mod.ts";
import { DATABASE, STORE, vantageServices } from "../ops/runtime.ts";
import type { DocumentRow } from "../store/docs/documents.ts";
import type { StoreMode } from "../store/repository.ts";
import type { Store } from "../store/store.ts";
import { parseStoreLocation } from "../store/postgres/store_url.ts";
import {
  runSync,
  type SyncProgress,
  type SyncSummary,
  TEAM_TOKEN_FILE,
  TeamServer,
  teamTarget,
} from "../sync/mod.ts";
import { type Command, parseFlags, writeStderr, writeStdout } from "./command.ts";

const USAGE = `Usage: vantage sync [--to URL] [--store URL] [--from-start] [--json]

Pushes this data home's agent history (sessions, hook events, transcript
messages, model calls, tool outcomes) and documents to a team server, where
they are attributed to the person whose token this uses, from this host.

Every record goes once, under the key it was stored with here: a sync run
again, interrupted (even by kill -9) and run again, or overlapping with
hooks forwarded by 'serve --upstream', stores nothing twice. Batches are
bounded in bytes; a cursor per table (kept in this store, per team server)
moves past a batch only once the server acknowledged it, so the next run
goes on from there.

Options:
  --to URL       The team server (default VANTAGE_TEAM_URL)
  --store URL    Push this PostgreSQL store (a team server's, to move it) instead of
                 the data home's (default VANTAGE_STORE); its cursors are kept in it.
                 Stop the server first: a write still running may land behind them
  --from-start   Send everything again, ignoring the cursors
  --json         Print the summary as JSON

The token is VANTAGE_TEAM_TOKEN, else the first line of ${TEAM_TOKEN_FILE} in the data
home (what 'vantage team add-user NAME' printed on the team server); the
host is VANTAGE_HOSTNAME, else this machine's name.`;

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

function progressLine(progress: SyncProgress): string {
  const of = progress.total === undefined ? "" : `/${progress.total}`;
  return `sync: ${progress.phase} ${progress.records}${of} · ${
    mb(progress.bytes)
  } MB in ${progress.batches} batches`;
}

function summaryText(summary: SyncSummary, url: string, seconds: number): string {
  const who = summary.person ?? "the server's owner";
  const lines = [
    `Synced to ${url} as ${who}: ${summary.batches} batches, ${mb(summary.bytes)} MB in ${
      seconds.toFixed(1)
    }s.`,
    `  new on the server: ${summary.stored.sessions_created} sessions, ${summary.stored.events} hook events, ` +
    `${summary.stored.messages} messages, ${summary.stored.usage} model calls`,
    summary.documents.not_sent === undefined
      ? `  documents: ${summary.documents.sent} sent, ${summary.documents.added} added, ` +
        `${summary.documents.updated} updated, ${summary.documents.unchanged} already there`
      : `  documents: none sent (${summary.documents.not_sent}); they go with a later sync`,
  ];
  if (summary.refused.records > 0) {
    const sessions = summary.refused.sessions.map((s) =>
      `${s.session_id} (${s.owner ?? "the server's owner"})`
    );
    lines.push(
      `  refused ${summary.refused.records} records that belong to someone else: ${
        [...sessions, ...summary.refused.documents].join(", ")
      }`,
    );
  }
  for (const invalid of summary.invalid) {
    lines.push(`  not taken: ${invalid.what}: ${invalid.reason}`);
  }
  for (const large of summary.too_large) {
    lines.push(`  left out (over 32 MiB): ${large.path} (${mb(large.size)} MB)`);
  }
  return lines.join("\n") + "\n";
}

/** The `sync` command. */
export const command: Command = {
  name: "sync",
  summary: "Push this data home's history and documents to a team server (--to URL)",
  usage: USAGE,
  async run(args) {
    const { values } = parseFlags("sync", args, {
      to: { type: "string" },
      store: { type: "string" },
      "from-start": { type: "boolean" },
      json: { type: "boolean" },
    });
    const paths = resolvePaths();
    const target = await teamTarget(
      paths.home,
      typeof values.to === "string" ? values.to : undefined,
    );
    const local = await openLocal(typeof values.store === "string" ? values.store : undefined);
    const started = performance.now();
    let shown = 0;
    let phase = "";
    try {
      const summary = await runSync({
        store: local.store,
        documentBytes: local.documentBytes,
        server: new TeamServer(target),
        fromStart: values["from-start"] === true,
        onProgress: (progress) => {
          const now = performance.now();
          if (values.json === true || (progress.phase === phase && now - shown < 2_000)) return;
          phase = progress.phase;
          shown = now;
          writeStderr(progressLine(progress));
        },
      });
      const seconds = (performance.now() - started) / 1000;
      if (values.json === true) {
        writeStdout(JSON.stringify({ url: target.url, seconds, ...summary }) + "\n");
      } else {
        writeStdout(summaryText(summary, target.url, seconds));
      }
      return 0;
    } finally {
      await local.close();
    }
  },
};

/** The store a run pushes, with how a document's bytes are read from it. */
interface LocalStore {
  store: Store<StoreMode>;
  documentBytes(row: DocumentRow): Uint8Array | Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The data home's store, or the PostgreSQL store `--store` (or VANTAGE_STORE) names. */
async function openLocal(storeFlag: string | undefined): Promise<LocalStore> {
  const location = parseStoreLocation(
    storeFlag ?? readEnv("VANTAGE_STORE"),
    storeFlag === undefined ? "VANTAGE_STORE" : "--store",
  );
  if (location.kind === "postgres") {
    // Loaded only for a PostgreSQL store: the client is no part of a laptop's sync.
    const { openPostgresStore } = await import("../store/postgres/postgres_store.ts");
    const opened = await openPostgresStore(location, { max: 2 });
    return {
      store: opened.store,
      // Read through the store's interface, verified against the hash as SQLite's packs are.
      documentBytes: (row) =>
        readContentFrom(opened.store.docs, row.hash, { path: row.path, id: row.id }),
      close: () => opened.close(),
    };
  }
  const services = vantageServices(resolvePaths());
  const db = services.get(DATABASE);
  return {
    store: services.get(STORE),
    documentBytes: (row) => documentBytes(db, row),
    close: () => Promise.resolve(services.close()),
  };
}
