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
const output = resolve(Deno.args[0] ?? join(root, "dist", "vantage"));
// A compiled executable cannot widen its permissions when it starts, so HOME, VANTAGE_HOME and
// VANTAGE_ROOTS are read now, at build time, for the set baked into it.
// It may run git (serve's sensors) and itself: `vantage query-worker` is exec_query's query process.
const flags = permissionFlags("cli", resolvePaths(), documentRoots()).filter((flag) =>
  !flag.startsWith("--allow-run=")
);
const args = [
  "compile",
  "--no-prompt",
  ...flags,
  `--allow-run=git,${output}`,
  // The CLI imports command modules by computed specifiers, which compile cannot follow.
  "--include",
  join(root, "src", "cli", "query_worker.ts"),
  "--output",
  output,
  join(root, "main.ts"),
];

const result = await new Deno.Command(Deno.execPath(), { args, stdout: "piped", stderr: "piped" })
  .output();
const stderr = new TextDecoder().decode(result.stderr);
if (result.code === 0) {
  console.log(`compiled ${output}`);
  Deno.exit(0);
}
if (
  /denort|dl\.deno\.land|dns error|error sending request|failed to lookup|Connection refused/i.test(
    stderr,
  )
) {
  console.log(
    "compile skipped: Deno's runtime for `deno compile` cannot be downloaded on this machine",
  );
  Deno.exit(0);
}
console.error(stderr.trim());
Deno.exit(result.code);
