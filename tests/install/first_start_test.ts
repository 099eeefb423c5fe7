/**
 * The first start of what an install registers is as fast as every other: `install` runs the
 * registered commands once (so Deno's cache holds their modules and npm packages), the MCP
 * command's first start adds nothing to that cache and prints nothing on stderr, and `doctor`
 * tells a cold cache from a broken command.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { probeMcpServer, type ProbeResult } from "../../src/install/mcp_probe.ts";
import { runVantageCommand, temporaryHome } from "./support.ts";

interface Entry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The parent's environment (certificates, proxies: what reaching the npm registry takes), with
 * Vantage's and Deno's own settings left to the test.
 */
function registryEnvironment(denoDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(Deno.env.toObject())) {
    if (name === "HOME" || name.startsWith("VANTAGE_") || name.startsWith("DENO_")) continue;
    env[name] = value;
  }
  return { ...env, DENO_DIR: denoDir };
}

async function registeredServer(home: string): Promise<Entry> {
  const config = JSON.parse(await Deno.readTextFile(join(home, ".claude.json")));
  return config.mcpServers.vantage as Entry;
}

/** Every file under Deno's cache folder, with its size. */
async function cacheFiles(denoDir: string): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  const walk = async (folder: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        files.set(path.slice(denoDir.length + 1), (await Deno.stat(path)).size);
      }
    }
  };
  await walk(denoDir);
  return files;
}

/**
 * What a start added to Deno's cache or grew in it, leaving out SQLite's shared-memory files
 * (`-shm`), which every process opening the cache's databases maps and touches.
 */
function changedCacheFiles(before: Map<string, number>, after: Map<string, number>): string[] {
  const changed: string[] = [];
  for (const [path, size] of after) {
    if (path.endsWith("-shm")) continue;
    const was = before.get(path);
    if (was === undefined) changed.push(`added ${path}`);
    else if (was !== size) changed.push(`${path}: ${was} -> ${size} bytes`);
  }
  return changed;
}

/** Starts the registered server as Claude Code would: its entry, with the user's HOME. */
function startAsAgent(entry: Entry, home: string): Promise<ProbeResult> {
  return probeMcpServer({ ...entry, env: { ...entry.env, HOME: home } }, {
    timeoutMs: 60_000,
    cwd: home,
    listTools: true,
  });
}

Deno.test("with an empty Deno cache, install warms what it registers: the first start finds every module cached, starts quietly, and doctor passes", async () => {
  const home = await temporaryHome();
  const denoDir = await Deno.makeTempDir({ prefix: "vantage-empty-deno-dir-" });
  try {
    // Everything this install needs comes from the npm registry into the empty cache.
    const install = await runVantageCommand(
      ["install", "--adapter", "claude-code"],
      home,
      registryEnvironment(denoDir),
    );
    assert.equal(install.code, 0, install.stdout + install.stderr);
    assert.match(
      install.stdout,
      /\nFirst start of what the agent runs \(its next start is as fast\):\n {2}mcp server: answered initialize in [\d.]+ m?s and tools\/list \(2 tools\) in [\d.]+ m?s\n {2}hook: ran in [\d.]+ m?s\n$/,
    );
    const entry = await registeredServer(home);
    assert.equal(entry.env.DENO_DIR, denoDir);
    assert.equal(entry.args[1], "--quiet");

    // The agent's first start finds everything in Deno's cache: it adds no file to it (without
    // the warming, Deno transpiled some 350 modules into `gen/` and wrote its code cache during
    // the agent's first start, which then took about 2.2 times a warm one). Only the cache's
    // SQLite journals are touched, as on every start. Times are printed, not asserted: this
    // machine's load decides them, the cache's contents do not depend on it.
    const cached = await cacheFiles(denoDir);
    const first = await startAsAgent(entry, home);
    assert.ok(first.ok, first.detail);
    assert.equal(first.stderr, "", "nothing on stderr during an agent's start");
    const changed = changedCacheFiles(cached, await cacheFiles(denoDir));
    assert.deepEqual(changed, [], "the first start found every module in Deno's cache");
    const warm: number[] = [];
    const listed: number[] = [];
    for (let run = 0; run < 3; run++) {
      const again = await startAsAgent(entry, home);
      assert.ok(again.ok, again.detail);
      warm.push(again.elapsedMs);
      listed.push(again.listedMs!);
    }
    console.log(
      `first start ${first.elapsedMs} ms (tools/list ${first.listedMs} ms); warm starts ${
        warm.join(", ")
      } ms (tools/list ${listed.join(", ")} ms)`,
    );

    const doctor = await runVantageCommand(
      ["doctor", "--json"],
      home,
      registryEnvironment(denoDir),
    );
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    const claude = JSON.parse(doctor.stdout).adapters.find((a: { adapter: string }) =>
      a.adapter === "claude-code"
    );
    const start = claude.checks.find((c: { name: string }) => c.name === "mcp initialize");
    assert.equal(start.status, "ok");
    assert.match(start.detail, /, all from Deno's cache$/);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("doctor tells a cold Deno cache from a broken command, downloading nothing", async () => {
  const home = await temporaryHome();
  const emptyDir = await Deno.makeTempDir({ prefix: "vantage-cold-deno-dir-" });
  try {
    const install = await runVantageCommand(
      ["install", "--adapter", "claude-code", "--no-warm"],
      home,
    );
    assert.equal(install.code, 0, install.stderr);
    assert.doesNotMatch(install.stdout, /First start/);
    const file = join(home, ".claude.json");
    const config = JSON.parse(await Deno.readTextFile(file));
    const entry = config.mcpServers.vantage as Entry;

    // The same command with a cache that holds nothing: cold, not broken.
    config.mcpServers.vantage = { ...entry, env: { ...entry.env, DENO_DIR: emptyDir } };
    await Deno.writeTextFile(file, JSON.stringify(config, null, 2) + "\n");
    const cold = await runVantageCommand(["doctor", "--adapter", "claude-code"], home);
    assert.equal(cold.code, 1, cold.stdout);
    assert.match(
      cold.stdout,
      /✘ mcp initialize: cold cache, not a broken command: \S+ lacks what the command needs \(.*not found in cache.*\), so the agent's first start would download it, past its start-up limit\n {6}fix: `vantage install --adapter claude-code` again: it runs the command once to fill the cache/,
    );
    // Nothing was downloaded into it.
    const packages = join(emptyDir, "npm", "registry.npmjs.org");
    assert.deepEqual(
      [...(function* () {
        try {
          yield* Deno.readDirSync(packages);
        } catch {
          // No registry folder at all.
        }
      })()],
      [],
    );

    // A command that cannot start whatever the cache holds: broken, not cold.
    config.mcpServers.vantage = { ...entry, args: [...entry.args, "--surface", "nope"] };
    await Deno.writeTextFile(file, JSON.stringify(config, null, 2) + "\n");
    const broken = await runVantageCommand(["doctor", "--adapter", "claude-code"], home);
    assert.equal(broken.code, 1, broken.stdout);
    assert.match(
      broken.stdout,
      /✘ mcp initialize: the command does not start: the server exited without answering initialize; stderr: .*nope/,
    );
    assert.doesNotMatch(broken.stdout, /cold cache/);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(emptyDir, { recursive: true });
  }
});
