/**
 * The key-by-key settings editors behind `install --otel`: a key added to a
 * user's TOML table or JSON object and taken out again gives back the same
 * bytes, whatever the layout; the user's keys decide what is kept.
 */
import assert from "node:assert/strict";
import {
  applySettings,
  removeSettings,
  type SettingsPlan,
} from "../../src/install/settings_part.ts";
import { jsonSettingsEditor } from "../../src/install/settings_file.ts";
import { tomlKeyEditor } from "../../src/install/toml_keys.ts";

const ours = () => true;
const theirs = () => false;

const TOML_PLAN: SettingsPlan = {
  settings: [
    {
      path: ["otel", "exporter"],
      value: { "otlp-http": { endpoint: "http://h/v1/logs" } },
      mode: "require",
    },
    { path: ["otel", "trace_exporter"], value: "none", mode: "default" },
  ],
};

Deno.test("TOML keys go in after the table's last key and come out byte for byte", () => {
  const editor = tomlKeyEditor("config.toml");
  const shapes = [
    "",
    'model = "x"\n',
    // (A file without a final newline and no [otel] table keeps the line break added before
    // the new table, as with every table Vantage appends: see toml_edit_test.ts.)
    '[otel]\nenvironment = "dev"\n',
    '[otel]\nenvironment = "dev"',
    '[otel]\r\nenvironment = "dev" # mine\r\n\r\n# next\r\n[profiles.a]\r\nx = 1\r\n',
    '[otel] # empty\n\n[otel.exporter.otlp-http]\nendpoint = "x"\n',
    "\uFEFF[otel]\nlog_user_prompt = true\n",
  ];
  for (const text of shapes) {
    const prune = (path: readonly string[]) => !editor.get(text, path);
    let installed: string;
    try {
      installed = applySettings(text, "config.toml", TOML_PLAN, editor, prune);
    } catch (error) {
      // The user's own exporter table: refused, never merged into.
      assert.ok(text.includes("[otel.exporter"), `${JSON.stringify(text)}: ${error}`);
      assert.match(String(error), /\[otel\] exporter is already set/);
      continue;
    }
    assert.deepEqual(editor.get(installed, ["otel", "exporter"]), TOML_PLAN.settings[0].value);
    assert.equal(applySettings(installed, "config.toml", TOML_PLAN, editor, prune), installed);
    assert.equal(removeSettings(installed, TOML_PLAN, editor, prune), text, JSON.stringify(text));
  }
});

Deno.test("a user's TOML key is kept (default) or stops the install (require), and stays on removal", () => {
  const editor = tomlKeyEditor("config.toml");
  const text = '[otel]\ntrace_exporter = "statsig"\n';
  const installed = applySettings(
    text,
    "config.toml",
    TOML_PLAN,
    editor,
    (p) => !editor.get(text, p),
  );
  assert.equal(editor.get(installed, ["otel", "trace_exporter"]), "statsig");
  assert.equal(removeSettings(installed, TOML_PLAN, editor, (p) => !editor.get(text, p)), text);
  // Removal with the original unknown (prune says nothing is Vantage's) takes nothing out.
  assert.equal(removeSettings(installed, TOML_PLAN, editor, theirs), installed);
  assert.throws(
    () => applySettings('[otel]\nexporter = "none"\n', "c.toml", TOML_PLAN, editor, theirs),
    /c\.toml: \[otel\] exporter is already set \('none'\)/,
  );
  assert.throws(
    () => applySettings('otel.exporter = "none"\n', "c.toml", TOML_PLAN, editor, ours),
    /dotted keys or an inline table/,
  );
});

Deno.test("JSON settings: a key of Vantage's own from an earlier install is updated, a changed one kept", () => {
  const editor = jsonSettingsEditor("json", "settings.json");
  const plan = (endpoint: string): SettingsPlan => ({
    settings: [{ path: ["env", "OTEL_EXPORTER_OTLP_ENDPOINT"], value: endpoint, mode: "require" }],
  });
  const original = '{\n  "env": {}\n}\n';
  const prune = (path: readonly string[]) => editor.get(original, path) === undefined;
  const first = applySettings(original, "settings.json", plan("http://a"), editor, prune);
  const moved = applySettings(first, "settings.json", plan("http://b"), editor, prune);
  assert.equal(editor.get(moved, ["env", "OTEL_EXPORTER_OTLP_ENDPOINT"]), "http://b");
  assert.equal(removeSettings(moved, plan("http://b"), editor, prune), original);
  // Vantage's key holding a value Vantage would not write now: it is left alone.
  assert.equal(removeSettings(moved, plan("http://c"), editor, prune), moved);
});
