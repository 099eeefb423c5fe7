import assert from "node:assert/strict";
import { connectStdio, textJson } from "../helpers/mcp_stdio.ts";
import { runVantage } from "../helpers/cli.ts";
import { writeTree } from "./harness.ts";

type Json = Record<string, unknown>;
type Result = {
  id: number;
  hash: string;
  title: string;
  path: string;
  score: number;
  snippet: string;
};

Deno.test("document memory over the composite MCP surface on real stdio", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "vantage-root-" });
  const outside = await Deno.makeTempDir({ prefix: "vantage-outside-" });
  await writeTree(root, {
    "project/docs/auth.md":
      "# Authentication middleware\n\nThe auth middleware refreshes expired tokens.\nIt also checks the session cookie.\n",
    "project/docs/database.md":
      "# Database tuning\n\nIndexes speed up queries.\nVacuum the database weekly.\n",
    "project/src/parser.ts":
      "export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n",
    "project/src/main.ts":
      'import { parseConfig } from "./parser.ts";\n\nexport function main() {\n  // TODO: read the file\n  return parseConfig("{}");\n}\n',
    "project/src/handlers.py":
      "class RequestHandler:\n    def handle(self):\n        return 'ok'\n\nclass AuthHandler(RequestHandler):\n    pass\n",
  });
  await Deno.writeTextFile(`${outside}/secret.md`, "# Secret\n");
  const env = { VANTAGE_ROOTS: root };
  const session = await connectStdio(["--surface", "composite"], { env });
  const query = async (steps: Json[]) => {
    const result = await session.client.callTool({ name: "query", arguments: { steps } });
    return { isError: result.isError === true, body: textJson(result) };
  };
  const execute = async (operations: Json[], continueOnError = false) => {
    const result = await session.client.callTool({
      name: "execute",
      arguments: { operations, continueOnError },
    });
    return { isError: result.isError === true, body: textJson(result) };
  };
  const sessionAction = async (action: string, params: Json = {}) => {
    const result = await session.client.callTool({
      name: "session",
      arguments: { action, params },
    });
    return { isError: result.isError === true, body: textJson(result) };
  };
  try {
    await t.step("tools list the YAMS op names", async () => {
      const { tools } = await session.client.listTools();
      const enumOf = (name: string, key: string) => {
        const tool = tools.find((x) => x.name === name)!;
        const schema = tool.inputSchema as Json;
        const props = schema.properties as Json;
        if (key === "action") return ((props.action as Json).enum as string[]);
        return (((props[key] as Json).items as Json).properties as Json).op as Json;
      };
      const queryOps = (enumOf("query", "steps") as Json).enum as string[];
      for (
        const op of [
          "search",
          "grep",
          "list",
          "get",
          "graph",
          "status",
          "list_collections",
          "list_snapshots",
          "suggest_context",
          "semantic_dedupe",
          "verify",
          "describe",
        ]
      ) {
        assert.ok(queryOps.includes(op), op);
      }
      const executeOps = (enumOf("execute", "operations") as Json).enum as string[];
      assert.deepEqual(
        executeOps.sort(),
        ["add", "delete", "download", "export", "repair", "restore", "update"].filter((op) =>
          op !== "download"
        ),
      );
      assert.deepEqual(enumOf("session", "action"), ["start", "stop", "pin", "unpin", "watch"]);
    });

    await t.step("add a folder, then refuse a path outside the roots", async () => {
      const added = await execute([{
        op: "add",
        params: {
          path: `${root}/project`,
          collection: "project",
          snapshot_label: "auth rollout",
          tags: ["demo"],
        },
      }]);
      assert.equal(added.isError, false, JSON.stringify(added.body));
      const first = (added.body.results as Json[])[0];
      assert.equal(first.success, true);
      assert.equal(first.documents_added, 5);
      const refused = await execute([{ op: "add", params: { path: `${outside}/secret.md` } }]);
      assert.equal(refused.isError, true);
      const error = (refused.body.results as Json[])[0].error as Json;
      assert.match(
        error.message as string,
        new RegExp(`read access to ${outside}/secret.md was refused`),
      );
      assert.match(error.message as string, /VANTAGE_ROOTS/);
    });

    await t.step("query refuses a write op with a clear message, and writes nothing", async () => {
      const before = (await query([{ op: "status", params: {} }])).body.total_objects;
      const refused = await query([
        { op: "list", params: {} },
        { op: "add", params: { path: `${root}/project/docs/auth.md`, tags: ["sneaky"] } },
      ]);
      assert.equal(refused.isError, true);
      const error = refused.body.error as Json;
      assert.equal(error.kind, "forbidden");
      assert.equal(error.dispatched, false);
      assert.equal(
        error.message,
        "steps[1] (add): operation 'docs.add' is not annotated read-only, and this pipeline runs only read-only operations; run writes on their own or in a write batch",
      );
      assert.equal((refused.body.completed as Json[]).length, 1);
      const tagged = await query([{ op: "list", params: { tags: ["sneaky"] } }]);
      assert.deepEqual(tagged.body.documents, []);
      assert.equal((await query([{ op: "status", params: {} }])).body.total_objects, before);
    });

    await t.step("every search mode finds the right document", async () => {
      for (
        const [type, text] of [
          ["keyword", "refreshes tokens"],
          ["fuzzy", "midleware refreshs"],
          ["semantic", "authentication middleware token refresh"],
          ["hybrid", "auth middleware"],
        ]
      ) {
        const { isError, body } = await query([{
          op: "search",
          params: { query: text, type, limit: 3 },
        }]);
        assert.equal(isError, false, JSON.stringify(body));
        assert.equal(body.type, type);
        assert.ok(typeof body.execution_time_ms === "number");
        const results = body.results as Result[];
        assert.ok(results.length >= 1, `${type}: ${JSON.stringify(body)}`);
        assert.match(results[0].path, /auth\.md$/, `${type}: ${JSON.stringify(results)}`);
        for (const key of ["id", "hash", "title", "path", "score", "snippet"]) {
          assert.ok(key in results[0]);
        }
      }
      const numbered = await query([{
        op: "search",
        params: { query: "vacuum", type: "keyword", line_numbers: true, context: 1 },
      }]);
      const hit = (numbered.body.results as Result[])[0];
      assert.match(hit.snippet, /^3: Indexes speed up queries\.\n4: Vacuum the database weekly\.$/);
      const paths = await query([{
        op: "search",
        params: { query: "database", paths_only: true },
      }]);
      assert.ok((paths.body.paths as string[]).some((p) => p.endsWith("database.md")));
      const hash = (numbered.body.results as Result[])[0].hash;
      const byHash = await query([{ op: "search", params: { hash: hash.slice(0, 10) } }]);
      assert.equal(byHash.body.type, "hash");
      assert.equal((byHash.body.results as Result[])[0].hash, hash);
      const short = await query([{ op: "search", params: { hash: "abc" } }]);
      assert.equal(short.isError, true);
      assert.match(JSON.stringify(short.body), /at least 8 hex/);
    });

    await t.step("search → get through $prev", async () => {
      const { body } = await query([
        { op: "search", params: { query: "parseConfig JSON", limit: 1 } },
        { op: "get", params: { hash: "$prev.results[0].hash", include_content: true } },
      ]);
      const steps = body.steps as Array<{ op: string; result: Json }>;
      assert.equal(steps.length, 2);
      assert.equal(steps[1].op, "get");
      assert.match(steps[1].result.content as string, /export function parseConfig/);
      assert.equal(steps[1].result.content_encoding, "utf-8");
    });

    await t.step("grep honours every flag", async () => {
      const grep = async (params: Json) => (await query([{ op: "grep", params }])).body;
      const plain = await grep({ pattern: "handler", ignore_case: true, line_numbers: true });
      const files = plain.results as Array<
        { path: string; count: number; matches: Array<{ line: number; text: string }> }
      >;
      assert.equal(files.length, 1);
      assert.equal(files[0].count, 2);
      assert.deepEqual(files[0].matches.map((m) => m.line), [1, 5]);
      const caseSensitive = await grep({ pattern: "handler" });
      assert.equal(caseSensitive.total_matches, 0);
      const word = await grep({ pattern: "Auth", word: true });
      assert.equal(word.total_matches, 0, JSON.stringify(word));
      const wordHit = await grep({ pattern: "auth", word: true, ignore_case: true });
      assert.ok((wordHit.total_matches as number) >= 1);
      const counted = await grep({ pattern: "parseConfig", count: true });
      assert.deepEqual(
        (counted.results as Array<{ path: string; count: number; matches?: unknown }>).map((
          r,
        ) => [r.path.split("/").pop(), r.count, r.matches]),
        [["main.ts", 2, undefined], ["parser.ts", 1, undefined]],
      );
      const listed = await grep({
        pattern: "database",
        files_with_matches: true,
        ignore_case: true,
      });
      assert.deepEqual((listed.files as string[]).map((p) => p.split("/").pop()), ["database.md"]);
      const capped = await grep({ pattern: "parseConfig", max_count: 1 });
      assert.ok((capped.results as Array<{ count: number }>).every((r) => r.count === 1));
      const withContext = await grep({ pattern: "TODO", context: 1, line_numbers: true });
      const match = (withContext.results as Array<{ matches: Array<Json> }>)[0].matches[0];
      assert.deepEqual(match.before, [{ line: 3, text: "export function main() {" }]);
      assert.deepEqual(match.after, [{ line: 5, text: '  return parseConfig("{}");' }]);
      const scoped = await grep({ pattern: "parseConfig", paths: ["src/parser.ts"] });
      assert.equal(scoped.files_matched, 1);
      const bad = await query([{ op: "grep", params: { pattern: "(" } }]);
      assert.equal(bad.isError, true);
      assert.match(JSON.stringify(bad.body), /not a valid regular expression/);
    });

    await t.step(
      "list, status, collections, snapshots, graph, suggestions, duplicates",
      async () => {
        const list = (await query([{
          op: "list",
          params: { extension: ".ts", sort_by: "name", sort_order: "asc" },
        }])).body;
        assert.deepEqual((list.documents as Json[]).map((d) => d.name), ["main.ts", "parser.ts"]);
        const status = (await query([{ op: "status", params: {} }])).body;
        for (
          const key of [
            "total_objects",
            "total_bytes",
            "unique_blocks",
            "deduplicated_bytes",
            "dedup_ratio",
          ]
        ) {
          assert.ok(key in status, key);
        }
        const collections = (await query([{ op: "list_collections" }])).body;
        assert.equal((collections.collections as Json[])[0].name, "project");
        const snapshots = (await query([{ op: "list_snapshots" }])).body;
        assert.equal((snapshots.snapshots as Json[])[0].label, "auth rollout");
        const graph =
          (await query([{ op: "graph", params: { name: "src/main.ts", relation: "IMPORTS" } }]))
            .body;
        assert.ok(
          (graph.nodes as Json[]).some((n) => String(n.path ?? "").endsWith("parser.ts")),
          JSON.stringify(graph),
        );
        const inherits = (await query([{
          op: "graph",
          params: { name: "handlers.py", depth: 2, relation: "INHERITS" },
        }])).body;
        assert.ok(
          (inherits.nodes as Json[]).some((n) => n.name === "RequestHandler"),
          JSON.stringify(inherits),
        );
        const suggestions =
          (await query([{ op: "suggest_context", params: { query: "auth middleware", limit: 3 } }]))
            .body;
        assert.equal((suggestions.suggestions as Json[])[0].label, "auth rollout");
        const dedupe = (await query([{ op: "semantic_dedupe", params: {} }])).body;
        assert.ok(Array.isArray(dedupe.groups));
      },
    );

    await t.step("sessions isolate what they added, across processes", async () => {
      const started = await sessionAction("start", { name: "feature-x", label: "Feature X" });
      assert.equal(started.isError, false, JSON.stringify(started.body));
      assert.equal(started.body.session_id, "feature-x");
      await Deno.writeTextFile(
        `${root}/session-note.md`,
        "# Widget plan\n\nThe widget cache lives here.\n",
      );
      const added = await execute([{ op: "add", params: { path: `${root}/session-note.md` } }]);
      assert.equal((added.body.results as Json[])[0].session_id, "feature-x");
      // A separate CLI process adds while the same session is current.
      await Deno.writeTextFile(
        `${root}/cli-note.md`,
        "# Widget notes\n\nWidget docs from the CLI.\n",
      );
      const cli = await runVantage(["add", `${root}/cli-note.md`, "--json"], {
        env: { ...Deno.env.toObject(), VANTAGE_HOME: session.home },
      });
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(JSON.parse(cli.stdout).session_id, "feature-x");

      const scoped = (await query([{
        op: "search",
        params: { query: "widget auth middleware", use_session: true, limit: 10 },
      }])).body;
      const scopedPaths = (scoped.results as Result[]).map((r) => r.path.split("/").pop()).sort();
      assert.deepEqual(scopedPaths, ["cli-note.md", "session-note.md"]);
      const named =
        (await query([{ op: "list", params: { session: "feature-x", paths_only: true } }])).body;
      assert.equal((named.paths as string[]).length, 2);
      const everything = (await query([{
        op: "search",
        params: {
          query: "widget auth middleware",
          use_session: true,
          global_search: true,
          limit: 10,
        },
      }])).body;
      assert.ok((everything.results as Result[]).some((r) => r.path.endsWith("auth.md")));
      const scopedGrep = (await query([{
        op: "grep",
        params: {
          pattern: "widget",
          ignore_case: true,
          use_session: true,
          files_with_matches: true,
        },
      }])).body;
      assert.equal((scopedGrep.files as string[]).length, 2);

      const pinned = await sessionAction("pin", { name: "auth.md" });
      assert.equal(pinned.body.changed, 1);
      const withPin =
        (await query([{ op: "list", params: { use_session: true, paths_only: true } }])).body;
      assert.equal((withPin.paths as string[]).length, 3);
      await sessionAction("unpin", { name: "auth.md" });

      const first =
        (await query([{ op: "suggest_context", params: { query: "widget", use_session: true } }]))
          .body;
      assert.equal(first.total, 2);
      const second =
        (await query([{ op: "suggest_context", params: { query: "Widget", use_session: true } }]))
          .body;
      assert.equal(second.total, 0, "the set served last time is held back");
      assert.equal(second.suppressed, 2);

      const stopped = await sessionAction("stop");
      assert.equal(stopped.body.current, false);
      const none = await query([{ op: "search", params: { query: "widget", use_session: true } }]);
      assert.equal(none.isError, true);
      assert.match(JSON.stringify(none.body), /current session/);
    });

    await t.step("update, restore and delete through execute; download needs net", async () => {
      const updated = await execute([{
        op: "update",
        params: { name: "auth.md", metadata: ["status=reviewed", "priority=high"] },
      }]);
      assert.equal((updated.body.results as Json[])[0].matched, 1);
      const got = (await query([{ op: "get", params: { name: "auth.md" } }])).body;
      assert.deepEqual(got.metadata, { priority: "high", status: "reviewed" });
      assert.deepEqual(got.tags, ["demo"]);
      const target = `${root}/restored`;
      const restored = await execute([{
        op: "restore",
        params: { collection: "project", output_directory: target },
      }]);
      assert.equal((restored.body.results as Json[])[0].restored, 5, JSON.stringify(restored.body));
      assert.equal(
        await Deno.readTextFile(`${target}/src/parser.ts`),
        await Deno.readTextFile(`${root}/project/src/parser.ts`),
      );
      const escape = await execute([{
        op: "restore",
        params: { collection: "project", output_directory: `${outside}/out` },
      }]);
      assert.equal(escape.isError, true);
      const refusal = (escape.body.results as Json[])[0].error as Json;
      assert.equal((refusal.details as Json).kind, "forbidden");
      assert.match(refusal.message as string, /cannot write to .*\/out: .*VANTAGE_ROOTS/);
      const deleted = await execute([{
        op: "delete",
        params: { names: ["*.py"], dry_run: false },
      }]);
      assert.equal((deleted.body.results as Json[])[0].deleted, 1);
      const download = await execute([{ op: "download", params: { url: "http://127.0.0.1:9/x" } }]);
      assert.equal(download.isError, true);
      assert.equal(((download.body.results as Json[])[0].error as Json).kind, "unknown_operation");
    });
  } finally {
    await session.close();
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
