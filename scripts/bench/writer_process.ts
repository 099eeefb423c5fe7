/**
 * One writer process of the concurrent-writers benchmark: opens the data
 * home given as its first argument the way every Vantage process does, then
 * for the given seconds stores hook events (`hooks`) or adds small documents
 * through the operation catalog (`docs`), and prints how many it stored and
 * how long each took, as JSON on stdout.
 *
 * Usage: deno run -A writer_process.ts <data home> hooks|docs <seconds> <start at epoch ms>
 */
import { resolvePaths } from "../../src/core/config.ts";
import { takeHookDelivery } from "../../src/agent/hooks/hook_intake.ts";
import { builtinCatalog } from "../../src/ops/builtin.ts";
import { executeOperation } from "../../src/ops/executor.ts";
import { DATABASE, vantageServices } from "../../src/ops/runtime.ts";

const [home, kind, secondsText, startText] = Deno.args;
const services = vantageServices(resolvePaths(home));
const db = services.get(DATABASE);
const catalog = builtinCatalog();
// Every writer starts at the same moment, after all have opened the store.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startText) - Date.now())));
const deadline = performance.now() + Number(secondsText) * 1000;
const latencies: number[] = [];
const started = performance.now();
let failures = 0;
for (let i = 0; performance.now() < deadline; i++) {
  const t0 = performance.now();
  if (kind === "hooks") {
    const result = takeHookDelivery(db, {
      agent: "claude_code",
      delivery_id: crypto.randomUUID(),
      received_at: Date.now(),
      payload: JSON.stringify({
        session_id: `bench-${Deno.pid}`,
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: `echo ${i}` },
        tool_response: { stdout: `${i}\n`, exitCode: 0 },
        cwd: "/work/bench",
      }),
    });
    if (!result.stored) failures++;
  } else {
    const response = await executeOperation(
      catalog,
      "docs.add",
      {
        content: `# note ${Deno.pid}-${i}\n\n${crypto.randomUUID()} ${
          "words of a short note ".repeat(40)
        }`,
        name: `w${Deno.pid}-${i}.md`,
      },
      { scopes: ["docs:write"] },
      { services },
    );
    if (!("result" in response)) failures++;
  }
  latencies.push(performance.now() - t0);
}
const ms = performance.now() - started;
services.close();
console.log(JSON.stringify({ ops: latencies.length, failures, ms, latencies }));
