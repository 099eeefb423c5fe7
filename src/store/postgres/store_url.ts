/**
 * Where the store lives, as `vantage serve --store` or `VANTAGE_STORE` name
 * it: the embedded SQLite file (the default) or a PostgreSQL server given by
 * a `postgres://` URL. Parsing checks the URL's form only; whether the
 * server answers is for the connection to find out. The URL may carry a
 * password, so everything shown to people uses {@linkcode redactStoreUrl}.
 *
 * Imports no package, so the CLI can check a URL before loading a client.
 *
 * @module
 */
import { VantageError } from "../../core/errors.ts";

/** A PostgreSQL store location, checked. */
export interface PostgresLocation {
  /** The backend. */
  kind: "postgres";
  /** The URL as given (it may hold a password: never print it). */
  url: string;
  /** The URL with its password replaced, for messages and logs. */
  redacted: string;
  /** Host name or address. */
  host: string;
  /** Port (5432 unless the URL names one). */
  port: number;
  /** Database name. */
  database: string;
  /** User name. */
  user: string;
  /** Connections at most, when the URL's `pool_size` says. */
  poolSize?: number;
  /** Longest a statement may run, ms, when the URL's `statement_timeout` says. */
  statementTimeoutMs?: number;
  /** Longest to wait for the server, s, when the URL's `connect_timeout` says. */
  connectTimeoutS?: number;
}

/** Where the store lives. */
export type StoreLocation = { kind: "sqlite" } | PostgresLocation;

/** The form a PostgreSQL store URL takes, for messages. */
const URL_FORM = "postgres://user@host[:port]/database (a password, if any, after the user)";

/** Query parameters a URL may carry, each understood by the connection (see connection.ts). */
const KNOWN_PARAMETERS = new Set([
  "sslmode",
  "application_name",
  "pool_size",
  "statement_timeout",
  "connect_timeout",
]);

/**
 * The URL with any password replaced by `***` (a URL that does not parse is cut to its
 * scheme, since it may hold a password anywhere).
 *
 * @example
 * ```ts
 * import { redactStoreUrl } from "./store_url.ts";
 * redactStoreUrl("postgres://me:secret@db:5432/team"); // "postgres://me:***@db:5432/team"
 * ```
 */
export function redactStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url);
    return scheme === null ? "(an unreadable value)" : `${scheme[0]}… (unreadable)`;
  }
}

/**
 * Parses a store location: `sqlite` (or nothing) for the embedded default, else a
 * `postgres://` or `postgresql://` URL naming a host and a database. Throws
 * `invalid_arguments` naming the (redacted) value and what is wrong with it.
 *
 * @example
 * ```ts
 * import { parseStoreLocation } from "./store_url.ts";
 * parseStoreLocation(undefined); // { kind: "sqlite" }
 * const pg = parseStoreLocation("postgres://vantage@db.internal/team");
 * pg.kind === "postgres" && pg.database; // "team"
 * ```
 */
export function parseStoreLocation(value: string | undefined, source = "--store"): StoreLocation {
  if (value === undefined || value === "" || value === "sqlite") return { kind: "sqlite" };
  const shown = redactStoreUrl(value);
  const wrong = (what: string) =>
    new VantageError("invalid_arguments", `${source} ${shown}: ${what}`, {
      details: { store: shown },
    });
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw wrong(`not a URL; use 'sqlite' or ${URL_FORM}`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw wrong(
      `unsupported scheme '${parsed.protocol.replace(/:$/, "")}'; use 'sqlite' or ${URL_FORM}`,
    );
  }
  if (parsed.hostname === "") throw wrong("the URL names no host");
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (database === "" || database.includes("/")) {
    throw wrong("the URL names no database (postgres://user@host:port/database)");
  }
  // Without a user the client would ask the system for the login name, which serve's
  // permissions do not allow (and a team server's user is never the laptop's login anyway).
  if (parsed.username === "") throw wrong("the URL names no user (postgres://user@host/database)");
  const port = parsed.port === "" ? 5432 : Number(parsed.port);
  for (const name of parsed.searchParams.keys()) {
    if (!KNOWN_PARAMETERS.has(name)) {
      throw wrong(`unknown parameter '${name}' (known: ${[...KNOWN_PARAMETERS].join(", ")})`);
    }
  }
  const location: PostgresLocation = {
    kind: "postgres",
    url: value,
    redacted: shown,
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port,
    database,
    user: decodeURIComponent(parsed.username),
  };
  const positive = (name: string): number | undefined => {
    const raw = parsed.searchParams.get(name);
    if (raw === null) return undefined;
    const number = Number(raw);
    if (!/^\d+$/.test(raw) || number <= 0) {
      throw wrong(`parameter '${name}' must be a positive whole number; got '${raw}'`);
    }
    return number;
  };
  const poolSize = positive("pool_size");
  if (poolSize !== undefined) location.poolSize = poolSize;
  const statementTimeout = positive("statement_timeout");
  if (statementTimeout !== undefined) location.statementTimeoutMs = statementTimeout;
  const connectTimeout = positive("connect_timeout");
  if (connectTimeout !== undefined) location.connectTimeoutS = connectTimeout;
  return location;
}
