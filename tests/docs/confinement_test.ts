/**
 * Files written for a caller stay inside VANTAGE_ROOTS and out of the data
 * home, by Vantage's own checks: these tests run under `-A` (so Deno's flags
 * stop nothing) and once under the shipped permissions of `mcp-serve`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { prepareWriteTarget, writeConfined } from "../../src/core/confined_write.ts";
import { VantageError } from "../../src/core/errors.ts";
import { resolvePaths } from "../../src/core/config.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation, type ExecuteResponse } from "../../src/ops/executor.ts";
import { ROOTS, vantageServices } from "../../src/ops/runtime.ts";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";
import { readTree, writeTree } from "./harness.ts";

type Json = Record<string, unknown>;

interface Place {
  /** The one folder opened for writing. */
  root: string;
  /** A folder outside it, that links inside the root point to. */
  outside: string;
  /** The data home (inside the root, as when VANTAGE_ROOTS is the user's home). */
  home: string;
  call(id: string, args: Json): Promise<ExecuteResponse>;
  close(): Promise<void>;
}

const SCOPES = ["docs:read", "docs:write"];

async function place(): Promise<Place> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vantage-root-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "vantage-outside-" }));
  const home = join(root, ".vantage");
  const services = vantageServices(resolvePaths(home)).provide(ROOTS, () => [root]);
  const catalog = builtinCatalog();
  return {
    root,
    outside,
    home,
    call: (id, args) => executeOperation(catalog, id, args, { scopes: SCOPES }, { services }),
    async close() {
      services.close();
      await Deno.remove(root, { recursive: true });
      await Deno.remove(outside, { recursive: true });
    },
  };
}

function errorOf(response: ExecuteResponse): Json {
  if ("result" in response) throw new Error(`expected a refusal: ${JSON.stringify(response)}`);
  if ("error" in response) return response.error as unknown as Json;
  const failure = response.operation_error as unknown as Json;
  return { ...failure, kind: (failure.details as Json | undefined)?.kind ?? "operation_error" };
}

async function addNote(p: Place, name: string, text: string): Promise<string> {
  const added = await p.call("docs.add", { content: text, name, collection: "notes" });
  assert.ok("result" in added, JSON.stringify(added));
  return (added.result as Json).hash as string;
}

Deno.test("export writes inside the roots, and refuses outside, links out, links in place of the file, and the data home", async () => {
  const p = await place();
  try {
    const hash = await addNote(p, "a.md", "alpha\n");
    // Inside the root, folders made as needed.
    const inside = join(p.root, "out", "deep", "a.md");
    const written = await p.call("docs.export", { hash, outputPath: inside });
    assert.ok("result" in written, JSON.stringify(written));
    assert.equal(await Deno.readTextFile(inside), "alpha\n");
    // An existing file is replaced only when asked.
    const again = await p.call("docs.export", { hash, outputPath: inside });
    assert.equal(errorOf(again).kind, "conflict");
    assert.ok(
      "result" in await p.call("docs.export", { hash, outputPath: inside, overwrite: true }),
    );

    // Outside every root.
    const out = errorOf(await p.call("docs.export", { hash, outputPath: join(p.outside, "x") }));
    assert.equal(out.kind, "forbidden");
    assert.match(out.message as string, /outside the folders Vantage may write into/);
    // Through a folder link that leads outside.
    await Deno.symlink(p.outside, join(p.root, "linkdir"));
    const viaLink = errorOf(
      await p.call("docs.export", { hash, outputPath: join(p.root, "linkdir", "x") }),
    );
    assert.equal(viaLink.kind, "forbidden");
    assert.match(viaLink.message as string, /leads to/);
    // A link where the file would be, pointing at a file outside: never written through.
    await Deno.writeTextFile(join(p.outside, "victim"), "untouched\n");
    await Deno.symlink(join(p.outside, "victim"), join(p.root, "linkfile"));
    const overLink = errorOf(
      await p.call("docs.export", {
        hash,
        outputPath: join(p.root, "linkfile"),
        overwrite: true,
      }),
    );
    assert.equal(overLink.kind, "forbidden");
    assert.match(overLink.message as string, /is a link/);
    // Into the data home, although it is inside the root.
    const intoHome = errorOf(
      await p.call("docs.export", {
        hash,
        outputPath: join(p.home, "vantage.db"),
        overwrite: true,
      }),
    );
    assert.equal(intoHome.kind, "forbidden");
    assert.match(intoHome.message as string, /data home/);

    assert.deepEqual([...(await readTree(p.outside)).keys()], ["victim"]);
    assert.equal(await Deno.readTextFile(join(p.outside, "victim")), "untouched\n");
  } finally {
    await p.close();
  }
});

Deno.test("get never writes: outputPath is refused and points to export", async () => {
  const p = await place();
  try {
    const hash = await addNote(p, "b.md", "beta\n");
    const target = join(p.root, "b.md");
    const refused = errorOf(await p.call("docs.get", { hash, outputPath: target }));
    assert.equal(refused.kind, "invalid_arguments");
    assert.match(refused.message as string, /never writes a file.*export/);
    await assert.rejects(Deno.lstat(target), Deno.errors.NotFound);
  } finally {
    await p.close();
  }
});

Deno.test("restore writes what stays inside the roots and refuses each file a link would take outside", async () => {
  const p = await place();
  try {
    const source = join(p.root, "src");
    await writeTree(source, {
      "top.md": "top\n",
      "linkdir/inner.md": "inner\n",
      "other/kept.md": "kept\n",
    });
    const added = await p.call("docs.add", { path: source, collection: "tree" });
    assert.ok("result" in added, JSON.stringify(added));
    const destination = join(p.root, "dst");
    await Deno.mkdir(destination);
    // dst/linkdir leads outside: the file restored below it must not land there.
    await Deno.symlink(p.outside, join(destination, "linkdir"));
    const restored = await p.call("docs.restore", {
      collection: "tree",
      output_directory: destination,
    });
    assert.ok("result" in restored, JSON.stringify(restored));
    const report = restored.result as Json;
    const files = report.files as Json[];
    const status = Object.fromEntries(files.map((file) => [file.source, file.status]));
    assert.deepEqual(status, {
      [join(source, "linkdir/inner.md")]: "refused",
      [join(source, "other/kept.md")]: "written",
      [join(source, "top.md")]: "written",
    });
    assert.equal(report.refused, 1);
    assert.equal(await Deno.readTextFile(join(destination, "top.md")), "top\n");
    assert.deepEqual([...(await readTree(p.outside)).keys()], []);

    // An output folder that is itself a link outside is refused before anything is read.
    await Deno.symlink(p.outside, join(p.root, "dstlink"));
    const whole = errorOf(
      await p.call("docs.restore", {
        collection: "tree",
        output_directory: join(p.root, "dstlink"),
      }),
    );
    assert.equal(whole.kind, "forbidden");
    // And the data home is never a restore target.
    const home = errorOf(
      await p.call("docs.restore", { collection: "tree", output_directory: p.home }),
    );
    assert.equal(home.kind, "forbidden");
    assert.deepEqual([...(await readTree(p.outside)).keys()], []);
  } finally {
    await p.close();
  }
});

Deno.test("a folder swapped for a link between the check and the write: nothing is left outside", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vantage-root-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "vantage-outside-" }));
  try {
    const allowed = { roots: [root] };
    const target = prepareWriteTarget(allowed, join(root, "a", "file.txt"));
    // After the check, the folder is replaced by a link to a folder outside.
    await Deno.remove(join(root, "a"));
    await Deno.symlink(outside, join(root, "a"));
    assert.throws(
      () => writeConfined(target, [new TextEncoder().encode("x")]),
      (error: unknown) => error instanceof VantageError && error.kind === "forbidden",
    );
    assert.deepEqual([...Deno.readDirSync(outside)], []);

    // A link planted at the file's name while the bytes are written: not written through.
    await Deno.remove(join(root, "a"));
    const second = prepareWriteTarget(allowed, join(root, "b", "file.txt"));
    await Deno.writeTextFile(join(outside, "victim"), "untouched\n");
    const pieces = function* () {
      yield new TextEncoder().encode("first ");
      Deno.symlinkSync(join(outside, "victim"), second.path);
      yield new TextEncoder().encode("second");
    };
    assert.throws(
      () => writeConfined(second, pieces(), { overwrite: true }),
      (error: unknown) => error instanceof VantageError && error.kind === "forbidden",
    );
    assert.equal(await Deno.readTextFile(join(outside, "victim")), "untouched\n");
    assert.deepEqual([...Deno.readDirSync(join(root, "b"))].map((entry) => entry.name), [
      "file.txt",
    ]);
    assert.ok((await Deno.lstat(second.path)).isSymlink, "the planted link is left as it was");
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("under mcp-serve's shipped permissions, an export through a link out is refused too", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vantage-root-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "vantage-outside-" }));
  await Deno.writeTextFile(join(root, "n.md"), "# note\n");
  await Deno.symlink(outside, join(root, "linkdir"));
  const session = await connectStdio(["--surface", "composite"], {
    env: { VANTAGE_ROOTS: root },
  });
  const execute = async (operations: Json[]) =>
    textJson(await session.client.callTool({ name: "execute", arguments: { operations } }));
  try {
    const added = await execute([{ op: "add", params: { path: join(root, "n.md") } }]);
    const hash = ((added.results as Json[])[0] as Json).hash as string;
    assert.ok(typeof hash === "string", JSON.stringify(added));
    const exported = await execute([
      { op: "export", params: { hash, outputPath: join(root, "linkdir", "n.md") } },
    ]);
    const error = (exported.results as Json[])[0].error as Json;
    assert.equal((error.details as Json).kind, "forbidden", JSON.stringify(exported));
    const ok = await execute([{
      op: "export",
      params: { hash, outputPath: join(root, "copy.md") },
    }]);
    assert.equal((ok.results as Json[])[0].success, true, JSON.stringify(ok));
    assert.equal(await Deno.readTextFile(join(root, "copy.md")), "# note\n");
    assert.deepEqual([...Deno.readDirSync(outside)], []);
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
