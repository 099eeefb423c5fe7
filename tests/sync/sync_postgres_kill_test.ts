/**
 * `vantage sync` killed (`kill -9`) half-way through a laptop's documents to a team `serve` on
 * PostgreSQL, and run again: nothing duplicated, nothing missing. Real processes: the server
 * with a person from the real `vantage team add-user`, the real `vantage sync` under the CLI's
 * shipped permission set, killed once the server has acknowledged some document batches but not
 * all. The second run goes on from the last acknowledged batch (what the server stored of the
 * batch in flight is found unchanged); then the team's database holds every document version of
 * the laptop once, hers, with its tags and the same bytes, and a third run sends nothing.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { resolvePaths } from "../../src/core/config.ts";
import { permissionFlags } from "../../src/core/permissions.ts";
import { HashedEmbedder } from "../../src/docs/hashed_embedder.ts";
import { ingestInline } from "../../src/docs/mod.ts";
import { vantageServices } from "../../src/ops/runtime.ts";
import { DATABASE } from "../../src/ops/service_keys.ts";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { MAIN } from "../helpers/mcp_stdio.ts";
import {
  sharedPostgresCluster,
  skipWithoutPostgres,
  TEST_CONNECT_TIMEOUT_S,
} from "../helpers/postgres_cluster.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";
import { laptopDocuments, teamDocuments } from "./held_documents.ts";
import { rows, syncCursor } from "./team_fixture.ts";

/** Binaries of this size: eight or so fill a documents batch (8 MiB of JSON, base64 inside). */
const BINARY_BYTES = 700 * 1024;
const BINARIES = 40;
const NOTES = 6;

/** `length` bytes that repeat nowhere in them, different for each seed (xorshift32). */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = (0x9e3779b9 ^ (seed * 0x85ebca6b)) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

/** Fills the laptop's store with binaries (many batches) and a few tagged notes. */
async function fillLaptop(home: { home: string; dataHome: string }) {
  const services = vantageServices({ ...resolvePaths(home.dataHome), userHome: home.home });
  try {
    const db = services.get(DATABASE);
    const options = { session: null, embedder: new HashedEmbedder(), now: Date.now() };
    await ingestInline(
      db,
      Array.from({ length: BINARIES }, (_, i) => ({
        name: `captures/capture-${i}.bin`,
        bytes: noise(BINARY_BYTES, i + 1),
      })),
      options,
    );
    await ingestInline(
      db,
      Array.from({ length: NOTES }, (_, i) => ({
        name: `notes/note-${i}.md`,
        bytes: new TextEncoder().encode(`# Note ${i}\n\n` + `pangolin scale ${i} `.repeat(200)),
      })),
      { ...options, tags: ["field"] },
    );
    return await laptopDocuments(services, "ada", "ada-laptop");
  } finally {
    services.close();
  }
}

Deno.test({
  name:
    "vantage sync killed half-way through documents to a PostgreSQL team server, run again: each once",
  ignore: skipWithoutPostgres("vantage sync killed half-way to a team server on PostgreSQL"),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const store = `${await sharedPostgresCluster()
      .createDatabase()}?connect_timeout=${TEST_CONNECT_TIMEOUT_S}`;
    const team = await makeAgentHome({ fixtures: false });
    team.env.VANTAGE_STORE = store;
    const laptop = await makeAgentHome({ fixtures: false });
    const pg = postgres(store, { max: 1, onnotice: () => {} });
    let server: ServeProcess | undefined;
    try {
      const laptopDocs = await fillLaptop(laptop);
      assert.equal(laptopDocs.length, BINARIES + NOTES);
      const added = await runVantage(["team", "add-user", "ada"], { env: team.env });
      assert.equal(added.code, 0, added.stderr);
      server = await startServe(team);
      const env = {
        ...laptop.env,
        VANTAGE_TEAM_URL: server.url,
        VANTAGE_TEAM_TOKEN: added.stdout.trim(),
        VANTAGE_HOSTNAME: "ada-laptop",
      };
      const paths = { ...resolvePaths(laptop.dataHome), userHome: laptop.home };
      const sync = () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", ...permissionFlags("cli", paths, []), MAIN, "sync", "--json"],
          env,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      const onServer = async () =>
        Number((await pg`SELECT count(*) AS n FROM docs_documents`)[0].n);

      // Kill it once a documents batch was acknowledged, before the last.
      const first = sync();
      let at = 0;
      const deadline = Date.now() + 180_000;
      while (Date.now() < deadline) {
        at = syncCursor(laptop.dataHome, "documents");
        if (at > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      first.kill("SIGKILL");
      const killed = await first.output();
      assert.equal(killed.signal, "SIGKILL", new TextDecoder().decode(killed.stderr));
      at = syncCursor(laptop.dataHome, "documents");
      assert.ok(at > 0, "a documents batch was acknowledged before the kill");
      const stored = await onServer();
      assert.ok(stored < laptopDocs.length, `killed half-way: ${stored} of ${laptopDocs.length}`);

      const second = await sync().output();
      assert.equal(second.code, 0, new TextDecoder().decode(second.stderr));
      const summary = JSON.parse(new TextDecoder().decode(second.stdout));
      assert.equal(summary.person, "ada");
      // It went on from the last acknowledged batch rather than from the start.
      const after = rows(laptop.dataHome, "SELECT id FROM docs_documents WHERE id > ?", at).length;
      assert.equal(summary.documents.sent, after);
      assert.ok(after < laptopDocs.length);
      assert.equal(
        summary.documents.added + summary.documents.unchanged,
        summary.documents.sent,
        JSON.stringify(summary.documents),
      );
      assert.equal(summary.refused.records, 0);
      assert.deepEqual(summary.invalid, []);

      // Each version once, hers, with its tags and the laptop's bytes.
      assert.equal(await onServer(), laptopDocs.length);
      assert.deepEqual(await teamDocuments(store), laptopDocs);

      // A third run has nothing to send.
      const third = await sync().output();
      assert.equal(third.code, 0, new TextDecoder().decode(third.stderr));
      const nothing = JSON.parse(new TextDecoder().decode(third.stdout));
      assert.equal(nothing.batches, 0);
      assert.equal(nothing.documents.sent, 0);
    } finally {
      if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
      await pg.end();
      await laptop.cleanup();
      await team.cleanup();
    }
  },
});
