import assert from "node:assert/strict";
import { VantageError } from "../../src/core/errors.ts";
import {
  detectJsonStyle,
  getJsonValue,
  removeJsonValue,
  setJsonValue,
} from "../../src/install/json_edit.ts";
import { parseJsonDocument } from "../../src/install/json_syntax.ts";
import { positionAt } from "../../src/install/text_position.ts";

const ENTRY = { type: "stdio", command: "/bin/vantage", args: ["mcp-serve"], env: { A: "1" } };
const PATH = ["mcpServers", "vantage"];
const all = () => true;

/** Install then uninstall, asserting idempotence and an exact round trip. */
function roundTrip(original: string, flavor: "json" | "json5" = "json"): string {
  const installed = setJsonValue(original, flavor, PATH, ENTRY, "f.json");
  assert.notEqual(installed, original);
  assert.deepEqual(getJsonValue(installed, flavor, PATH, "f.json"), ENTRY);
  assert.equal(setJsonValue(installed, flavor, PATH, ENTRY, "f.json"), installed, "idempotent");
  const prune = (path: readonly string[]) =>
    getJsonValue(original, flavor, path, "f.json") === undefined;
  assert.equal(removeJsonValue(installed, flavor, PATH, "f.json", prune), original, "restored");
  return installed;
}

Deno.test("positions are 1-based lines and columns", () => {
  assert.deepEqual(positionAt("ab\ncd", 0), { line: 1, column: 1 });
  assert.deepEqual(positionAt("ab\ncd", 4), { line: 2, column: 2 });
  assert.deepEqual(positionAt("ab\n", 99), { line: 2, column: 1 });
});

Deno.test("a user's file keeps its keys, order, indentation and trailing newline", () => {
  const original = `{
  "numStartups": 3,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://example.test/mcp"
    }
  },
  "projects": {}
}
`;
  const installed = roundTrip(original);
  assert.ok(installed.startsWith(`{
  "numStartups": 3,
  "theme": "dark",
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://example.test/mcp"
    },
    "vantage": {
      "type": "stdio",`));
  assert.ok(installed.endsWith(`    }
  },
  "projects": {}
}
`));
});

Deno.test("missing containers are created and removed again; other styles are kept", () => {
  roundTrip('{\n    "a": 1\n}\n');
  roundTrip('{\n\t"a": [1, 2, 3],\n\t"b": {"x": true}\n}');
  roundTrip('{\r\n  "a": 1\r\n}\r\n');
  roundTrip('{"a":1,"b":{"c":[1,2]}}');
  roundTrip("{}\n");
  roundTrip('{\n  "mcpServers": {}\n}\n');
  const tabs = setJsonValue('{\n\t"a": 1\n}\n', "json", PATH, { k: 1 }, "f");
  assert.equal(
    tabs,
    '{\n\t"a": 1,\n\t"mcpServers": {\n\t\t"vantage": {\n\t\t\t"k": 1\n\t\t}\n\t}\n}\n',
  );
  const crlf = setJsonValue('{\r\n  "a": 1\r\n}\r\n', "json", PATH, { k: 1 }, "f");
  assert.ok(!/[^\r]\n/.test(crlf), "CRLF kept throughout");
  assert.equal(detectJsonStyle('{"a":1}').compact, true);
  assert.equal(
    setJsonValue('{"a":1}', "json", PATH, { k: 1 }, "f"),
    '{"a":1,"mcpServers":{"vantage":{"k":1}}}',
  );
});

Deno.test("a byte-order mark stays, and offsets after it still fit", () => {
  const installed = roundTrip('\uFEFF{\n  "a": 1\n}\n');
  assert.ok(installed.startsWith('\uFEFF{\n  "a": 1,\n  "mcpServers": {\n'));
  assert.throws(
    () => parseJsonDocument('\uFEFF{\n  "a": 1,\n}', "json", "f"),
    / f:3:1: not valid JSON at line 3, column 1 \(unexpected '}'\)/,
  );
});

Deno.test("an entry already present but different is replaced in place", () => {
  const original =
    '{\n  "mcpServers": {\n    "vantage": {"command": "old"},\n    "z": {}\n  }\n}\n';
  const updated = setJsonValue(original, "json", PATH, { command: "new" }, "f");
  assert.equal(
    updated,
    '{\n  "mcpServers": {\n    "vantage": {"command":"new"},\n    "z": {}\n  }\n}\n',
  );
  // The same value with keys in another order counts as present.
  const same = '{"mcpServers":{"vantage":{"b":1,"a":2}}}';
  assert.equal(setJsonValue(same, "json", PATH, { a: 2, b: 1 }, "f"), same);
});

Deno.test("removing an entry the user followed with others keeps theirs, comments included", () => {
  const installed =
    '{\n  "mcpServers": {\n    "vantage": {\n      "x": 1\n    },\n    // theirs\n    "theirs": 2\n  }\n}\n';
  assert.equal(
    removeJsonValue(installed, "json5", PATH, "f", () => false),
    '{\n  "mcpServers": {\n    // theirs\n    "theirs": 2\n  }\n}\n',
  );
  assert.equal(
    removeJsonValue('{"mcpServers":{"vantage":1,"b":2}}', "json", PATH, "f", all),
    '{"mcpServers":{"b":2}}',
  );
});

Deno.test("an emptied object is kept unless Vantage created it", () => {
  const installed = '{\n  "a": 1,\n  "mcpServers": {\n    "vantage": {}\n  }\n}\n';
  assert.equal(
    removeJsonValue(installed, "json", PATH, "f", () => false),
    '{\n  "a": 1,\n  "mcpServers": {}\n}\n',
  );
  assert.equal(removeJsonValue(installed, "json", PATH, "f", all), '{\n  "a": 1\n}\n');
  assert.equal(removeJsonValue('{"a":1}', "json", PATH, "f", all), '{"a":1}', "nothing to remove");
});

Deno.test("JSON5 files keep comments, unquoted keys, single quotes and trailing commas", () => {
  const original = `{
  // gateway settings
  gateway: { port: 18789, },
  mcp: {
    servers: {
      'demo': { command: "/usr/bin/echo", args: ['hi',], },
    },
  },
  /* end */
}
`;
  const installed = roundTrip(original, "json5");
  assert.ok(installed.includes("// gateway settings") && installed.includes("/* end */"));
  assert.deepEqual(getJsonValue(installed, "json5", ["mcp", "servers", "demo", "args"], "f"), [
    "hi",
  ]);
  roundTrip("{\n  // nothing yet\n}\n", "json5");
  // A comment between a value and its comma does not hide the comma.
  assert.equal(
    removeJsonValue("{\n  a: [1] /* one */ , // first\n  b: 2,\n}\n", "json5", ["a"], "f", all),
    "{\n  b: 2,\n}\n",
  );
  // JSON5 strings may hold a tab and a line break escaped by a backslash.
  assert.equal(getJsonValue("{a: 'one\ttwo \\\nthree'}", "json5", ["a"], "f"), "one\ttwo three");
  const values = getJsonValue(
    "{a: 0x1F, b: .5, c: +1, d: 'it\\'s', e: Infinity, f: -Infinity}",
    "json5",
    [],
    "f",
  );
  assert.deepEqual(values, { a: 31, b: 0.5, c: 1, d: "it's", e: Infinity, f: -Infinity });
});

Deno.test("malformed JSON is refused with the file, line, column and what was found", () => {
  const cases: Array<[string, "json" | "json5", number, number, string]> = [
    // Agents read these files with JSON.parse: no trailing commas, no comments, quoted keys.
    ['{\n  "a": 1,\n}\n', "json", 3, 1, "unexpected '}'"],
    ['{\n  // mine\n  "a": 1\n}\n', "json", 2, 3, "unexpected character '/'"],
    ["{\n  a: 1\n}\n", "json", 2, 3, "unexpected character 'a'"],
    ['{\n  "a": 1\n  "b": 2\n}', "json", 3, 3, "unexpected string"],
    ['{\n  "a": }', "json", 2, 8, "unexpected '}'"],
    ['{"a": "x', "json", 1, 9, "unexpected end of input"],
    ['{"a": 1}\n}', "json", 2, 1, "unexpected '}'"],
    ["{\n  a: 1,\n  b: ]\n}", "json5", 3, 6, "unexpected ']'"],
    ['{\n  "a": "two\nlines"\n}', "json", 2, 12, "control character in a string (escape it)"],
    ['{"a": "tab\there"}', "json", 1, 11, "control character in a string (escape it)"],
    ["{a: 'two\nlines'}", "json5", 1, 9, "control character in a string (escape it)"],
    // An unterminated comment is reported where the input ends.
    ["{\n  /* open\n}", "json5", 3, 2, "unexpected end of input"],
  ];
  for (const [text, flavor, line, column, reason] of cases) {
    assert.throws(() => parseJsonDocument(text, flavor, "/h/.claude.json"), (error: unknown) => {
      assert.ok(error instanceof VantageError, String(error));
      assert.equal(error.kind, "conflict");
      assert.equal(
        error.message,
        `/h/.claude.json:${line}:${column}: not valid ${flavor === "json" ? "JSON" : "JSON5"} ` +
          `at line ${line}, column ${column} (${reason}); Vantage never overwrites a file it ` +
          `cannot parse: fix that line (or move the file aside) and run the command again`,
        text,
      );
      assert.deepEqual(error.details, { file: "/h/.claude.json", line, column });
      return true;
    });
  }
  assert.throws(
    () => setJsonValue("[1, 2]", "json", PATH, 1, "f"),
    /the top level is not a JSON object/,
  );
  assert.throws(
    () => setJsonValue('{"mcpServers": []}', "json", PATH, 1, "f"),
    /"mcpServers" is not a JSON object/,
  );
});
