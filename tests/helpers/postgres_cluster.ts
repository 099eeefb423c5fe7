/**
 * A throwaway PostgreSQL cluster for tests: its own data folder and a free
 * loopback port, started on first use, one fresh database per test, stopped
 * with `-m immediate` when the test module ends.
 *
 * The binaries (`initdb`, `pg_ctl`, `postgres`) are looked for on PATH, in
 * Debian's `/usr/lib/postgresql/<version>/bin` and in `/usr/local/bin`. The
 * server refuses to run as root, so as root the cluster runs as the
 * `postgres` user (made when missing) and its folders belong to it. When no
 * PostgreSQL is found, {@linkcode POSTGRES_MISSING} says why and the tests
 * that need it skip (see {@linkcode skipWithoutPostgres}).
 *
 * The benchmarks start theirs in the foreground (`foreground: true`): the
 * server is then a child of the process that started it rather than a
 * daemon, so a tool that pauses every process but a command's own
 * (/work/notes/quiet.sh, for quiet measurements) leaves it running.
 */
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import postgres from "postgres";

const BINARIES = ["initdb", "pg_ctl", "postgres"] as const;

/** Folders that may hold PostgreSQL's server binaries, most likely first. */
function candidateFolders(): string[] {
  const fromPath = (Deno.env.get("PATH") ?? "").split(delimiter).filter((dir) => dir !== "");
  const debian: string[] = [];
  try {
    // Newest major version first: /usr/lib/postgresql/16/bin before …/15/bin.
    const versions = readdirSync("/usr/lib/postgresql").filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) debian.push(`/usr/lib/postgresql/${version}/bin`);
  } catch {
    // No Debian packages: PATH and /usr/local/bin are all there is.
  }
  return [...fromPath, ...debian, "/usr/local/bin"];
}

/** The folder holding all three server binaries, if any. */
function findBinaries(): string | undefined {
  return candidateFolders().find((dir) => BINARIES.every((name) => existsSync(join(dir, name))));
}

function command(name: string, args: string[]) {
  return new Deno.Command(name, { args, stdout: "piped", stderr: "piped", stdin: "null" });
}

/** The uid and gid of the `postgres` user, made when missing (root only). */
function postgresUser(): { uid: number; gid: number } | string {
  const id = (flag: string) => {
    const out = command("id", [flag, "postgres"]).outputSync();
    return out.success ? Number(new TextDecoder().decode(out.stdout).trim()) : undefined;
  };
  if (id("-u") === undefined) {
    const made = command("useradd", [
      "--system",
      "--no-create-home",
      "--shell",
      "/usr/sbin/nologin",
      "postgres",
    ]).outputSync();
    if (!made.success) {
      return `there is no 'postgres' user to run the server as, and useradd failed: ${
        new TextDecoder().decode(made.stderr).trim()
      }`;
    }
  }
  const uid = id("-u");
  const gid = id("-g");
  if (uid === undefined || gid === undefined) return "the 'postgres' user has no uid or gid";
  return { uid, gid };
}

interface Setup {
  bin: string;
  /** Set when running as root: the user the server runs as. */
  user?: { uid: number; gid: number };
}

function setup(): Setup | string {
  const bin = findBinaries();
  if (bin === undefined) {
    return `PostgreSQL's server binaries (${BINARIES.join(", ")}) were found neither on PATH ` +
      "nor in /usr/lib/postgresql/*/bin or /usr/local/bin: install them with " +
      "'apt-get install -y postgresql'";
  }
  if (Deno.uid() !== 0) return { bin };
  const user = postgresUser();
  return typeof user === "string" ? user : { bin, user };
}

const SETUP = setup();

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export const POSTGRES_MISSING: string | undefined = typeof SETUP === "string" ? SETUP : undefined;

const announced = new Set<string>();

/**
 * Whether the tests of `suite` skip for lack of PostgreSQL; the first call per suite prints
 * why. Use as `Deno.test({ ignore: skipWithoutPostgres("…"), … })`.
 */
export function skipWithoutPostgres(suite: string): boolean {
  if (POSTGRES_MISSING === undefined) return false;
  if (!announced.has(suite)) {
    announced.add(suite);
    console.log(`skipping ${suite}: ${POSTGRES_MISSING}`);
  }
  return true;
}

/** A running throwaway cluster. */
export interface PostgresCluster {
  /** Its loopback port. */
  readonly port: number;
  /** The folder holding its data, socket and log. */
  readonly folder: string;
  /** The URL of a database of the cluster (user `postgres`, no password: trust). */
  url(database: string): string;
  /** Makes a new empty database; answers its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (its clients are cut off), keeping its data. */
  pause(): void;
  /** Starts a paused server again, on the same port with the same data. */
  resume(): void;
  /** Stops the server at once and removes its folders. */
  stop(): void;
}

/** A free TCP port on the loopback interface, as the kernel picks it. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Runs a server binary, as the `postgres` user when running as root; throws with its output. */
function runBinary(s: Setup, name: string, args: string[]): void {
  const path = join(s.bin, name);
  const out = s.user === undefined
    ? command(path, args).outputSync()
    : command("runuser", ["-u", "postgres", "--", path, ...args]).outputSync();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`${name} ${args.join(" ")} failed (exit ${out.code}): ${text.trim()}`);
  }
}

/** Chowns every path to the server's user (root only). */
function giveToServer(s: Setup, ...paths: string[]): void {
  if (s.user === undefined) return;
  for (const path of paths) chownSync(path, s.user.uid, s.user.gid);
}

/**
 * A folder the server's user can reach to hold the cluster: the temp folder, unless one of its
 * ancestors is closed to others (root's /tmp may be 0700), then /var/tmp.
 */
function baseFolder(s: Setup): string {
  const open = (dir: string): boolean => {
    for (let d = dir;; d = dirname(d)) {
      if ((statSync(d).mode & 0o001) === 0) return false;
      if (dirname(d) === d) return true;
    }
  };
  if (s.user === undefined) return tmpdir();
  return [tmpdir(), "/var/tmp"].find(open) ?? "/var/tmp";
}

let serial = 0;

/** How a cluster is started. */
export interface ClusterOptions {
  /**
   * Run the server as a child of this process (stopped with the cluster) instead of as the
   * daemon `pg_ctl start` leaves behind; {@linkcode startPostgresCluster} then waits for it.
   */
  foreground?: boolean;
  /** More server settings (`name=value`), after the cluster's own. */
  settings?: readonly string[];
}

/** The server's state line in `postmaster.pid` (its 8th line): "ready" once it takes clients. */
function serverReady(data: string): boolean {
  try {
    return Deno.readTextFileSync(join(data, "postmaster.pid")).split("\n")[7]?.trim() === "ready";
  } catch {
    return false; // Not written yet.
  }
}

/**
 * Runs `postgres` as a child (as the `postgres` user when running as root), its output to
 * `log`, and waits until it takes clients; throws with its log when it exits first.
 */
async function startForeground(s: Setup, data: string, args: string[], log: string) {
  const server = join(s.bin, "postgres");
  // sh: the output goes to the log file as pg_ctl's -l sends it, and exec leaves no shell.
  const script = `exec "$0" "$@" >>'${log.replaceAll("'", "'\\''")}' 2>&1`;
  const argv = ["-c", script, server, "-D", data, ...args];
  const child = new Deno.Command(s.user === undefined ? "sh" : "runuser", {
    args: s.user === undefined ? argv : ["-u", "postgres", "--", "sh", ...argv],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let exited = false;
  child.status.then(() => exited = true);
  for (const until = Date.now() + 60_000; Date.now() < until;) {
    if (serverReady(data)) return;
    if (exited) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!exited) {
    try {
      child.kill("SIGQUIT");
    } catch { /* gone */ }
  }
  let text = "";
  try {
    text = Deno.readTextFileSync(log).slice(-2000);
  } catch { /* no log */ }
  throw new Error(`postgres did not start: ${text.trim()}`);
}

/**
 * Starts a cluster: initdb into a fresh folder, then the server on a free loopback port with
 * its socket in that folder. Durability settings are off: a test cluster is thrown away.
 */
export function startPostgresCluster(): PostgresCluster {
  return startCluster({}, undefined) as PostgresCluster;
}

/**
 * Starts a cluster as {@linkcode startPostgresCluster} does, with `options` (a server in the
 * foreground, more settings); answers once it takes clients.
 */
export function startPostgresClusterWith(options: ClusterOptions): Promise<PostgresCluster> {
  return startCluster(options, true) as Promise<PostgresCluster>;
}

function startCluster(
  options: ClusterOptions,
  asynchronous: true | undefined,
): PostgresCluster | Promise<PostgresCluster> {
  if (typeof SETUP === "string") throw new Error(`PostgreSQL is not available: ${SETUP}`);
  const s = SETUP;
  const root = mkdtempSync(join(baseFolder(s), "vantage-pg-"));
  const data = join(root, "data");
  const socket = join(root, "socket");
  Deno.mkdirSync(socket);
  giveToServer(s, root, socket);
  runBinary(s, "initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]);
  const log = join(root, "server.log");
  const settings = (on: number) => [
    "-p",
    String(on),
    "-k",
    socket,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=200",
    ...(options.settings ?? []).flatMap((setting) => ["-c", setting]),
  ];
  const serve = (on: number) => {
    // -l: the server's output goes to a file, so pg_ctl exits once the server is up.
    runBinary(s, "pg_ctl", ["-D", data, "-o", settings(on).join(" "), "-l", log, "-w", "start"]);
  };
  // Another process may take the port between freePort and the server's bind: try again.
  const started = (attempt: number): number | Promise<number> => {
    const port = freePort();
    const retry = (error: unknown) => {
      if (attempt === 3) throw error;
      return started(attempt + 1);
    };
    if (options.foreground === true) {
      return startForeground(s, data, settings(port), log).then(() => port, retry);
    }
    try {
      serve(port);
      return port;
    } catch (error) {
      return retry(error);
    }
  };
  const made = (port: number) => cluster(s, root, data, port, serve);
  const port = started(1);
  if (asynchronous === true) return Promise.resolve(port).then(made);
  return made(port as number);
}

/** The handle of a started cluster. */
function cluster(
  s: Setup,
  root: string,
  data: string,
  port: number,
  serve: (on: number) => void,
): PostgresCluster {
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    globalThis.removeEventListener("unload", stop);
    try {
      runBinary(s, "pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
  // A test module that ends without stopping its cluster (a failed test) still stops it.
  globalThis.addEventListener("unload", stop);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    folder: root,
    url,
    // Fast, not immediate: this cluster commits without waiting for its WAL, which a crash loses.
    pause: () => runBinary(s, "pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    resume: () => serve(port),
    async createDatabase(name = `test_${Deno.pid}_${++serial}`) {
      const admin = postgres(url("postgres"), { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    stop,
  };
}

/**
 * The connect timeout of the tests' pools, s: on a loaded two-core machine a new backend can
 * take longer than serve's 5 s to answer (measured: more than 5 s while three suites ran), and
 * a test is about what the store answers, not how fast it connects.
 */
export const TEST_CONNECT_TIMEOUT_S = 60;

let shared: PostgresCluster | undefined;

/** The test module's cluster, started on first use and stopped when the module ends. */
export function sharedPostgresCluster(): PostgresCluster {
  shared ??= startPostgresCluster();
  return shared;
}
