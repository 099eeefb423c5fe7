import assert from "node:assert/strict";
import { VantageError } from "../../src/core/errors.ts";
import {
  readTomlTable,
  removeTomlTable,
  renderTomlTable,
  setTomlTable,
  tomlString,
} from "../../src/install/toml_edit.ts";
import { parseTomlDocument } from "../../src/install/toml_syntax.ts";

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
  const crlf = '# mine\r\nmodel = "x"\r\n';
  const crlfInstalled = setTomlTable(crlf, "c", TABLE, BLOCK);
  assert.equal(crlfInstalled, crlf + "\r\n" + BLOCK.replaceAll("\n", "\r\n"));
  assert.equal(setTomlTable(crlfInstalled, "c", TABLE, BLOCK), crlfInstalled, "idempotent");
  assert.equal(removeTomlTable(crlfInstalled, "c", TABLE), crlf);
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

Deno.test("the parser reads real TOML: multi-line strings and arrays, dates, numbers", () => {
  const text = `title = """
first [not a table]
second"""
literal = '''
C:\\path'''
dates = [1979-05-27T07:32:00Z, 1979-05-27 07:32:00, 07:32:00, 1979-05-27]
numbers = [0xDEAD_BEEF, 0o755, 0b1101, 1_000, -3.5e2, inf, +7]
"quoted key" = true # a comment
a.b.c = 'dotted'
nested = { x = 1, y = [1, 2], z = { w = "v" } }
[[fruits]]
name = "apple"
[[fruits]]
name = "banana"
`;
  const { statements, value } = parseTomlDocument(text, "c.toml");
  assert.deepEqual(
    statements.map((s) => [s.kind, s.line, s.path.join(".")]),
    [
      ["keyvalue", 1, "title"],
      ["keyvalue", 4, "literal"],
      ["keyvalue", 6, "dates"],
      ["keyvalue", 7, "numbers"],
      ["keyvalue", 8, "quoted key"],
      ["keyvalue", 9, "a.b.c"],
      ["keyvalue", 10, "nested"],
      ["array_table", 11, "fruits"],
      ["keyvalue", 12, "name"],
      ["array_table", 13, "fruits"],
      ["keyvalue", 14, "name"],
    ],
  );
  // Statements are whole lines: a multi-line value and a trailing comment belong to theirs.
  assert.equal(
    text.slice(statements[0].start, statements[0].end),
    'title = """\nfirst [not a table]\nsecond"""\n',
  );
  assert.equal(
    text.slice(statements[4].start, statements[4].end),
    '"quoted key" = true # a comment\n',
  );
  assert.deepEqual(statements[8].table, ["fruits"]);
  assert.equal(value.title, "first [not a table]\nsecond");
  assert.equal(value.literal, "C:\\path");
  assert.deepEqual(value.numbers, [0xdeadbeef, 0o755, 0b1101, 1000, -350, Infinity, 7]);
  assert.deepEqual(value.a, { b: { c: "dotted" } });
  assert.deepEqual(value.nested, { x: 1, y: [1, 2], z: { w: "v" } });
  assert.deepEqual(value.fruits, [{ name: "apple" }, { name: "banana" }]);
  assert.equal((value.dates as Date[])[0].toISOString(), "1979-05-27T07:32:00.000Z");
});

Deno.test("a byte-order mark stays, and the table still goes in and out", () => {
  const original = '\uFEFFmodel = "x"\n';
  const installed = setTomlTable(original, "c", TABLE, BLOCK);
  assert.equal(installed, original + "\n" + BLOCK);
  assert.equal(removeTomlTable(installed, "c", TABLE), original);
});

Deno.test("malformed TOML is refused with the file, line, column and reason", () => {
  const cases: Array<[string, number, number, string]> = [
    ['model = "gpt-5\n', 1, 15, "unterminated string constant"],
    ["model gpt-5\n", 1, 7, "expected equal (=) token"],
    ["a = 1\nmodel = gpt-5\n", 2, 9, 'unexpected character "g"'],
    ["a = 1\nb =\n", 2, 4, "unspecified values are invalid"],
    [
      '[mcp_servers.x\ncommand = "y"\n',
      2,
      1,
      "the key, equals sign, and value must be on the same line",
    ],
    ["a = 1 2\n", 1, 7, "must be a newline"],
    ["args = [1, 2\nb = 3\n", 2, 1, 'unexpected character "b"'],
    ["[a]\nx = 1\n[a]\ny = 2\n", 3, 2, "defining a key multiple times is invalid"],
    ["x = 1\nx = 2\n", 2, 1, "defining a key multiple times is invalid"],
    ['bad = "\\q"\n', 1, 9, "invalid character in escape sequence"],
    ['s = """never closed\n', 1, 20, "unterminated string constant"],
    ['a = 1\r\nb = "\r\n', 2, 6, "unterminated string constant"],
  ];
  for (const [text, line, column, reason] of cases) {
    assert.throws(() => parseTomlDocument(text, "/h/.codex/config.toml"), (error: unknown) => {
      assert.ok(error instanceof VantageError, String(error));
      assert.equal(error.kind, "conflict");
      assert.equal(
        error.message,
        `/h/.codex/config.toml:${line}:${column}: not valid TOML at line ${line}, column ` +
          `${column} (${reason}); Vantage never overwrites a file it cannot parse: fix that line ` +
          `(or move the file aside) and run the command again`,
        text,
      );
      return true;
    });
  }
});
