import assert from "node:assert/strict";
import { denoDir } from "../helpers/agent_home.ts";
import { runVantage } from "../helpers/cli.ts";

// A throwaway HOME as well as data home: no command run here may touch the real user's files.
const home = await Deno.makeTempDir({ prefix: "vantage-cli-" });
const env = { HOME: home, VANTAGE_HOME: `${home}/.vantage`, DENO_DIR: denoDir() };

Deno.test("help lists every command; every command has --help", async () => {
  const top = await runVantage(["--help"], { env });
  assert.equal(top.code, 0);
  for (const name of ["serve", "mcp-serve", "install", "hook", "call", "ops", "version"]) {
    assert.match(top.stdout, new RegExp(`\\n  ${name} `));
    const help = await runVantage([name, "--help"], { env });
    assert.equal(help.code, 0, name);
    assert.match(help.stdout, new RegExp(`Usage: vantage ${name}`));
  }
});

Deno.test("version prints plain and JSON", async () => {
  const plain = await runVantage(["version"], { env });
  assert.match(plain.stdout, /^vantage \d+\.\d+\.\d+\n$/);
  const json = await runVantage(["version", "--json"], { env });
  assert.match(JSON.parse(json.stdout).version, /^\d+\.\d+\.\d+$/);
});

Deno.test("unknown commands and flags fail with one clear line", async () => {
  const unknown = await runVantage(["frobnicate"], { env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^vantage: unknown command 'frobnicate'; commands: serve, /);
  assert.equal(unknown.stderr.trim().split("\n").length, 1);
  const flag = await runVantage(["ops", "--nope"], { env });
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /Unknown option '--nope' \(see 'vantage ops --help'\)/);
});

Deno.test("ops lists and searches the catalog", async () => {
  const list = await runVantage(["ops"], { env });
  assert.equal(list.code, 0);
  assert.match(list.stdout, /dex\.describe\s+Describe operations/);
  const search = await runVantage(["ops", "cassettes", "--json"], { env });
  const parsed = JSON.parse(search.stdout);
  assert.equal(parsed.results[0].operation_id, "dex.list_cassettes");
  const badCassette = await runVantage(["ops", "--cassette", "nope"], { env });
  assert.equal(badCassette.code, 2);
  assert.match(badCassette.stderr, /unknown cassette 'nope'/);
});

Deno.test("call runs operations from an argument or stdin", async () => {
  const ok = await runVantage(["call", "dex.describe", '{"target":"dex.describe"}'], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).operation_id, "dex.describe");
  const piped = await runVantage(["call", "dex.list_cassettes", "-"], { env, stdin: "{}" });
  assert.equal(piped.code, 0, piped.stderr);
  assert.ok(Array.isArray(JSON.parse(piped.stdout).cassettes));
  const envelope = await runVantage(["call", "dex.list_cassettes", "--json"], { env });
  assert.equal(JSON.parse(envelope.stdout).source, "builtin");
});

Deno.test("call refuses malformed JSON, non-objects, unknown ops and scopes that grant nothing", async () => {
  const malformed = await runVantage(["call", "dex.describe", "{target:"], { env });
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /^vantage call: arguments are not valid JSON/);
  const array = await runVantage(["call", "dex.describe", "[1]"], { env });
  assert.equal(array.code, 2);
  assert.match(array.stderr, /must be a JSON object/);
  const unknown = await runVantage(["call", "dex.nope"], { env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no operation 'dex.nope'/);
  const empty = await runVantage(["call", "dex.describe", "--scopes", ","], { env });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /grants nothing/);
  const bogus = await runVantage(["call", "dex.describe", "--scopes", "root"], { env });
  assert.equal(bogus.code, 2);
  assert.match(bogus.stderr, /unknown scope 'root'/);
  const forbidden = await runVantage(["call", "dex.describe", "--scopes", "docs:read"], { env });
  assert.equal(forbidden.code, 3);
  assert.match(forbidden.stderr, /needs scope dex:read/);
  const domain = await runVantage(["call", "dex.describe", '{"target":"zzz"}'], { env });
  assert.equal(domain.code, 1);
  assert.match(domain.stderr, /dex.describe failed: no operation you may run is called 'zzz'/);
});

Deno.test("mcp-serve refuses unknown surfaces and empty scopes before starting", async () => {
  const surface = await runVantage(["mcp-serve", "--surface", "tiny"], { env, stdin: "" });
  assert.equal(surface.code, 2);
  assert.match(surface.stderr, /unknown surface 'tiny'; choose one of: dex, composite, full/);
  assert.equal(surface.stdout, "");
  const scopes = await runVantage(["mcp-serve", "--scopes", ""], { env, stdin: "" });
  assert.equal(scopes.code, 2);
  assert.match(scopes.stderr, /grants nothing/);
});

Deno.test("mcp-serve exits cleanly when stdin closes", async () => {
  const run = await runVantage(["mcp-serve"], { env, stdin: "" });
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "");
});

Deno.test("install needs an adapter; serve refuses a bad port; hook never fails the agent", async () => {
  const install = await runVantage(["install"], { env });
  assert.equal(install.code, 2);
  assert.match(install.stderr, /missing --adapter/);
  const serve = await runVantage(["serve", "--port", "http"], { env });
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, /--port must be a port number/);
  const notJson = await runVantage(["hook", "--agent", "claude-code"], { env, stdin: "not json" });
  assert.equal(notJson.code, 0);
  assert.equal(notJson.stdout, "");
  assert.match(notJson.stderr, /payload is not JSON/);
  const badFlag = await runVantage(["hook", "--what"], { env, stdin: "{}" });
  assert.equal(badFlag.code, 0);
  assert.match(badFlag.stderr, /Unknown option '--what'/);
});

Deno.test("pricing prints the table, its sources, the override file, and how models are priced", async () => {
  const dataHome = await Deno.makeTempDir({ prefix: "vantage-pricing-" });
  const local = { ...env, VANTAGE_HOME: dataHome };
  try {
    const plain = await runVantage(["pricing"], { env: local });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /as published on \d{4}-\d{2}-\d{2}/);
    assert.match(plain.stdout, /https:\/\/platform\.claude\.com\/docs\/en\/about-claude\/pricing/);
    assert.match(plain.stdout, /Overrides: none \(.*pricing\.json does not exist\)/);
    assert.match(plain.stdout, /\nclaude-sonnet-4-6 +3 +15 +0\.3 +3\.75 +6 /);
    assert.match(plain.stdout, /\ngpt-5\.3-codex +1\.75 +14 +0\.175 +0\n/);

    await Deno.writeTextFile(
      `${dataHome}/pricing.json`,
      '{"my-llm": {"input": 1, "output": 2, "cache_read": 0.1, "cache_write": 0}}',
    );
    const withFile = await runVantage(["pricing"], { env: local });
    assert.match(withFile.stdout, /Overrides: .*pricing\.json \(1 row, ahead of the table\)/);
    assert.match(withFile.stdout, /\nmy-llm \* +1 +2 +0\.1 +0\n/);

    const models = await runVantage(["pricing", "gpt-5.7-codex", "my-llm-8b", "mystery-1"], {
      env: local,
    });
    assert.equal(models.code, 0, models.stderr);
    assert.deepEqual(models.stdout.trim().split("\n").map((line) => line.split(" (")[0]), [
      "gpt-5.7-codex: family fallback to gpt-5.3-codex",
      "my-llm-8b: my-llm",
      "mystery-1: unpriced",
    ]);
    const json = JSON.parse((await runVantage(["pricing", "--json", "o3"], { env: local })).stdout);
    assert.equal(json.models[0].key, "o3");
    assert.equal(json.overrides["my-llm"].output, 2);
    assert.ok(json.sources.anthropic.urls.length > 0);

    await Deno.writeTextFile(`${dataHome}/pricing.json`, '{"bad": {"input": "x"}}');
    const bad = await runVantage(["pricing"], { env: local });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /'bad' needs a number ≥ 0 for 'input'/);
  } finally {
    await Deno.remove(dataHome, { recursive: true });
  }
});

// Declared last, so it runs after every test above in this file.
Deno.test("the throwaway HOME is removed", async () => {
  await Deno.remove(home, { recursive: true });
});
