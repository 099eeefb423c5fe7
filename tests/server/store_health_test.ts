/**
 * The real `serve` (shipped permissions, real port) on damaged stores:
 * `/api/health` says `degraded`, with the reasons, once damage is met or its
 * start-up check finds a damaged file, and `ok` again after a repair.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../../src/store/database.ts";
import { openMessageIndex } from "../../src/store/agent/message_index.ts";
import { messageIndexPath } from "../../src/store/agent/schema.ts";
import { type AgentHome, makeAgentHome } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";
import { startServe } from "../helpers/serve_process.ts";
import { chunksOfContent, corruptPages, overwriteFile, packFile } from "../docs/damage.ts";
import { randomBytes } from "../docs/harness.ts";

interface Health {
  status: string;
  reasons: string[];
  pid: number;
}

async function health(url: string): Promise<Health> {
  const response = await fetch(`${url}/api/health`);
  assert.equal(response.status, 200, "a degraded server is still alive");
  return await response.json() as Health;
}

async function callOp(url: string, id: string, args: Record<string, unknown>) {
  const response = await fetch(`${url}/api/ops/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: await response.json() };
}

/** Waits (up to 30 s) until /api/health says `status`. */
async function healthBecomes(url: string, status: string): Promise<Health> {
  const deadline = Date.now() + 30_000;
  let last = await health(url);
  while (last.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await health(url);
  }
  return last;
}

async function addWithCli(home: AgentHome, args: string[]): Promise<void> {
  const added = await runVantage(["add", ...args], { env: home.env });
  assert.equal(added.code, 0, added.stderr);
}

Deno.test("serve: damage met by a read makes /api/health degraded with the reason; a repair makes it ok", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const source = join(home.home, "project");
  await Deno.mkdir(source, { recursive: true });
  const big = join(source, "big.bin");
  Deno.writeFileSync(big, randomBytes(300_000, 31));
  let server;
  try {
    await addWithCli(home, [source]);
    const store = openDatabase(join(home.dataHome, "vantage.db"));
    let chunk;
    try {
      const { hash } = store.prepare("SELECT hash FROM docs_documents WHERE path = ?").get(big) as {
        hash: string;
      };
      chunk = chunksOfContent(store, hash)[2];
    } finally {
      store.close();
    }
    const pack = packFile(home.dataHome, chunk.pack!);
    overwriteFile(pack, chunk.pack_offset! + 10, new Uint8Array(16).fill(3));

    server = await startServe(home, ["--no-tail"], [source]);
    assert.equal((await health(server.url)).status, "ok", "nothing known yet");

    const read = await callOp(server.url, "docs.get", { name: big, include_content: true });
    // An operation that met damage keeps its kind: internal_error, 500.
    assert.equal(read.status, 500, JSON.stringify(read.body));
    assert.match(read.body.operation_error.message, new RegExp(`chunk ${chunk.hash}`));

    const degraded = await health(server.url);
    assert.equal(degraded.status, "degraded");
    const reasons = degraded.reasons.join("\n");
    assert.ok(reasons.includes(`chunk ${chunk.hash}`), reasons);
    assert.ok(reasons.includes(pack), reasons);
    assert.match(reasons, /vantage doctor --store/);

    const status = await callOp(server.url, "docs.status", {});
    assert.equal(status.body.result.damage.status, "degraded");

    const repaired = await callOp(server.url, "docs.repair", {});
    assert.equal(repaired.status, 200, JSON.stringify(repaired.body));
    assert.equal(repaired.body.result.ok, true, JSON.stringify(repaired.body.result));
    assert.equal(repaired.body.result.restored_documents, 1);
    const healed = await health(server.url);
    assert.equal(healed.status, "ok", JSON.stringify(healed));
    assert.deepEqual(healed.reasons, []);
  } finally {
    if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
    await home.cleanup();
  }
});

Deno.test("serve: a store file with damaged pages is reported degraded by its start-up check", async () => {
  const home = await makeAgentHome({ fixtures: false });
  const source = join(home.home, "notes");
  await Deno.mkdir(source, { recursive: true });
  for (let i = 0; i < 200; i++) {
    Deno.writeTextFileSync(join(source, `n${i}.md`), `# n${i}\n\n${"words in a note ".repeat(60)}`);
  }
  let server;
  try {
    await addWithCli(home, [source]);
    const storeFile = join(home.dataHome, "vantage.db");
    corruptPages(storeFile, 8, 4);

    server = await startServe(home, ["--no-tail"], [source]);
    const degraded = await healthBecomes(server.url, "degraded");
    assert.equal(degraded.status, "degraded", JSON.stringify(degraded));
    const reasons = degraded.reasons.join("\n");
    assert.match(reasons, /structural check at server start failed/);
    assert.ok(reasons.includes(storeFile), reasons);

    const verified = await callOp(server.url, "docs.verify", { chunks: false });
    assert.equal(verified.body.result.ok, false);
    assert.equal(verified.body.result.store.status, "damaged");
    assert.match(verified.body.result.what_to_do.join("\n"), /\.recover/);
  } finally {
    if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
    await home.cleanup();
  }
});

Deno.test("serve: a damaged message index does not keep serve down; repair leaves it while serve runs and rebuilds it after", async () => {
  const home = await makeAgentHome({ fixtures: false });
  let server;
  try {
    const storeFile = join(home.dataHome, "vantage.db");
    openDatabase(storeFile).close();
    const index = openMessageIndex(storeFile);
    index.exec("CREATE TABLE padding (x BLOB)");
    index.prepare("INSERT INTO padding VALUES (?)").run(randomBytes(200_000, 9));
    index.close();
    const indexFile = messageIndexPath(storeFile);
    corruptPages(indexFile, 20, 4);

    server = await startServe(home, ["--no-tail"]);
    const degraded = await healthBecomes(server.url, "degraded");
    assert.ok(degraded.reasons.join("\n").includes(indexFile), JSON.stringify(degraded));

    const left = await callOp(server.url, "docs.repair", {});
    assert.equal(left.body.result.message_index.action, "left");
    assert.match(left.body.result.message_index.what_to_do, /stop 'vantage serve'/);
    assert.equal(left.body.result.ok, false);
    assert.equal(await server.stop(), 0, server.stderr());
    server = undefined;

    const repaired = await runVantage(["repair"], { env: home.env });
    assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
    assert.match(repaired.stdout, /message index .*search\.db: rebuilt/);
    const doctor = await runVantage(["doctor", "--store"], { env: home.env });
    assert.equal(doctor.code, 0, doctor.stdout);

    server = await startServe(home, ["--no-tail"]);
    assert.equal((await health(server.url)).status, "ok");
  } finally {
    if (server !== undefined) assert.equal(await server.stop(), 0, server.stderr());
    await home.cleanup();
  }
});
