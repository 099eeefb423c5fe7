import assert from "node:assert/strict";
import { languageFromPath } from "../../../src/docs/code_graph.ts";
import { LANGUAGES } from "../../../src/docs/code_graph/languages.ts";

Deno.test("every registered extension reads as its language, in any case and path style", () => {
  const seen = new Set<string>();
  for (const [language, entry] of Object.entries(LANGUAGES)) {
    for (const extension of entry.extensions) {
      assert.ok(!seen.has(extension), `.${extension} is registered once`);
      seen.add(extension);
      assert.equal(languageFromPath(`dir/file.${extension}`), language);
      assert.equal(languageFromPath(`C:\\dir\\FILE.${extension.toUpperCase()}`), language);
    }
  }
  // A dot file has no extension, and names of Object's members are no languages.
  assert.equal(languageFromPath(".ts"), undefined);
  assert.equal(languageFromPath("x.constructor"), undefined);
  assert.equal(languageFromPath("x.__proto__"), undefined);
});
