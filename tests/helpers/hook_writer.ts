/**
 * A writer in another process, as a hook is to `serve`: it stores one hook
 * event after another into a store until a stop file appears, and prints,
 * for each, how many telemetry spans were committed when it wrote (what its
 * transaction saw). A line `ready` comes after its first write.
 *
 * Usage: deno run -A hook_writer.ts STORE_FILE STOP_FILE
 */
import { existsSync } from "node:fs";
import { insertHookEvent } from "../../src/store/agent/events.ts";
import { openDatabase, transaction } from "../../src/store/database.ts";

const [path, stopFile] = Deno.args;
const db = openDatabase(path);
const count = db.prepare("SELECT count(*) AS n FROM telemetry_spans");
const seen: number[] = [];
for (let i = 0; !existsSync(stopFile); i++) {
  seen.push(transaction(db, () => {
    insertHookEvent(
      db,
      {
        agent: "claude_code",
        session_id: "hook-writer",
        event_type: "PostToolUse",
        ts: Date.now(),
        tool_name: "Read",
        raw: {},
      },
      `hook-writer-${i}`,
      Date.now(),
    );
    return (count.get() as { n: number }).n;
  }));
  if (i === 0) console.log("ready");
  // A hook every millisecond or so: always one waiting while an export is stored.
  await new Promise((resolve) => setTimeout(resolve, 1));
}
db.close();
console.log(JSON.stringify(seen));
