/**
 * A test-only stand-in for the CLI entry: runs `install`, `uninstall` or
 * `doctor` the way `runCli` does (errors become one stderr line and an exit
 * code), until the command registry lists them.
 */
import { exitCodeFor, toErrorObject } from "../../src/core/errors.ts";
import { writeStderr, writeStdout } from "../../src/cli/command.ts";
import type { Command } from "../../src/cli/command.ts";

const loaders: Record<string, () => Promise<Command>> = {
  install: async () => (await import("../../src/cli/install.ts")).command,
  uninstall: async () => (await import("../../src/cli/uninstall.ts")).command,
  doctor: async () => (await import("../../src/cli/doctor.ts")).command,
};

if (import.meta.main) {
  const [name, ...rest] = Deno.args;
  const load = loaders[name];
  if (load === undefined) {
    writeStderr(`run_command: unknown command '${name}'`);
    Deno.exit(2);
  }
  try {
    const command = await load();
    if (rest.includes("--help")) {
      writeStdout(command.usage + "\n");
      Deno.exit(0);
    }
    Deno.exit(await command.run(rest));
  } catch (error) {
    const object = toErrorObject(error);
    writeStderr(`vantage ${name}: ${object.message}`);
    Deno.exit(exitCodeFor(object.kind));
  }
}
