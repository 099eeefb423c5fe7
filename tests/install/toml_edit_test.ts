import assert from "node:assert/strict";
import { VantageError } from "../../src/core/errors.ts";
import {
  readTomlTable,
  removeTomlTable,
  renderTomlTable,
  scanToml,
  setTomlTable,
  tomlString,
} from "../../src/install/toml_edit.ts";

const TABLE = ["mcp_servers", "vantage"];
const BLOCK = renderTomlTable(TABLE, {
  command: "/usr/bin/deno",
  args: ["run", "--allow-env=HOME,VANTAGE_*", "/opt/vantage/main.ts", "mcp-serve"],
  startup_timeout_sec: 10,
  env: { VANTAGE_MCP_CALLER: "codex" },
});

const USER_CONFIG = `# Codex settings, kept by hand
model = "gpt-5"            # the default model
approval_policy = "on-request"

[model_providers.local]
name = "Local"
base_url = "http://127.0.0.1:1234/v1"

[mcp_servers.github]
command = "npx"
args = [
  "-y",
  "@modelcontextprotocol/server-github", # pinned later
]
env = { GITHUB_TOKEN = "x" }

# trailing notes stay too
[profiles.fast]
model = "gpt-5-mini"
`;

Deno.test("the rendered table is what Codex itself writes", () => {
  assert.equal(
    BLOCK,
    `[mcp_servers.vantage]
command = "/usr/bin/deno"
args = ["run", "--allow-env=HOME,VANTAGE_*", "/opt/vantage/main.ts", "mcp-serve"]
startup_timeout_sec = 10

[mcp_servers.vantage.env]
VANTAGE_MCP_CALLER = "codex"
`,
  );
  assert.equal(tomlString('a"b\\c\nd\u0001'), '"a\\"b\\\\c\\nd\\u0001"');
});

Deno.test("install appends the table, changes nothing twice, and uninstall restores the bytes", () => {
  const installed = setTomlTable(USER_CONFIG, "config.toml", TABLE, BLOCK);
  assert.equal(installed, USER_CONFIG + "\n" + BLOCK);
  assert.equal(setTomlTable(installed, "config.toml", TABLE, BLOCK), installed);
  assert.equal(removeTomlTable(installed, "config.toml", TABLE), USER_CONFIG);
  assert.deepEqual(readTomlTable(installed, "config.toml", TABLE), {
    command: "/usr/bin/deno",
    args: ["run", "--allow-env=HOME,VANTAGE_*", "/opt/vantage/main.ts", "mcp-serve"],
    startup_timeout_sec: 10,
    env: { VANTAGE_MCP_CALLER: "codex" },
  });
  assert.equal(setTomlTable("", "c", TABLE, BLOCK), BLOCK);
  assert.equal(removeTomlTable(BLOCK, "c", TABLE), "");
});

Deno.test("an existing table is replaced where it is, with comments around it kept", () => {
  const original = `model = "x"

[mcp_servers.vantage]
command = "old"
# a note inside the table is Vantage's
args = []

[mcp_servers.vantage.env]
OLD = "1"

# about the next table
[mcp_servers.other]
command = "other"
`;
  const updated = setTomlTable(original, "c", TABLE, BLOCK);
  assert.equal(
    updated,
    `model = "x"

${BLOCK}
# about the next table
[mcp_servers.other]
command = "other"
`,
  );
  assert.equal(
    removeTomlTable(updated, "c", TABLE),
    `model = "x"

# about the next table
[mcp_servers.other]
command = "other"
`,
  );
});

Deno.test("a subtable elsewhere in the file is folded into the one table", () => {
  const split = `[mcp_servers.vantage]
command = "old"

[other]
a = 1

[mcp_servers.vantage.env]
X = "1"
`;
  const updated = setTomlTable(split, "c", TABLE, BLOCK);
  assert.equal(updated, `${BLOCK}\n[other]\na = 1\n`);
});

Deno.test("a file without a final newline, or with CRLF, still round-trips sensibly", () => {
  const noNewline = 'model = "x"';
  const installed = setTomlTable(noNewline, "c", TABLE, BLOCK);
  assert.equal(installed, 'model = "x"\n\n' + BLOCK);
  assert.equal(removeTomlTable(installed, "c", TABLE), 'model = "x"\n');
  const crlf = 'model = "x"\r\n';
  assert.equal(removeTomlTable(setTomlTable(crlf, "c", TABLE, BLOCK), "c", TABLE), crlf);
});

Deno.test("Vantage defined inline or with dotted keys is refused, not duplicated", () => {
  assert.throws(
    () => setTomlTable('[mcp_servers]\nvantage = { command = "v" }\n', "config.toml", TABLE, BLOCK),
    /config\.toml:2: \[mcp_servers\.vantage\] is defined there with dotted keys or an inline table/,
  );
  assert.throws(
    () => setTomlTable('mcp_servers.vantage.command = "v"\n', "config.toml", TABLE, BLOCK),
    /config\.toml:1:/,
  );
});

Deno.test("the scanner reads real TOML: multi-line strings and arrays, dates, numbers", () => {
  const text = `title = """
first [not a table]
second"""
literal = '''
C:\\path'''
dates = [1979-05-27T07:32:00Z, 1979-05-27 07:32:00, 07:32:00, 1979-05-27]
numbers = [0xDEAD_BEEF, 0o755, 0b1101, 1_000, -3.5e2, inf, -nan, +7]
"quoted key" = true
a.b.c = 'dotted'
nested = { x = 1, y = [1, 2], z = { w = "v" } }
[[fruits]]
name = "apple"
[[fruits]]
name = "banana"
`;
  const statements = scanToml(text, "c.toml");
  assert.deepEqual(
    statements.map((s) => s.kind),
    [
      "keyvalue",
      "keyvalue",
      "keyvalue",
      "keyvalue",
      "keyvalue",
      "keyvalue",
      "keyvalue",
      "array_table",
      "keyvalue",
      "array_table",
      "keyvalue",
    ],
  );
  assert.equal(statements[0].value, "first [not a table]\nsecond");
  assert.equal(statements[1].value, "C:\\path");
  assert.deepEqual(statements[3].value, [0xdeadbeef, 0o755, 0b1101, 1000, -350, Infinity, NaN, 7]);
  assert.deepEqual(statements[5].path, ["a", "b", "c"]);
  assert.deepEqual(statements[6].value, { x: 1, y: [1, 2], z: { w: "v" } });
  assert.equal(statements[7].line, 11);
});

Deno.test("obviously malformed TOML is refused with the file, line and column", () => {
  const cases: Array<[string, number, number, RegExp]> = [
    ['model = "gpt-5\n', 1, 9, /unterminated string/],
    ["model gpt-5\n", 1, 7, /expected '=' after the key/],
    ["a = 1\nmodel = gpt-5\n", 2, 9, /'gpt-5' is not a TOML value/],
    ["a = 1\nb =\n", 2, 4, /missing value/],
    ['[mcp_servers.x\ncommand = "y"\n', 1, 15, /expected '\]'/],
    ["a = 1 2\n", 1, 7, /unexpected text after the value/],
    ["args = [1, 2\nb = 3\n", 2, 1, /expected ',' or '\]' in the array opened at line 1/],
    ["[a]\nx = 1\n[a]\ny = 2\n", 3, 1, /table \[a\] is defined twice/],
    ["x = 1\nx = 2\n", 2, 1, /key 'x' is set twice/],
    ['s = """never closed\n', 1, 5, /unterminated multi-line string/],
    ['bad = "\\q"\n', 1, 8, /invalid escape/],
  ];
  for (const [text, line, column, reason] of cases) {
    assert.throws(() => scanToml(text, "/h/.codex/config.toml"), (error: unknown) => {
      assert.ok(error instanceof VantageError, String(error));
      assert.match(
        error.message,
        new RegExp(`^/h/\\.codex/config\\.toml:${line}:${column}: not valid TOML`),
        text,
      );
      assert.match(error.message, reason);
      return true;
    });
  }
});
