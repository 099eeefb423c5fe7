/**
 * `deno task compile`: builds one `vantage` executable with the scoped
 * permission set baked in. `deno compile` needs Deno's runtime archive from
 * the internet the first time; where it cannot be fetched this script says
 * so in one line and exits 0 instead of failing the build.
 */
import { join, resolve } from "node:path";
import { resolvePaths } from "../src/core/config.ts";
import { documentRoots, permissionFlags } from "../src/core/permissions.ts";

const root = new URL("..", import.meta.url).pathname;

/**
 * The worker modules, which `deno compile` does not find by itself (a
 * worker is started from a URL, not imported). The commands it does find:
 * the CLI imports each with a literal `import()`. A test checks this list
 * against the workers `src/` starts.
 */
export const WORKER_MODULES: readonly string[] = [
  "src/docs/doc_index_worker.ts",
  "src/server/telemetry_intake_worker.ts",
  "src/store/checkpoint_worker.ts",
  "src/store/agent/message_index_worker.ts",
  "src/store/query/query_watchdog_worker.ts",
  "src/store/quick_check_worker.ts",
];

/** The `deno` arguments that compile `vantage` to `output`. */
export function compileArguments(output: string): string[] {
  // A compiled executable cannot widen its permissions when it starts, so HOME, VANTAGE_HOME and
  // VANTAGE_ROOTS are read now, at build time, for the set baked into it.
  // It may run git (serve's sensors) and itself: `vantage query-worker` is exec_query's query process.
  const flags = permissionFlags("cli", resolvePaths(), documentRoots()).filter((flag) =>
    !flag.startsWith("--allow-run=")
  );
  return [
    "compile",
    "--no-prompt",
    ...flags,
    `--allow-run=git,${output}`,
    ...WORKER_MODULES.flatMap((module) => ["--include", join(root, module)]),
    "--output",
    output,
    join(root, "main.ts"),
  ];
}

async function compile(output: string): Promise<number> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: compileArguments(output),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(result.stderr);
  if (result.code === 0) {
    console.log(`compiled ${output}`);
    return 0;
  }
  if (
    /denort|dl\.deno\.land|dns error|error sending request|failed to lookup|Connection refused/i
      .test(stderr)
  ) {
    console.log(
      "compile skipped: Deno's runtime for `deno compile` cannot be downloaded on this machine",
    );
    return 0;
  }
  console.error(stderr.trim());
  return result.code;
}

if (import.meta.main) {
  Deno.exit(await compile(resolve(Deno.args[0] ?? join(root, "dist", "vantage"))));
}
