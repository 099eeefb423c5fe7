/**
 * `docs.semantic_dedupe` on both backends through the real catalog: the same documents added
 * with the real `docs.add` on SQLite and on PostgreSQL give the same near-duplicate groups —
 * members, roles, scores and keys — under each strategy, by group key and by document ids,
 * and also when some documents' vectors are not stored (embedded for the call on either
 * backend, nothing written).
 */
import assert from "node:assert/strict";
import { skipWithoutPostgres } from "../helpers/postgres_cluster.ts";
import { openDocsBackends } from "./docs_backends.ts";

const RETRY = "The retry policy backs off exponentially with jitter and caps at thirty seconds. ";
const CACHE = "The cache keeps the last hundred answers per project and drops the oldest first. ";

Deno.test({
  name: "docs.semantic_dedupe answers the same on SQLite and on PostgreSQL",
  ignore: skipWithoutPostgres("the semantic dedupe parity test"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "vantage-dedupe-parity-" });
    const backends = await openDocsBackends(dir);
    try {
      const adds: Array<[string, string]> = [
        ["notes/retry.md", RETRY.repeat(6)],
        ["archive/retry.md", RETRY.repeat(6) + "Reviewed."],
        ["old/retry.md", RETRY.repeat(5) + "Draft."],
        ["notes/cache.md", CACHE.repeat(5)],
        ["archive/cache.md", CACHE.repeat(5) + "Checked."],
        ["bread.md", "Completely different: a recipe for bread with flour and yeast."],
      ];
      for (const backend of backends) {
        for (const [name, content] of adds) await backend.run("docs.add", { content, name });
      }
      const calls: Array<Record<string, unknown>> = [
        {},
        { strategy: "keep-oldest" },
        { threshold: 0.99 },
        { document_ids: [1, 2, 4] },
        { limit: 1 },
      ];
      const answers = async (args: Record<string, unknown>) =>
        await Promise.all(backends.map((b) => b.call("docs.semantic_dedupe", args)));
      for (const args of calls) {
        await t.step(JSON.stringify(args), async () => {
          const [sqlite, postgres] = await answers(args);
          assert.ok("result" in sqlite, JSON.stringify(sqlite));
          assert.deepEqual(postgres, sqlite);
        });
      }
      const [all] = await answers({});
      const groups = (all as { result: { total: number; groups: Array<{ group_key: string }> } })
        .result;
      assert.equal(groups.total, 2, JSON.stringify(groups));
      await t.step("by group key", async () => {
        const [sqlite, postgres] = await answers({ group_key: groups.groups[0].group_key });
        assert.equal((sqlite as { result: { total: number } }).result.total, 1);
        assert.deepEqual(postgres, sqlite);
      });

      // Vectors of two documents gone on both: each backend embeds them for the call only.
      for (const backend of backends) {
        await backend.docs.deleteVectors(1);
        await backend.docs.setVectorModel(1, null);
        await backend.docs.deleteVectors(4);
        await backend.docs.setVectorModel(4, null);
        await backend.docs.writeState("vectors_complete_for", undefined);
      }
      await t.step("with documents whose vectors are not stored", async () => {
        const [sqlite, postgres] = await answers({});
        assert.deepEqual(postgres, sqlite);
        assert.deepEqual(
          (sqlite as { result: unknown }).result,
          (all as { result: unknown }).result,
        );
        for (const backend of backends) {
          assert.equal(await backend.docs.vectorCount() > 0, true);
          assert.deepEqual(
            (await backend.docs.documentsNeedingVectors("hashed-v1-384", -1)).map((d) => d.id),
            [1, 4],
            `${backend.name}: a read stores nothing`,
          );
        }
      });
    } finally {
      for (const backend of backends) await backend.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
