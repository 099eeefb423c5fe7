/**
 * `vantage serve`: the long-running server.
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
      upstream: { type: "string" },
    });
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
    try {
      server = await startVantageServer({
        paths,
        host,
        port,
        tail: values["no-tail"] !== true,
        upstream,
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
