import assert from "node:assert/strict";
import {
  byOperationId,
  createCatalog,
  executePipeline,
  failureOf,
  handleExecute,
  runPipeline,
} from "../../mod.ts";
import { hostCatalog } from "../helpers/host_catalog.ts";

const writer = { scopes: ["notes:read", "notes:write"] };

Deno.test("a read-only pipeline refuses a write before it runs, naming it", async () => {
  const store = new Map([["a", "alpha"]]);
  const catalog = hostCatalog(store);
  const run = await runPipeline(
    catalog,
    [
      { op: "notes.list", params: {} },
      { op: "notes.put", params: { key: "b", text: "$prev.keys[0]" } },
      { op: "notes.list", params: {} },
    ],
    writer,
    byOperationId,
    { readOnly: true },
  );
  assert.equal(run.outcomes.length, 2, "the pipeline stopped at the write");
  assert.equal(run.succeeded, 1);
  assert.equal(run.failed, 1);
  assert.deepEqual(run.result, { keys: ["a"] });
  const refusal = failureOf(run.outcomes[1].response)!;
  assert.equal(refusal.kind, "forbidden");
  assert.equal(refusal.dispatched, false);
  assert.equal(
    refusal.message,
    "operation 'notes.put' is not annotated read-only, and this pipeline runs only read-only operations; run writes on their own or in a write batch",
  );
  assert.deepEqual([...store.keys()], ["a"], "nothing was written");

  // The same steps without readOnly write.
  const writing = await runPipeline(
    catalog,
    [
      { op: "notes.list", params: {} },
      { op: "notes.put", params: { key: "b", text: "$prev.keys[0]" } },
    ],
    writer,
    byOperationId,
  );
  assert.equal(writing.succeeded, 2);
  assert.equal(store.get("b"), "a");
});

Deno.test("continueOnError runs past failures and $prev keeps the last success", async () => {
  const store = new Map<string, string>();
  const catalog = hostCatalog(store);
  const steps = [
    { op: "notes.put", params: { key: "x", text: "1" } },
    { op: "notes.put", params: { key: "", text: "bad" } },
    { op: "notes.nothing", params: {} },
    { op: "notes.put", params: { key: "$prev.key", text: "2" } },
  ];
  const stopped = await runPipeline(catalog, steps, writer, byOperationId);
  assert.equal(stopped.outcomes.length, 2);
  assert.equal(stopped.failed, 1);
  const going = await runPipeline(catalog, steps, writer, byOperationId, { continueOnError: true });
  assert.equal(going.outcomes.length, 4);
  assert.equal(going.succeeded, 2);
  assert.equal(going.failed, 2);
  assert.equal(failureOf(going.outcomes[1].response)?.kind, "invalid_arguments");
  assert.equal(failureOf(going.outcomes[2].response)?.kind, "unknown_operation");
  // The fourth step's $prev is the first step's result: failed steps are skipped.
  assert.equal(store.get("x"), "2");
  assert.deepEqual(going.result, { key: "x", stored: true });
});

Deno.test("a resolver's refusal never reaches the executor; too many steps refuse the whole pipeline", async () => {
  let resolved = 0;
  const catalog = hostCatalog(new Map([["a", "alpha"]]));
  const run = await runPipeline(
    catalog,
    ["list", "nonsense", "list"],
    writer,
    (name) => {
      resolved++;
      return name === "list" ? { operationId: "notes.list", params: {} } : {
        error: { kind: "unknown_operation", dispatched: false, message: `no step '${name}'` },
      };
    },
    { continueOnError: true },
  );
  assert.equal(resolved, 3);
  assert.equal(run.outcomes[1].operationId, undefined);
  assert.equal(failureOf(run.outcomes[1].response)?.message, "no step 'nonsense'");
  assert.equal(run.succeeded, 2);

  const small = createCatalog({
    cassettes: hostCatalog().cassettes,
    limits: { maxPipelineSteps: 2 },
  });
  const long = await runPipeline(
    small,
    [{ op: "notes.list" }, { op: "notes.list" }, { op: "notes.list" }],
    writer,
    byOperationId,
  );
  assert.equal(long.outcomes.length, 0);
  assert.equal(long.refused?.kind, "invalid_arguments");
  assert.match(long.refused!.message, /at most 2 steps; got 3/);
});

Deno.test("dex pipelines keep their shape and may still write", async () => {
  const store = new Map<string, string>();
  const catalog = hostCatalog(store);
  const response = await handleExecute(catalog, {
    steps: [
      { op: "notes.put", params: { key: "k", text: "v" } },
      { op: "notes.read_note", params: { key: "$prev.key" } },
      { op: "notes.read_note", params: { key: "missing" } },
    ],
  }, writer);
  assert.ok("steps" in response);
  assert.equal(response.completed, 2);
  assert.deepEqual(response.result, { key: "k", text: "v" });
  assert.equal(response.steps.length, 3);
  assert.deepEqual(response.error, {
    kind: "operation_error",
    dispatched: true,
    message: "step 3 (notes.read_note): no note 'missing'",
    details: { key: "missing" },
    step: 2,
  });
  assert.equal(store.get("k"), "v");

  // A host may make its own pipelines read-only.
  const readOnly = await executePipeline(catalog, [{ op: "notes.put", params: {} }], writer, {
    readOnly: true,
  });
  assert.equal(readOnly.completed, 0);
  assert.equal(readOnly.error?.kind, "forbidden");
  assert.match(readOnly.error!.message, /^step 1 \(notes\.put\): .* not annotated read-only/);
});
