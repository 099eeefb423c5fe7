/**
 * `vantage get <hash|name>`: prints a stored document (verified against its
 * hash), writes it to a file, or shows its details — through `docs.get`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, writeStdout } from "./command.ts";
import { OUTPUT_FLAGS, runDocsOperation, sharedFlagsHelp, stringFlag } from "./docs_common.ts";

/** The `get` command. */
export const command: Command = {
  name: "get",
  summary: "Print, save or describe one stored document",
  usage: `Usage: vantage get <hash|name> [options]

Prints a stored document's content (verified against its hash). The
document is named by a content hash (or 8+ hex prefix), a path, a file
name or a path suffix.

Options:
  -o, --output FILE   Write the content to FILE (inside VANTAGE_ROOTS) instead of printing it
  -f, --force         With --output: replace FILE if it exists
  --info              Print the document's details instead of its content
${sharedFlagsHelp(22, { json: "Print the operation's result as JSON (details and content)" })}`,
  async run(args) {
    const { values, positionals } = parseFlags("get", args, {
      output: { type: "string", short: "o" },
      force: { type: "boolean", short: "f" },
      info: { type: "boolean" },
      ...OUTPUT_FLAGS,
    }, 1);
    const target = positionals[0];
    if (target === undefined) {
      throw new VantageError(
        "invalid_arguments",
        "give a hash or a name (see 'vantage get --help')",
      );
    }
    const params: Record<string, unknown> = /^[0-9a-fA-F]{8,64}$/.test(target)
      ? { hash: target }
      : { name: target };
    const output = stringFlag(values.output);
    if (output !== undefined) {
      // Writing a file is docs.export's (a write: docs:write, inside VANTAGE_ROOTS).
      const written = await runDocsOperation("docs.export", {
        ...params,
        outputPath: output,
        overwrite: values.force === true,
      }, values.scopes);
      if (values.json === true) writeStdout(JSON.stringify(written, null, 2) + "\n");
      else writeStdout(`wrote ${written.bytes} bytes to ${written.written_to}\n`);
      return 0;
    }
    if (values.info !== true) params.include_content = true;
    const result = await runDocsOperation("docs.get", params, values.scopes);
    if (values.json === true) {
      writeStdout(JSON.stringify(result, null, 2) + "\n");
    } else if (values.info === true) {
      const { content: _content, ...details } = result;
      writeStdout(JSON.stringify(details, null, 2) + "\n");
    } else if (result.content_encoding === "base64") {
      const bytes = Buffer.from(result.content as string, "base64");
      let written = 0;
      while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
    } else {
      writeStdout(result.content as string);
    }
    return 0;
  },
};
