import assert from "node:assert/strict";
import { z } from "zod";
import {
  createCatalog,
  defineOperation,
  executeOperation,
  executePipeline,
  handleExecute,
  handleSearch,
} from "../../mod.ts";
import { hostCatalog } from "../helpers/host_catalog.ts";

const reader = { scopes: ["notes:read"] };
const writer = { scopes: ["notes:read", "notes:write"] };

Deno.test("execute runs an operation and returns the Tama.Dex success shape", async () => {
  const catalog = hostCatalog(new Map([["a", "alpha"]]));
  const response = await executeOperation(catalog, "notes.read_note", { key: "a" }, reader);
  assert.deepEqual(response, {
    cassette: "notes",
    operation_id: "notes.read_note",
    source: "test-host",
    result: { key: "a", text: "alpha" },
  });
});

Deno.test("invalid arguments are refused before the operation runs", async () => {
  const store = new Map<string, string>();
  const catalog = hostCatalog(store);
  const wrongType = await executeOperation(catalog, "notes.put", { key: "k", text: 5 }, writer);
  assert.ok("error" in wrongType);
  assert.equal(wrongType.error.kind, "invalid_arguments");
  assert.equal(wrongType.error.dispatched, false);
  assert.match(wrongType.error.message, /text/);
  const unknown = await executeOperation(
    catalog,
    "notes.put",
    { key: "k", text: "t", txet: 1 },
    writer,
  );
  assert.ok("error" in unknown);
  assert.match(unknown.error.message, /unknown argument 'txet'; allowed: key, text/);
  assert.equal(store.size, 0);
});

Deno.test("unknown operations suggest near names", async () => {
  const response = await executeOperation(hostCatalog(), "notes.lst", {}, reader);
  assert.ok("error" in response);
  assert.equal(response.error.kind, "unknown_operation");
  assert.equal(response.error.dispatched, false);
});

Deno.test("missing scopes are named in details and nothing runs", async () => {
  const store = new Map<string, string>();
  const response = await executeOperation(
    hostCatalog(store),
    "notes.put",
    { key: "k", text: "t" },
    reader,
  );
  assert.ok("error" in response);
  assert.equal(response.error.kind, "forbidden");
  assert.deepEqual(response.error.details?.missing_scopes, ["notes:write"]);
  assert.equal(store.size, 0);
  // A wildcard scope grants the whole family.
  const allowed = await executeOperation(hostCatalog(store), "notes.put", { key: "k", text: "t" }, {
    scopes: ["notes:*"],
  });
  assert.ok("result" in allowed);
});

Deno.test("an operation's own failure is operation_error with dispatched true", async () => {
  const response = await executeOperation(
    hostCatalog(),
    "notes.read_note",
    { key: "nope" },
    reader,
  );
  assert.ok("operation_error" in response);
  assert.equal(response.dispatched, true);
  assert.equal(response.operation_error.message, "no note 'nope'");
  assert.deepEqual(response.operation_error.details, { key: "nope" });
});

Deno.test("timeouts, oversized results and broken outputs are reported honestly", async () => {
  const catalog = hostCatalog();
  const slow = await executeOperation(catalog, "notes.slow", {}, reader);
  assert.ok("error" in slow);
  assert.equal(slow.error.kind, "timeout");
  assert.equal(slow.error.dispatched, true);
  const big = await executeOperation(catalog, "notes.dump", {}, reader);
  assert.ok("error" in big);
  assert.equal(big.error.kind, "result_too_large");
  assert.equal(big.error.dispatched, true);
  const broken = await executeOperation(catalog, "notes.broken", {}, reader);
  assert.ok("error" in broken);
  assert.equal(broken.error.kind, "invalid_result");
  await new Promise((resolve) => setTimeout(resolve, 1_100)); // let the slow op's timer finish
});

Deno.test("oversized arguments are refused", async () => {
  const catalog = createCatalog({
    limits: { maxArgumentChars: 100 },
    cassettes: hostCatalog().cassettes,
  });
  const response = await executeOperation(
    catalog,
    "notes.put",
    { key: "k", text: "y".repeat(200) },
    writer,
  );
  assert.ok("error" in response);
  assert.equal(response.error.kind, "invalid_arguments");
  assert.match(response.error.message, /limit is 100/);
});

Deno.test("an operation taking bulk uploads takes arguments up to its own limit", async () => {
  const upload = defineOperation({
    id: "bulk.upload",
    title: "Upload",
    description: "Takes a large body.",
    input: z.object({ data: z.string() }),
    output: z.object({ size: z.number() }),
    scopes: [],
    annotations: {},
    maxArgumentChars: 1_000,
    run: (_context, input) => ({ size: input.data.length }),
  });
  const catalog = createCatalog({
    limits: { maxArgumentChars: 100 },
    cassettes: [{ name: "bulk", source: "test", description: "Bulk", operations: [upload] }],
  });
  const taken = await executeOperation(catalog, "bulk.upload", { data: "x".repeat(900) }, {
    scopes: [],
  });
  assert.deepEqual("result" in taken && taken.result, { size: 900 });
  const refused = await executeOperation(catalog, "bulk.upload", { data: "x".repeat(1_000) }, {
    scopes: [],
  });
  assert.ok("error" in refused);
  assert.match(refused.error.message, /limit is 1000/);
});

Deno.test("pipelines pass $prev between steps and stop at the first failure", async () => {
  const catalog = hostCatalog(new Map([["b", "beta"], ["a", "alpha"]]));
  const ok = await executePipeline(catalog, [
    { op: "notes.list", params: {} },
    { op: "notes.read_note", params: { key: "$prev.keys[1]" } },
  ], reader);
  assert.equal(ok.completed, 2);
  assert.deepEqual(ok.result, { key: "b", text: "beta" });
  assert.equal(ok.error, undefined);

  const failed = await executePipeline(catalog, [
    { op: "notes.list", params: {} },
    { op: "notes.read_note", params: { key: "$prev.keys[9]" } },
    { op: "notes.list", params: {} },
  ], reader);
  assert.equal(failed.completed, 1);
  assert.equal(failed.steps.length, 2);
  assert.equal(failed.error?.kind, "invalid_arguments"); // null key fails the schema
  assert.equal(failed.error?.step, 1);
});

Deno.test("handleSearch ranks only what the caller may run", () => {
  const catalog = hostCatalog();
  const asReader = handleSearch(catalog, { query: "save note" }, reader);
  assert.ok("results" in asReader);
  assert.ok(asReader.results.every((r) => r.operation_id !== "notes.put"));
  const asWriter = handleSearch(catalog, { query: "save note" }, writer);
  assert.ok("results" in asWriter);
  assert.equal(asWriter.results[0].operation_id, "notes.put");
  assert.equal(typeof asWriter.results[0].signature, "string");
  const whole = handleSearch(catalog, { query: "save note", detail: "full" }, writer);
  assert.ok("results" in whole);
  assert.equal(whole.results[0].cassette, "notes");
  assert.equal(whole.results[0].source, "test-host");
  assert.equal((whole.results[0].input_schema as { type: string }).type, "object");
  const badDetail = handleSearch(catalog, { query: "note", detail: "all" }, writer);
  assert.ok("error" in badDetail);
  assert.equal(badDetail.error.kind, "invalid_arguments");
  const limited = handleSearch(catalog, { query: "", limit: 2 }, reader);
  assert.ok("results" in limited);
  assert.equal(limited.results.length, 2);
  assert.equal(limited.truncated, true);
  const bad = handleSearch(catalog, { limit: 3 }, reader);
  assert.ok("error" in bad);
  assert.equal(bad.error.kind, "invalid_arguments");
  assert.throws(() => handleSearch(catalog, { query: "x" }, {} as never), /scopes/);
});

Deno.test("handleExecute validates its own arguments before any lookup", async () => {
  const catalog = hostCatalog();
  for (
    const args of [
      "not an object",
      { operation_id: 5 },
      { operation_id: "notes.list", arguments: [] },
      { operation_id: "notes.list", steps: [{ op: "notes.list" }] },
      { steps: [] },
      { steps: [{ params: {} }] },
      { bogus: 1 },
      {},
    ]
  ) {
    const response = await handleExecute(catalog, args, reader);
    assert.ok("error" in response, JSON.stringify(args));
    assert.equal((response as { error: { kind: string } }).error.kind, "invalid_arguments");
  }
});

Deno.test("catalogs refuse malformed and duplicate operation ids", () => {
  const op = (id: string) =>
    defineOperation({
      id,
      title: "x",
      description: "x",
      input: z.object({}),
      output: z.object({}),
      scopes: [],
      annotations: {},
      run: () => ({}),
    });
  assert.throws(
    () =>
      createCatalog({
        cassettes: [{ name: "a", source: "t", description: "", operations: [op("A.b")] }],
      }),
    /must look like/,
  );
  assert.throws(
    () =>
      createCatalog({
        cassettes: [{ name: "a", source: "t", description: "", operations: [op("b.c")] }],
      }),
    /must start with its cassette name/,
  );
  assert.throws(
    () =>
      createCatalog({
        cassettes: [{
          name: "a",
          source: "t",
          description: "",
          operations: [op("a.b"), op("a.b")],
        }],
      }),
    /registered twice/,
  );
});

Deno.test("a renamed operation still runs by its former id, which no listing shows", async () => {
  const renamed = (id: string, aliases: string[]) =>
    defineOperation({
      id,
      aliases,
      title: "Echo a word",
      description: "Returns the word it is given.",
      input: z.object({ word: z.string() }),
      output: z.object({ word: z.string() }),
      scopes: ["notes:read"],
      annotations: { readOnlyHint: true },
      run: (_ctx, { word }) => ({ word }),
    });
  const catalog = createCatalog({
    cassettes: [{
      name: "notes",
      source: "t",
      description: "",
      operations: [renamed("notes.echo", ["old.echo"])],
    }],
  });
  const response = await executeOperation(catalog, "old.echo", { word: "hi" }, reader);
  assert.deepEqual(response, {
    cassette: "notes",
    operation_id: "notes.echo",
    source: "t",
    result: { word: "hi" },
  });
  // Scopes are the operation's, whichever id names it.
  const refused = await executeOperation(catalog, "old.echo", { word: "hi" }, { scopes: [] });
  assert.ok("error" in refused && refused.error.kind === "forbidden");
  assert.deepEqual(catalog.operations().map((op) => op.id), ["notes.echo"]);
  const found = handleSearch(catalog, { query: "echo" }, reader);
  assert.ok("results" in found);
  assert.deepEqual(found.results.map((r) => r.operation_id), ["notes.echo"]);
  const build = (operations: ReturnType<typeof renamed>[]) => () =>
    createCatalog({ cassettes: [{ name: "notes", source: "t", description: "", operations }] });
  assert.throws(
    build([renamed("notes.a", ["notes.b"]), renamed("notes.b", [])]),
    /an operation id/,
  );
  assert.throws(
    build([renamed("notes.a", ["old.x"]), renamed("notes.b", ["old.x"])]),
    /already an alias of 'notes\.a'/,
  );
  assert.throws(
    build([renamed("notes.a", ["Old x"])]),
    /alias 'Old x' of 'notes\.a' must look like/,
  );
});
