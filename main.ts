/**
 * The `vantage` executable: parses argv and hands it to the CLI.
 *
 * @module
 */
import { runCli } from "./src/cli/run.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
