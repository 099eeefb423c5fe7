import assert from "node:assert/strict";
import { makeAgentHome } from "../helpers/agent_home.ts";
import { type McpProcess, startMcpProcess } from "../helpers/mcp_process.ts";
import { type ServeProcess, startServe } from "../helpers/serve_process.ts";
import {
  checkStore,
  cliAdd,
  cliHook,
  freshFolder,
  httpAdd,
  httpHook,
  Ledger,
  mcpAdd,
  sha256,
  vantage,
} from "./writers.ts";

/** How long every writer keeps writing (`VANTAGE_STRESS_SECONDS`, default 30). */
const SECONDS = Number(Deno.env.get("VANTAGE_STRESS_SECONDS") ?? "30");

Deno.test({
  name:
    `serve, two mcp-serve, the CLI and hooks write one data home at once for ${SECONDS} s: every confirmed write is there and every file is sound`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const home = await makeAgentHome({ fixtures: false });
    const root = await Deno.makeTempDir({ prefix: "vantage-stress-src-" });
    home.env.VANTAGE_ROOTS = root;
    const ledger = new Ledger();
    let serve: ServeProcess | undefined;
    const mcps: McpProcess[] = [];
    try {
      serve = await startServe(home, ["--no-tail"], [root]);
      const url = serve.url;
      mcps.push(await startMcpProcess(home, [root]), await startMcpProcess(home, [root]));
      const deadline = Date.now() + SECONDS * 1000;
      const loop = async (write: () => Promise<void>) => {
        while (Date.now() < deadline) {
          try {
            await write();
          } catch (error) {
            // Every process stays up in this test: any failure to write is a fault.
            ledger.errors.push(String(error));
          }
        }
      };
      await Promise.all([
        loop(() => httpAdd(url, ledger)),
        loop(() => httpAdd(url, ledger)),
        loop(() => httpHook(url, ledger)),
        loop(() => cliHook(home, url, ledger)),
        // One agent adds a 400-file tree (a third pack-sized binaries) while everyone else writes.
        (async () => {
          await treeAdd(mcps[0], root, ledger);
          await loop(() => mcpAdd(mcps[0], root, ledger));
        })(),
        loop(() => mcpAdd(mcps[1], root, ledger)),
        loop(() => cliAdd(home, root, ledger).done),
        loop(() => cliAdd(home, root, ledger).done),
      ]);
      for (const mcp of mcps.splice(0)) await mcp.close();
      // A graceful stop replays whatever hooks spooled while the server was slow to answer.
      assert.equal(await serve.stop(), 0, serve.stderr());
      serve = undefined;

      assert.deepEqual(ledger.errors, []);
      const check = checkStore(home.dataHome, ledger);
      assert.deepEqual(check.problems, []);
      // And as a user would check it: every chunk read back and hashed, packs included.
      const doctor = await vantage(home, ["doctor", "--store", "--json"]);
      assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
      assert.equal(JSON.parse(doctor.stdout).ok, true, doctor.stdout);
      console.log(
        `writes attempted ${
          JSON.stringify(ledger.attempts)
        }; confirmed ${ledger.docs.size} documents, ${ledger.hookSessions.size} hooks; store: ${check.documents} documents, ${check.packedChunks} chunks in packs, ${check.events} events; files checked: ${check.files.length}`,
      );
      // The run really exercised what it claims to.
      assert.ok(ledger.docs.size >= 60, `only ${ledger.docs.size} documents confirmed`);
      assert.ok(check.packedChunks >= 20, `only ${check.packedChunks} chunks in packs`);
      assert.ok(ledger.hookSessions.size >= 20, `only ${ledger.hookSessions.size} hooks`);
      for (const kind of ["http_add", "mcp_add", "cli_add", "http_hook", "cli_hook"]) {
        assert.ok((ledger.attempts[kind] ?? 0) >= 3, `${kind} ran ${ledger.attempts[kind]} times`);
      }
    } finally {
      for (const mcp of mcps) await mcp.kill("SIGKILL");
      await serve?.stop("SIGKILL");
      await home.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  },
});

/** Adds a tree of 400 files through `mcp` and records every document it reports. */
async function treeAdd(mcp: McpProcess, root: string, ledger: Ledger): Promise<void> {
  const tree = `${root}/tree`;
  const files = new Map<string, Uint8Array>();
  for (let i = 0; i < 134; i++) {
    for (const [path, bytes] of await freshFolder(tree, `t${i}`)) files.set(path, bytes);
  }
  ledger.count("mcp_tree_add");
  const report = await mcp.callTool("docs_add", { path: tree });
  assert.equal(report.files_scanned, files.size, JSON.stringify(report).slice(0, 500));
  assert.equal(report.documents_added, files.size);
  // The report lists the first documents only; the store check covers them all by their bytes.
  for (const bytes of files.values()) ledger.docs.set(sha256(bytes), bytes);
}
