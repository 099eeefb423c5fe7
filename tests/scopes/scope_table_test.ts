/**
 * A scope grants exactly what it says, on every surface. The table is the
 * catalog itself: every operation × every surface (MCP `dex`, `composite`
 * and `full`, each a real `mcp-serve --surface X --scopes …`; the real
 * `serve`'s `/api/ops/<id>`, `/api/query` and `/mcp?surface=…` under
 * X-Vantage-Scopes; `vantage call --scopes …`) × a caller holding every
 * scope but one the call needs. Each such call is refused, the operation is
 * in none of the caller's listings and no lookup by name finds it (unless
 * the missing scope is one the operation checks inside: exec_query's
 * tables), and nothing is written: the data home
 * (every file, and every table's rows) and the document root are the same
 * after the refused calls as before. Then, on copies of the store, the same
 * calls with every scope succeed, so the refusals are the scopes' doing.
 */
import assert from "node:assert/strict";
import { type ErrorKind, exitCodeFor, httpStatusFor } from "../../src/core/errors.ts";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags, type PermissionProfile } from "../../src/core/permissions.ts";
import { VANTAGE_NAMING } from "../../src/mcp/operation_names.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { type Operation, scopeGranted } from "../../src/ops/operation.ts";
import { KNOWN_SCOPES } from "../../src/ops/scopes.ts";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { copy } from "../helpers/copy_tree.ts";
import { type DataSnapshot, describeChanges, snapshotData } from "../helpers/data_snapshot.ts";
import { connectStdio, type StdioSession } from "../helpers/mcp_stdio.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";
import {
  DOWNLOAD_TEXT,
  FIXTURE_SESSION,
  OPERATION_SAMPLES,
  type SampleContext,
  seedStore,
  writeRoot,
} from "./operation_samples.ts";
import {
  cliProbe,
  compositeProbe,
  compositeReaches,
  dexProbe,
  fullProbe,
  httpMcpPort,
  httpOpsProbe,
  httpScopes,
  type McpPort,
  type Outcome,
  stdioPort,
  type SurfaceProbe,
} from "./surface_probes.ts";

const catalog = builtinCatalog({ naming: VANTAGE_NAMING });
const OPERATIONS: readonly Operation[] = catalog.operations();
const MCP_SURFACES = ["dex", "composite", "full"] as const;
type McpSurfaceName = typeof MCP_SURFACES[number];
/** How many child processes run at once: enough to keep two cores busy, few enough to not thrash. */
const PROCESSES_AT_ONCE = 4;

/** Every scope a call needs: the operation's own, and those its sample needs inside it. */
function needs(operation: Operation): string[] {
  const extra = OPERATION_SAMPLES[operation.id]?.alsoNeeds ?? [];
  return [...new Set([...operation.scopes, ...extra])];
}

/** The scope sets to try: every scope some call needs, each left out once. */
const MISSING: readonly string[] = KNOWN_SCOPES.filter((scope) =>
  OPERATIONS.some((operation) => needs(operation).includes(scope))
);

function allBut(scope: string): string[] {
  return KNOWN_SCOPES.filter((known) => known !== scope);
}

/** Whether a process started with this permission profile may open network connections. */
function hasNetwork(profile: PermissionProfile, store: Store): boolean {
  const paths = { ...resolvePaths(store.home.dataHome), userHome: store.home.home };
  return permissionFlags(profile, paths, [store.root]).some((flag) =>
    flag.startsWith("--allow-net")
  );
}

/** Failures gathered from many concurrent checks, so one run reports every broken cell. */
class Findings {
  readonly failures: string[] = [];
  async check(label: string, body: () => Promise<void> | void): Promise<void> {
    try {
      await body();
    } catch (error) {
      this.failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

async function inPool(limit: number, jobs: Array<() => Promise<void>>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
}

/** Asserts every listing of `probe` shows exactly the operations `granted` may run there. */
async function checkListings(
  probe: SurfaceProbe,
  granted: readonly string[],
  findings: Findings,
  label: string,
): Promise<void> {
  const expected = OPERATIONS
    .filter((op) => probe.reaches(op) && op.scopes.every((scope) => scopeGranted(granted, scope)))
    .map((op) => op.id)
    .sort();
  await findings.check(`${label} listings`, async () => {
    const views = await probe.listings();
    assert.ok(Object.keys(views).length > 0, "no listing");
    for (const [view, ids] of Object.entries(views)) {
      assert.deepEqual([...ids].sort(), expected, `${view} shows what the caller may not run`);
    }
  });
}

/** What a refusal looks like on the surface's own channel: isError, HTTP status, exit code. */
function assertSignal(outcome: Outcome, kind: ErrorKind): void {
  const { isError, status, exitCode } = outcome.signal;
  if (isError !== undefined) assert.equal(isError, true, "isError");
  if (status !== undefined) assert.equal(status, httpStatusFor(kind), "HTTP status");
  // `vantage call --json` exits with the kind's code, the executor's or the one an operation raised.
  if (exitCode !== undefined) assert.equal(exitCode, exitCodeFor(kind), "exit code");
}

/**
 * Asserts `outcome` is the refusal of a call by a caller holding `granted`:
 * the executor's `forbidden` naming exactly the declared scopes it lacks (or,
 * where the surface cannot name the operation, `unknown_operation`), or —
 * when it holds every declared scope — the operation's own `forbidden`
 * naming the scope its sample needs inside.
 */
function assertRefused(outcome: Outcome, operation: Operation, granted: readonly string[]): void {
  const { answer } = outcome;
  assert.equal(answer.result, undefined, "a result came back");
  const lacking = operation.scopes.filter((scope) => !scopeGranted(granted, scope));
  if (lacking.length > 0) {
    assert.ok(answer.error !== undefined, "no error object");
    assert.equal(answer.error.kind, outcome.refusesAs);
    assert.equal(answer.error.dispatched, false, "dispatched");
    if (outcome.refusesAs === "forbidden") {
      assert.deepEqual(answer.error.details?.missing_scopes, lacking);
    }
    assertSignal(outcome, outcome.refusesAs);
    return;
  }
  const inside = needs(operation).filter((scope) => !scopeGranted(granted, scope));
  assert.ok(inside.length > 0, "the caller holds every scope this call needs");
  // Refused inside the operation: its own error, or a route that reports that as its error.
  const own = answer.operation_error;
  if (own !== undefined) {
    assert.equal(own.kind, "forbidden", "refused inside the operation");
    // Where the kind travelled before it had a field of its own, kept for older readers.
    assert.equal(own.details?.kind, "forbidden", "details.kind");
    assert.deepEqual(own.details?.missing_scopes, inside);
  } else {
    assert.equal(answer.error?.kind, "forbidden", "refused inside the operation");
    for (const scope of inside) {
      assert.match(String(answer.error?.message), new RegExp(`needs scope ${scope}\\b`));
    }
  }
  assertSignal(outcome, "forbidden");
}

/**
 * Asserts `outcome` ran: a result, or — for a download in a process the
 * shipped permissions give no network — the operation's own refusal of the
 * connection, after the scope check let it through.
 */
function assertAllowed(outcome: Outcome, operation: Operation, networkAllowed: boolean): void {
  const { answer, signal } = outcome;
  assert.equal(answer.error, undefined, "the executor refused it");
  if (OPERATION_SAMPLES[operation.id].network === true && !networkAllowed) {
    assert.match(String(answer.operation_error?.message), /^network access to .* was refused/);
    assert.equal(answer.operation_error?.details?.missing_scopes, undefined);
    return;
  }
  assert.equal(answer.operation_error, undefined, "the operation failed");
  assert.ok(answer.result !== undefined, "no result");
  if (signal.isError !== undefined) assert.equal(signal.isError, false, "isError");
  if (signal.status !== undefined) assert.equal(signal.status, 200, "HTTP status");
  if (signal.exitCode !== undefined) assert.equal(signal.exitCode, 0, "exit code");
}

/**
 * Checks one operation on one surface for a caller holding `granted`: each
 * lookup finds it exactly when the caller holds its declared scopes, and
 * each way of running it succeeds exactly when the caller holds every scope
 * the call needs, and is otherwise refused as {@linkcode assertRefused} says.
 */
async function checkOperation(
  probe: SurfaceProbe,
  operation: Operation,
  granted: readonly string[],
  context: SampleContext,
  findings: Findings,
  networkAllowed: boolean,
): Promise<void> {
  const lacking = needs(operation).filter((scope) => !scopeGranted(granted, scope));
  const label = `${probe.name} ${
    lacking.length === 0 ? "with every scope" : `without ${lacking.join(", ")}`
  }: ${operation.id}`;
  const visible = operation.scopes.every((scope) => scopeGranted(granted, scope));
  await findings.check(`${label} lookups`, async () => {
    for (const [route, found] of Object.entries(await probe.lookups(operation))) {
      assert.equal(found, visible, `${route} ${found ? "finds" : "does not find"} it`);
    }
  });
  let outcomes: Outcome[] = [];
  await findings.check(label, async () => {
    outcomes = await probe.run(operation, OPERATION_SAMPLES[operation.id].args(context));
  });
  for (const outcome of outcomes) {
    await findings.check(`${label} via ${outcome.route}`, () => {
      try {
        if (lacking.length === 0) assertAllowed(outcome, operation, networkAllowed);
        else assertRefused(outcome, operation, granted);
      } catch (error) {
        throw new Error(`${(error as Error).message} — got ${outcome.raw.slice(0, 400)}`);
      }
    });
  }
}

/** Checks every operation that needs `scope` on a surface whose caller lacks it. */
async function refuseAll(
  probe: SurfaceProbe,
  scope: string,
  granted: readonly string[],
  context: SampleContext,
  findings: Findings,
  operations: readonly Operation[] = OPERATIONS,
): Promise<void> {
  for (const operation of operations) {
    if (!needs(operation).includes(scope) || !probe.reaches(operation)) continue;
    await checkOperation(probe, operation, granted, context, findings, false);
  }
}

/**
 * Checks every operation with every scope `granted`: reads a few at once,
 * then writes one by one in catalog order (each sample has its own target;
 * the order only keeps writers out of one another's way). A scope the
 * surface never grants (`net` over HTTP) keeps its operations refused.
 */
async function allowAll(
  probe: SurfaceProbe,
  granted: readonly string[],
  context: SampleContext,
  networkAllowed: boolean,
  findings: Findings,
  readsAtOnce: number,
): Promise<void> {
  await checkListings(probe, granted, findings, `${probe.name} with every scope`);
  const reached = OPERATIONS.filter((op) => probe.reaches(op));
  const check = (op: Operation) =>
    checkOperation(probe, op, granted, context, findings, networkAllowed);
  const reads = reached.filter((op) => op.annotations.readOnlyHint === true);
  await inPool(readsAtOnce, reads.map((op) => () => check(op)));
  for (const op of reached.filter((op) => op.annotations.readOnlyHint !== true)) await check(op);
}

function mcpProbe(surface: McpSurfaceName, name: string, port: McpPort): SurfaceProbe {
  switch (surface) {
    case "dex":
      return dexProbe(name, port, catalog);
    case "composite":
      return compositeProbe(name, port, catalog);
    case "full":
      return fullProbe(name, port, catalog);
  }
}

/** A data home and the document root its write operations write into. */
interface Store {
  home: AgentHome;
  root: string;
}

/** A fresh copy of the seeded store, for one surface's positive controls. */
async function copyStore(seeded: Store, name: string): Promise<Store> {
  const base = `${seeded.home.home}/positive-${name}`;
  await copy(seeded.home.dataHome, `${base}/data`);
  await copy(seeded.root, `${base}/root`);
  const home: AgentHome = {
    home: seeded.home.home,
    dataHome: `${base}/data`,
    env: { ...seeded.home.env, VANTAGE_HOME: `${base}/data`, VANTAGE_ROOTS: `${base}/root` },
    cleanup: () => Promise.resolve(),
  };
  return { home, root: `${base}/root` };
}

/** The processes a test started and has not stopped yet, for its `finally`. */
class Running {
  readonly sessions = new Set<StdioSession>();
  readonly servers = new Set<ServeProcess>();

  /** Runs `body` against `mcp-serve --surface X --scopes …` on `store`, then closes it. */
  async stdio(
    store: Store,
    surface: McpSurfaceName,
    scopes: readonly string[],
    body: (probe: SurfaceProbe) => Promise<void>,
  ): Promise<void> {
    const session = await connectStdio(["--surface", surface, "--scopes", scopes.join(",")], {
      home: store.home.dataHome,
      env: { HOME: store.home.home, DENO_DIR: store.home.env.DENO_DIR, VANTAGE_ROOTS: store.root },
    });
    this.sessions.add(session);
    try {
      await body(mcpProbe(surface, `mcp stdio ${surface}`, stdioPort(session)));
    } finally {
      this.sessions.delete(session);
      await session.close();
    }
  }

  /** Runs `body` against a real `serve` on `store`, then stops it (it must exit 0). */
  async serve(store: Store, body: (server: ServeProcess) => Promise<void>): Promise<void> {
    const server = await startServe(store.home, ["--no-tail"], [store.root]);
    this.servers.add(server);
    try {
      await body(server);
    } finally {
      this.servers.delete(server);
      assert.equal(await server.stop(), 0, server.stderr());
    }
  }

  async stopAll(): Promise<void> {
    for (const session of this.sessions) await session.close().catch(() => {});
    for (const server of this.servers) await server.stop().catch(() => 0);
  }
}

function cliFlags(store: Store): string[] {
  const paths = { ...resolvePaths(store.home.dataHome), userHome: store.home.home };
  return permissionFlags("cli", paths, [store.root]);
}

/**
 * The refused calls, one job per process: an `mcp-serve` per (surface,
 * scope left out), one job for every HTTP route of the one `serve`, and a
 * `vantage` process per CLI call.
 */
function refusedJobs(
  store: Store,
  server: ServeProcess,
  context: SampleContext,
  findings: Findings,
  running: Running,
): Array<() => Promise<void>> {
  const jobs: Array<() => Promise<void>> = [];
  for (const surface of MCP_SURFACES) {
    for (const scope of MISSING) {
      const reached = OPERATIONS.some((op) =>
        needs(op).includes(scope) && (surface !== "composite" || compositeReaches(catalog, op))
      );
      // No call to refuse there: the HTTP run of the same surface still checks its listing.
      if (!reached) continue;
      const label = `mcp stdio ${surface} without ${scope}`;
      jobs.push(() =>
        findings.check(label, () =>
          running.stdio(store, surface, allBut(scope), async (probe) => {
            await checkListings(probe, allBut(scope), findings, label);
            await refuseAll(probe, scope, allBut(scope), context, findings);
          }))
      );
    }
  }
  jobs.push(async () => {
    for (const scope of MISSING) {
      const asked = httpScopes(allBut(scope));
      const probes = [
        httpOpsProbe(server.url, asked),
        ...MCP_SURFACES.map((surface) =>
          mcpProbe(surface, `http /mcp ${surface}`, httpMcpPort(server.url, surface, asked))
        ),
      ];
      for (const probe of probes) {
        await checkListings(probe, asked, findings, `${probe.name} without ${scope}`);
        await refuseAll(probe, scope, asked, context, findings);
      }
    }
    await findings.check("http asking for a scope serve does not grant", async () => {
      const response = await fetch(`${server.url}/api/ops/docs.download`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-vantage-scopes": KNOWN_SCOPES.join() },
        body: JSON.stringify(OPERATION_SAMPLES["docs.download"].args(context)),
      });
      const body = await response.json();
      assert.equal(response.status, 403, JSON.stringify(body));
      assert.equal(body.error.kind, "forbidden");
      assert.match(body.error.message, /asks for net, which this server does not grant/);
    });
  });
  const flags = cliFlags(store);
  for (const scope of MISSING) {
    const probe = cliProbe(allBut(scope), store.home.env, flags);
    jobs.push(() => checkListings(probe, allBut(scope), findings, `cli without ${scope}`));
    for (const operation of OPERATIONS.filter((op) => needs(op).includes(scope))) {
      jobs.push(() => refuseAll(probe, scope, allBut(scope), context, findings, [operation]));
    }
  }
  return jobs;
}

/**
 * The positive controls: each surface on its own copy of the seeded store,
 * every operation with every scope the surface can grant. Each copy must
 * then differ from the seeded store, so the fingerprint that found nothing
 * after the refusals does see what these samples write.
 */
function positiveJobs(
  seeded: Store,
  seededFingerprint: { data: DataSnapshot; root: DataSnapshot },
  context: (root: string) => SampleContext,
  findings: Findings,
  running: Running,
): Array<() => Promise<void>> {
  const run = (name: string, body: (store: Store) => Promise<void>) => () =>
    findings.check(name, async () => {
      const store = await copyStore(seeded, name.replaceAll(/[^a-z]+/g, "-"));
      await body(store);
      const data = describeChanges(seededFingerprint.data, await snapshotData(store.home.dataHome));
      assert.ok(data.some((change) => change.includes("table docs_documents")), data.join("\n"));
      assert.ok(data.some((change) => change.includes("table docs_sessions")), data.join("\n"));
      const root = describeChanges(seededFingerprint.root, await snapshotData(store.root));
      assert.ok(root.some((change) => change.startsWith("added restored/")), root.join("\n"));
    });
  // The CLI job is the longest (a process per call): it starts first.
  const jobs = [
    run("cli", (store) => {
      const probe = cliProbe(KNOWN_SCOPES, store.home.env, cliFlags(store));
      const network = hasNetwork("cli", store);
      return allowAll(probe, KNOWN_SCOPES, context(store.root), network, findings, 3);
    }),
  ];
  for (const surface of MCP_SURFACES) {
    jobs.push(
      run(
        `mcp stdio ${surface}`,
        (store) =>
          running.stdio(store, surface, KNOWN_SCOPES, (probe) => {
            const network = hasNetwork("mcp-serve", store);
            return allowAll(probe, KNOWN_SCOPES, context(store.root), network, findings, 4);
          }),
      ),
    );
  }
  for (const surface of ["api", ...MCP_SURFACES] as const) {
    jobs.push(run(`http ${surface}`, (store) =>
      running.serve(store, (server) => {
        const granted = httpScopes(KNOWN_SCOPES);
        const probe = surface === "api"
          ? httpOpsProbe(server.url, granted)
          : mcpProbe(surface, `http /mcp ${surface}`, httpMcpPort(server.url, surface, granted));
        const network = hasNetwork("serve", store);
        return allowAll(probe, granted, context(store.root), network, findings, 4);
      })));
  }
  return jobs;
}

Deno.test("every operation on every surface: a missing scope refuses it and writes nothing", async (t) => {
  const home = await makeAgentHome();
  const seeded: Store = { home, root: `${home.home}/root` };
  seeded.home.env.VANTAGE_ROOTS = seeded.root;
  const download = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(DOWNLOAD_TEXT, { headers: { "content-type": "text/plain" } }),
  );
  const context = (root: string): SampleContext => ({
    root,
    agentSession: FIXTURE_SESSION,
    downloadUrl: `http://127.0.0.1:${download.addr.port}/artifact.txt`,
  });
  const running = new Running();
  try {
    await t.step("every operation has a sample, and every scope can be granted", () => {
      const unsampled = OPERATIONS.map((op) => op.id).filter((id) => !(id in OPERATION_SAMPLES));
      assert.deepEqual(unsampled, [], "add a sample to tests/scopes/operation_samples.ts");
      const stale = Object.keys(OPERATION_SAMPLES).filter((id) => catalog.get(id) === undefined);
      assert.deepEqual(stale, [], "samples for operations the catalog no longer has");
      for (const operation of OPERATIONS) {
        for (const scope of needs(operation)) {
          assert.ok(KNOWN_SCOPES.includes(scope), `${operation.id} needs unknown scope ${scope}`);
        }
      }
    });

    await writeRoot(seeded.root);
    await seedStore(home, seeded.root);
    const before = {
      data: await snapshotData(home.dataHome),
      root: await snapshotData(seeded.root),
    };

    await t.step("a caller missing a scope a call needs is refused on every surface", async () => {
      const findings = new Findings();
      await running.serve(
        seeded,
        (server) =>
          inPool(
            PROCESSES_AT_ONCE,
            refusedJobs(seeded, server, context(seeded.root), findings, running),
          ),
      );
      assert.deepEqual(findings.failures, []);
    });

    await t.step(
      "and nothing was written: data home files, database rows, document root",
      async () => {
        assert.ok(before.data.databases.has("vantage.db"), "the fingerprint reads the store");
        assert.deepEqual(describeChanges(before.data, await snapshotData(home.dataHome)), []);
        assert.deepEqual(describeChanges(before.root, await snapshotData(seeded.root)), []);
      },
    );

    await t.step("with every scope the same calls run, each surface on a copy", async () => {
      const findings = new Findings();
      await inPool(PROCESSES_AT_ONCE, positiveJobs(seeded, before, context, findings, running));
      assert.deepEqual(findings.failures, []);
    });
  } finally {
    await running.stopAll();
    await download.shutdown();
    await home.cleanup();
  }
});
