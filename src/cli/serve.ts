/**
 * `vantage serve`: the long-running server.
 *
 * `--store` (or `VANTAGE_STORE`) names where the store lives: the embedded
 * SQLite file (the default) or a PostgreSQL server (team mode: see
 * server/postgres_server.ts for what a team server runs and what it does not
 * yet). A wrong or unreachable store stops serve with one line before it
 * listens.
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
import { STORE } from "../ops/service_keys.ts";
import { PersonTokens } from "../team/mod.ts";
import { type DaemonHandles, startVantageServer } from "../server/vantage_server.ts";
import { parseStoreLocation } from "../store/postgres/store_url.ts";
import { teamToken, teamUrl } from "../sync/mod.ts";
import { type Command, parseFlags } from "./command.ts";

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
                On PostgreSQL (team mode) serve migrates the database and serves hooks,
                OTLP, the catalog and the dashboard from it; it watches no files and tails
                no transcripts (laptops send theirs). Not on PostgreSQL yet, answered 503
                'unavailable': document memory. Read-only SQL runs as read-only roles it
                makes (its user needs CREATEROLE)
  --upstream URL  Also forward every hook to this team server (default VANTAGE_UPSTREAM),
                with the token in VANTAGE_TEAM_TOKEN or the data home's team-token
                file; hooks wait in upstream-spool/ while it is down
  -h, --help    Show this help`,
  async run(args) {
    const { values } = parseFlags("serve", args, {
      host: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      "no-tail": { type: "boolean" },
      store: { type: "string" },
      upstream: { type: "string" },
    });
    // The store first: a wrong or unreachable store stops serve before it writes anything.
    const storeFlag = typeof values.store === "string" ? values.store : undefined;
    const location = parseStoreLocation(
      storeFlag ?? readEnv("VANTAGE_STORE"),
      storeFlag === undefined ? "VANTAGE_STORE" : "--store",
    );
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
    const upstreamUrl = typeof values.upstream === "string"
      ? values.upstream
      : readEnv("VANTAGE_UPSTREAM");
    if (upstreamUrl !== undefined && location.kind === "postgres") {
      throw new VantageError(
        "invalid_arguments",
        "--upstream forwards a laptop's hooks to a team server; a team server on PostgreSQL " +
          "takes hooks itself (leave out --upstream or --store)",
      );
    }
    const upstream = upstreamUrl === undefined
      ? undefined
      : await upstreamOf(upstreamUrl, paths.home);
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
    // The daemon's parts behind the route table: hooks, telemetry, the catalog, live events,
    // health.
    const handler = (daemon: DaemonHandles) =>
      createHandler({
        // A team server's people: their tokens act as them, checked against the store.
        guard: {
          bindHost: host,
          port,
          token,
          people: new PersonTokens(daemon.services.get(STORE).team),
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
      });
    try {
      const common = { paths, host, port, tail: values["no-tail"] !== true, log, handler };
      if (location.kind === "postgres") {
        const { startPostgresServer } = await import("../server/postgres_server.ts");
        server = await startPostgresServer({ ...common, location });
      } else {
        server = await startVantageServer({ ...common, upstream });
      }
    } catch (error) {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
      throw error;
    }
    const origin = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
    log.info(`listening on ${origin}`, { home: paths.home });
    log.info(`dashboard at ${origin}/ · MCP at ${origin}/mcp`);
    if (upstream !== undefined) log.info(`forwarding hooks to ${upstream.url}`);
    if (stopping) void server.shutdown();
    await server.finished;
    Deno.removeSignalListener("SIGINT", stop);
    Deno.removeSignalListener("SIGTERM", stop);
    log.info("stopped");
    return 0;
  },
};

/**
 * The team server hooks are forwarded to, with the person's token; refused at start, in one
 * line, when it is not a URL, no token is set, or this process may not connect to it.
 */
async function upstreamOf(given: string, home: string): Promise<{ url: string; token: string }> {
  const url = teamUrl(given, "--upstream");
  const token = await teamToken(home);
  const host = new URL(url).host;
  const permission = await Deno.permissions.query({ name: "net", host });
  if (permission.state !== "granted") {
    throw new VantageError(
      "invalid_arguments",
      `--upstream ${url}: this serve may not connect to ${host}; set VANTAGE_UPSTREAM (or VANTAGE_TEAM_URL) to it so the permission set allows it`,
    );
  }
  return { url, token };
}
