/**
 * `vantage serve`: the long-running server.
 *
 * `--store` (or `VANTAGE_STORE`) names where the store lives: the embedded
 * SQLite file (the default) or a PostgreSQL server. Team mode on PostgreSQL
 * is being built area by area, so for a PostgreSQL URL serve checks the
 * server, migrates it, and then says in one line which areas are ready and
 * that it cannot run on it yet — rather than serving half a catalog.
 *
 * @module
 */
import { configuredPort, DEFAULT_HOST, readEnv, resolvePaths } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import { createLogger } from "../core/log.ts";
import { createHandler } from "../http/handler.ts";
import { loadOrCreateToken } from "../http/token.ts";
import { VANTAGE_NAMING } from "../mcp/operation_names.ts";
import { builtinCatalog } from "../ops/builtin.ts";
import { DATABASE } from "../ops/service_keys.ts";
import { sqliteTeamStore } from "../store/team/team_store.ts";
import { PersonTokens } from "../team/mod.ts";
import { startVantageServer } from "../server/vantage_server.ts";
import { parseStoreLocation, type PostgresLocation } from "../store/postgres/store_url.ts";
import { type Command, parseFlags } from "./command.ts";

/**
 * Checks and migrates a PostgreSQL store, then refuses to serve on it with one line naming
 * what is ready: serve's catalog does not run on PostgreSQL yet. A server that cannot be
 * reached or used fails here instead, with the error that says why.
 */
async function refusePostgresForNow(location: PostgresLocation): Promise<never> {
  // Loaded only for a PostgreSQL store: the client is not part of a SQLite serve.
  const { openPostgresStore, PG_PENDING_AREAS, PG_READY_AREAS } = await import(
    "../store/postgres/postgres_store.ts"
  );
  const store = await openPostgresStore(location, { max: 2 });
  await store.close();
  throw new VantageError(
    "unavailable",
    `the PostgreSQL store at ${location.redacted} answers (PostgreSQL ${store.serverVersion}, ` +
      `schema ${store.migrated.length > 0 ? "migrated now" : "up to date"}), but serve cannot ` +
      `run on PostgreSQL yet: ready there: ${PG_READY_AREAS.join(", ")}; not yet: ${
        PG_PENDING_AREAS.join(", ")
      } — run serve without --store and VANTAGE_STORE to use SQLite`,
    { details: { store: location.redacted, ready: PG_READY_AREAS, pending: PG_PENDING_AREAS } },
  );
}

/** The `serve` command. */
export const command: Command = {
  name: "serve",
  summary: "Run the server: hook endpoint, transcript tailing, sensors, dashboard",
  usage: `Usage: vantage serve [options]

Runs Vantage's server: the hook endpoint (/api/hooks), transcript tailing
for every agent, the HTTP API (/api/ops, /api/query, /api/events), MCP over
Streamable HTTP (/mcp) and the dashboard (/). Stops on Ctrl-C (SIGINT) or
SIGTERM after closing live streams and finishing in-flight writes.

Options:
  --host H      Bind address (default 127.0.0.1; anything else needs the token)
  --port P      Port (default VANTAGE_PORT or 14300; 0 picks a free port)
  --token T     Bearer token (default VANTAGE_TOKEN, else generated into the data home);
                the tokens of people added with 'vantage team add-user' work too
  --no-tail     Do not read agent transcripts
  --store S     Where the store lives: 'sqlite' (default: the data home's file) or
                postgres://user@host[:port]/database, a password (if any) after the user
                or in PGPASSWORD (default VANTAGE_STORE).
                PostgreSQL (team mode) is in progress: serve checks and migrates the
                database, then says which areas are ready and exits
  -h, --help    Show this help`,
  async run(args) {
    const { values } = parseFlags("serve", args, {
      host: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      "no-tail": { type: "boolean" },
      store: { type: "string" },
    });
    // The store first: a wrong or unreachable store stops serve before it writes anything.
    const storeFlag = typeof values.store === "string" ? values.store : undefined;
    const location = parseStoreLocation(
      storeFlag ?? readEnv("VANTAGE_STORE"),
      storeFlag === undefined ? "VANTAGE_STORE" : "--store",
    );
    if (location.kind === "postgres") await refusePostgresForNow(location);
    const host = typeof values.host === "string" ? values.host : DEFAULT_HOST;
    let port = configuredPort();
    if (typeof values.port === "string") {
      port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new VantageError(
          "invalid_arguments",
          `--port must be a port number (0-65535); got '${values.port}'`,
        );
      }
    }
    const paths = resolvePaths();
    const log = createLogger("serve");
    const token = typeof values.token === "string" ? values.token : readEnv("VANTAGE_TOKEN") ??
      await loadOrCreateToken(paths.home);
    // Listening for signals before the server records its port: a SIGTERM sent as soon as the
    // port is known (a supervisor, a test) stops the server cleanly instead of killing it.
    let stopping = false;
    let server: Awaited<ReturnType<typeof startVantageServer>> | undefined;
    const stop = () => {
      // Ctrl-C reaches serve from the terminal and again through `deno task` and the launcher.
      if (stopping) return;
      stopping = true;
      log.info("shutting down");
      if (server !== undefined) void server.shutdown();
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
    try {
      server = await startVantageServer({
        paths,
        host,
        port,
        tail: values["no-tail"] !== true,
        log,
        // The daemon's parts behind the route table: hooks, telemetry, the catalog, live events,
        // health.
        handler: (daemon) =>
          createHandler({
            // A team server's people: their tokens act as them, checked against the store.
            guard: {
              bindHost: host,
              port,
              token,
              people: new PersonTokens(sqliteTeamStore(daemon.services.get(DATABASE))),
            },
            hooks: daemon.hooks,
            otlp: daemon.telemetry,
            ops: {
              catalog: builtinCatalog({ naming: VANTAGE_NAMING }),
              services: daemon.services,
              promptsDir: paths.prompts,
            },
            events: daemon.events,
            health: daemon.health,
            log,
          }),
      });
    } catch (error) {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
      throw error;
    }
    const origin = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
    log.info(`listening on ${origin}`, { home: paths.home });
    log.info(`dashboard at ${origin}/ · MCP at ${origin}/mcp`);
    if (stopping) void server.shutdown();
    await server.finished;
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
    log.info("stopped");
    return 0;
  },
};
