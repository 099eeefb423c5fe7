import assert from "node:assert/strict";
import { runVantage } from "../helpers/cli.ts";
import { readTree, writeTree } from "./harness.ts";

Deno.test("add, search, grep, get, ls, restore and rm from the command line", async () => {
  const home = await Deno.makeTempDir({ prefix: "vantage-cli-docs-" });
  const source = await Deno.makeTempDir({ prefix: "vantage-cli-src-" });
  const output = await Deno.makeTempDir({ prefix: "vantage-cli-out-" });
  // The output folder is opened for writing, as a user would with VANTAGE_ROOTS.
  const env = { ...Deno.env.toObject(), VANTAGE_HOME: home, VANTAGE_ROOTS: `${source}:${output}` };
  const vantage = (args: string[], stdin?: string) => runVantage(args, { env, stdin });
  try {
    await writeTree(source, {
      "guide.md": "# Deploy guide\n\nRoll out with blue-green deploys.\nRollback is one command.\n",
      "src/deploy.ts": "export function rollback() {\n  return 'rolled back';\n}\n",
      "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]),
    });
    const add = await vantage(["add", source, "--collection", "ops", "--tags", "deploy,guide"]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stdout, /3 added, 0 updated, 0 unchanged/);
    const stdin = await vantage(
      ["add", "-", "--name", "memo.txt", "--json"],
      "remember the rollback drill\n",
    );
    assert.equal(stdin.code, 0, stdin.stderr);
    const memoHash = JSON.parse(stdin.stdout).hash as string;

    const search = await vantage(["search", "rollback", "deploys", "-n"]);
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /guide\.md/);
    assert.match(search.stdout, /\d+: /);
    const json = await vantage(["search", "rollback", "--type", "keyword", "--json"]);
    assert.equal(JSON.parse(json.stdout).type, "keyword");

    const grep = await vantage(["grep", "-n", "-i", "ROLLBACK"]);
    assert.equal(grep.code, 0, grep.stderr);
    assert.match(grep.stdout, /guide\.md:4:Rollback is one command\./);
    assert.match(grep.stdout, /deploy\.ts:1:export function rollback\(\) \{/);
    const counted = await vantage(["grep", "-c", "rollback"]);
    assert.match(counted.stdout, /deploy\.ts:1/);
    const nothing = await vantage(["grep", "zebra"]);
    assert.equal(nothing.code, 1);

    const get = await vantage(["get", memoHash.slice(0, 12)]);
    assert.equal(get.stdout, "remember the rollback drill\n");
    const info = await vantage(["get", "guide.md", "--info"]);
    assert.deepEqual(JSON.parse(info.stdout).collections, ["ops"]);
    const missing = await vantage(["get", "nothing-here.md"]);
    assert.equal(missing.code, 4);
    assert.match(missing.stderr, /no stored document matches name 'nothing-here\.md'/);

    const ls = await vantage(["ls", "--collection", "ops", "--paths-only"]);
    assert.deepEqual(ls.stdout.trim().split("\n").sort(), [
      `${source}/guide.md`,
      `${source}/logo.png`,
      `${source}/src/deploy.ts`,
    ]);

    const restore = await vantage(["restore", "--collection", "ops", "-o", output]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /restored 3 of 3/);
    const before = await readTree(source);
    const after = await readTree(output);
    for (const [path, bytes] of before) assert.deepEqual(after.get(path), bytes, path);

    const rm = await vantage(["rm", "*.png"]);
    assert.equal(rm.code, 0, rm.stderr);
    assert.match(rm.stdout, /deleted .*logo\.png/);
    const after_rm = await vantage(["ls", "--paths-only"]);
    assert.doesNotMatch(after_rm.stdout, /logo\.png/);
    const bad = await vantage(["search"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /give a query/);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(source, { recursive: true });
    await Deno.remove(output, { recursive: true });
  }
});
