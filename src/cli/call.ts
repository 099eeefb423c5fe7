/**
 * `vantage call <operation_id> [json]`: runs one operation through the same
 * executor as every other surface.
 *
 * @module
 */
import { exitCodeFor, VantageError } from "../core/errors.ts";
import { VANTAGE_NAMING } from "../mcp/operation_names.ts";
import { catalogForOperation } from "../ops/builtin_index.ts";
import { executeOperation, type ExecuteResponse, failureOf } from "../ops/executor.ts";
import { vantageServices } from "../ops/runtime.ts";
import { callerFromFlags } from "./caller.ts";
import { type Command, parseFlags, readStdin, writeStderr, writeStdout } from "./command.ts";

/**
 * The exit code of `vantage call` for an executor response: 0 for a result,
 * otherwise the failure kind's code — the executor's kind, or the one an
 * operation raised (an operation's own `forbidden` exits 3, like the
 * executor's).
 */
export function callExitCode(response: ExecuteResponse): number {
  const failure = failureOf(response);
  return failure === undefined ? 0 : exitCodeFor(failure.kind);
}

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
      // The called operation's module alone: building every operation's schemas cost most of a
      // call's time.
      const catalog = await catalogForOperation(operationId, { naming: VANTAGE_NAMING });
      const response = await executeOperation(catalog, operationId, parsed, caller, { services });
      const failure = failureOf(response);
      if (values.json === true) {
        writeStdout(JSON.stringify(response, null, 2) + "\n");
      } else if (failure === undefined) {
        writeStdout(JSON.stringify((response as { result: unknown }).result, null, 2) + "\n");
      } else {
        writeStderr(
          "operation_error" in response
            ? `vantage call: ${operationId} failed: ${failure.message}`
            : `vantage call: ${failure.message}`,
        );
      }
      return callExitCode(response);
    } finally {
      services.close();
    }
  },
};
