import assert from "node:assert/strict";

const root = new URL("..", import.meta.url).pathname;

async function deno(args: string[]) {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  return { code: output.code, text: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

Deno.test("deno publish --dry-run passes (no slow types, license, constraints)", async () => {
  const run = await deno(["publish", "--dry-run", "--allow-dirty"]);
  assert.equal(run.code, 0, run.text);
  assert.match(run.text, /Dry run complete/);
});

Deno.test("deno doc --lint mod.ts passes (every export documented, no private type refs)", async () => {
  const run = await deno(["doc", "--lint", "mod.ts"]);
  assert.equal(run.code, 0, run.text);
});
