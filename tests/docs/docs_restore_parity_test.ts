/**
 * `docs.restore` on both backends through the real catalog: the same folder added with the
 * real `docs.add` into a collection and a snapshot on SQLite and on PostgreSQL is written back
 * the same way — the same report (paths taken relative to each backend's output folder), the
 * same files byte for byte — by collection, by snapshot, with globs, as a dry run, and again
 * over existing files with and without `overwrite`; an unknown collection or snapshot is
 * refused the same way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { openDocsBackends } from "./docs_backends.ts";
import { randomBytes, readTree, writeTree } from "./harness.ts";

/** A response with its output folder written as `<out>`, so two backends' can be compared. */
function relative(response: unknown, out: string): unknown {
  return JSON.parse(JSON.stringify(response).replaceAll(out, "<out>"));
}

Deno.test({
  name: "docs.restore writes the same files from SQLite and from PostgreSQL",
  ignore: skipWithoutPostgres("the restore parity test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "vantage-restore-parity-" });
    const backends = await openDocsBackends(dir);
    try {
      const source = join(dir, "source");
      const files = {
        "README.md": new TextEncoder().encode("# Project\n\nHow to build it.\n"),
        "src/main.ts": new TextEncoder().encode("export const main = () => 42;\n"),
        "src/util/strings.ts": new TextEncoder().encode(
          "export const trim = (s: string) => s.trim();\n",
        ),
        "assets/logo.bin": randomBytes(300_000, 7),
      };
      await writeTree(source, files);
      for (const backend of backends) {
        await backend.run("docs.add", {
          path: source,
          collection: "project",
          snapshot_id: "snap-1",
        });
      }
      let round = 0;
      const both = async (args: Record<string, unknown>) => {
        round++;
        const out = backends.map((b) => join(dir, `out-${round}-${b.name}`));
        const answers = [];
        for (const [i, backend] of backends.entries()) {
          answers.push(
            relative(
              await backend.call("docs.restore", { ...args, output_directory: out[i] }),
              out[i],
            ),
          );
        }
        return { answers, out };
      };
      const cases: Array<[string, Record<string, unknown>]> = [
        ["by collection", { collection: "project" }],
        ["by snapshot", { snapshot_id: "snap-1" }],
        ["with globs", {
          collection: "project",
          include_patterns: "src/**",
          exclude_patterns: ["**/util/**"],
        }],
        ["dry run", { collection: "project", dry_run: true }],
        ["unknown collection", { collection: "nope" }],
        ["unknown snapshot", { snapshot_id: "nope" }],
        ["neither", {}],
      ];
      for (const [name, args] of cases) {
        await t.step(name, async () => {
          const { answers, out } = await both(args);
          assert.deepEqual(answers[1], answers[0]);
          if (name === "by collection" || name === "by snapshot") {
            const result = (answers[0] as { result: { restored: number } }).result;
            assert.equal(result.restored, 4, JSON.stringify(answers[0]));
            for (const folder of out) {
              assert.deepEqual(await readTree(folder), new Map(Object.entries(files)));
            }
          }
        });
      }
      await t.step("over existing files, without and with overwrite", async () => {
        const out = backends.map((b) => join(dir, `again-${b.name}`));
        for (const overwrite of [false, false, true]) {
          const answers = [];
          for (const [i, backend] of backends.entries()) {
            answers.push(relative(
              await backend.call("docs.restore", {
                collection: "project",
                output_directory: out[i],
                overwrite,
              }),
              out[i],
            ));
          }
          assert.deepEqual(answers[1], answers[0]);
        }
        for (const folder of out) {
          assert.deepEqual(await readTree(folder), new Map(Object.entries(files)));
        }
      });
    } finally {
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
