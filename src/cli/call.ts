/**
 * `vantage call <operation_id> [json]`: runs one operation through the same
 * executor as every other surface.
 *
 * @module
 */
import { exitCodeFor, VantageError } from "../core/errors.ts";
import { builtinCatalog } from "../ops/builtin.ts";
import { executeOperation } from "../ops/executor.ts";
import { vantageServices } from "../ops/runtime.ts";
import { callerFromFlags } from "./caller.ts";
import { type Command, parseFlags, readStdin, writeStderr, writeStdout } from "./command.ts";

/** The `call` command. */
export const command: Command = {
  name: "call",
  summary: "Run one operation: vantage call <operation_id> '<json>'",
  usage: `Usage: vantage call <operation_id> [json | -] [options]

Runs one operation with arguments given as a JSON object (or read from
stdin with '-'), and prints its result as JSON.

Options:
  --scopes LIST   Act with these scopes (comma-separated; default: all local scopes)
  --json          Print the whole response envelope, errors included, on stdout
  -h, --help      Show this help

Examples:
  vantage call dex.describe '{"target":"dex.list_cassettes"}'
  echo '{}' | vantage call dex.list_cassettes -`,
  async run(args) {
    const { values, positionals } = parseFlags("call", args, {
      scopes: { type: "string" },
      json: { type: "boolean" },
    }, 2);
    const operationId = positionals[0];
    if (operationId === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "missing <operation_id> (see 'vantage call --help')",
      );
    }
    const text = positionals[1] === "-" ? await readStdin() : positionals[1] ?? "{}";
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new VantageError(
        "invalid_arguments",
        `arguments are not valid JSON (${
          error instanceof Error ? error.message : error
        }); give an object such as '{"limit": 5}'`,
      );
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new VantageError(
        "invalid_arguments",
        "arguments must be a JSON object such as '{\"limit\": 5}'",
      );
    }
    const caller = callerFromFlags(values.scopes);
    const services = vantageServices();
    try {
      const response = await executeOperation(builtinCatalog(), operationId, parsed, caller, {
        services,
      });
      if (values.json === true) {
        writeStdout(JSON.stringify(response, null, 2) + "\n");
        return "result" in response
          ? 0
          : "error" in response
          ? exitCodeFor(response.error.kind)
          : 1;
      }
      if ("result" in response) {
        writeStdout(JSON.stringify(response.result, null, 2) + "\n");
        return 0;
      }
      if ("operation_error" in response) {
        writeStderr(`vantage call: ${operationId} failed: ${response.operation_error.message}`);
        return 1;
      }
      writeStderr(`vantage call: ${response.error.message}`);
      return exitCodeFor(response.error.kind);
    } finally {
      services.close();
    }
  },
};
