/**
 * `vantage ingest`: backfill the agents' existing session history.
 *
 * @module
 */
import { resolvePaths } from "../core/config.ts";
import { VantageError } from "../core/errors.ts";
import { backfill, type BackfillProgress } from "../agent/backfill.ts";
import { AGENT_NAMES, type AgentName, parseAgentName } from "../model/agent_records.ts";
import { loadPriceOverrides } from "../agent/usage/price_overrides.ts";
import { maxMessageId } from "../store/agent/messages.ts";
import { startCheckpointer } from "../store/checkpointer.ts";
import { openDatabase, setCheckpointInterval } from "../store/database.ts";
import { MessageIndexer } from "../store/agent/message_index.ts";
import { INDEX_BATCH } from "../store/agent/schema.ts";
import { type Command, parseFlags, writeStderr, writeStdout } from "./command.ts";

/** Parses `--since`: `30m`, `12h`, `7d`, or an ISO date. */
export function parseSince(text: string, now: number): number {
  const relative = /^(\d+)\s*(m|h|d)$/.exec(text.trim());
  if (relative !== null) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as "m" | "h" | "d"];
    return now - Number(relative[1]) * unit;
  }
  const date = Date.parse(text);
  if (Number.isNaN(date)) {
    throw new VantageError(
      "invalid_arguments",
      `--since must look like 30m, 12h, 7d or a date; got '${text}'`,
    );
  }
  return date;
}

function bar(progress: BackfillProgress): string {
  const fraction = progress.bytesTotal === 0 ? 1 : progress.bytesDone / progress.bytesTotal;
  const width = 30;
  const filled = Math.round(fraction * width);
  const mb = (n: number) => (n / 1e6).toFixed(1);
  return `\r[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${
    (fraction * 100).toFixed(0).padStart(3)
  }%  ` +
    `${mb(progress.bytesDone)}/${
      mb(progress.bytesTotal)
    } MB  files ${progress.filesDone}/${progress.filesTotal}`;
}

/** The `ingest` command. */
export const command: Command = {
  name: "ingest",
  summary: "Import existing agent session history (backfill)",
  usage: `Usage: vantage ingest [options]

Imports every agent's existing session transcripts into the store, resuming
from where earlier imports (or the server) stopped. Shows a progress bar on
a terminal and prints a summary.

Options:
  --agent LIST   Only these agents (${AGENT_NAMES.join(", ")}; aliases allowed)
  --since WHEN   Only files modified since 30m, 12h, 7d or a date
  --json         Print the summary as JSON
  -h, --help     Show this help`,
  async run(args) {
    const { values } = parseFlags("ingest", args, {
      agent: { type: "string" },
      since: { type: "string" },
      json: { type: "boolean" },
    });
    let agents: AgentName[] | undefined;
    if (typeof values.agent === "string") {
      agents = values.agent.split(",").map((name) => {
        const agent = parseAgentName(name);
        if (agent === undefined) {
          throw new VantageError(
            "invalid_arguments",
            `unknown agent '${name.trim()}'; use ${AGENT_NAMES.join(", ")}`,
          );
        }
        return agent;
      });
    }
    const since = typeof values.since === "string"
      ? parseSince(values.since, Date.now())
      : undefined;
    const paths = resolvePaths();
    const db = openDatabase(paths.database);
    // Checkpoints wait on the disk (copying the WAL into the database file, then syncing it):
    // on a worker they overlap the reading and parsing instead of stalling it after each batch.
    const checkpointer = startCheckpointer(paths.database);
    if (checkpointer !== undefined) setCheckpointInterval(db, 0);
    const indexer = await MessageIndexer.start(paths.database, () => maxMessageId(db));
    const showBar = Deno.stderr.isTerminal() && values.json !== true;
    let lastDraw = 0;
    try {
      const summary = await backfill(db, {
        home: paths.userHome,
        agents,
        since,
        prices: loadPriceOverrides(paths.home),
        onProgress: (progress) => {
          // The worker indexes committed batches while the next ones are read, a full
          // transaction's worth at a time (the rest once the backfill is done).
          indexer.kick(INDEX_BATCH);
          const now = performance.now();
          if (!showBar || (now - lastDraw < 100 && progress.filesDone < progress.filesTotal)) {
            return;
          }
          lastDraw = now;
          writeStderrRaw(bar(progress));
        },
      });
      const finishedAt = performance.now();
      // The run is done when the new messages are searchable, and is timed that way.
      await indexer.caughtUp();
      if (showBar) writeStderrRaw("\n");
      const seconds = (summary.elapsed_ms + (performance.now() - finishedAt)) / 1000;
      const report = {
        files: summary.files,
        files_seen: summary.files_seen,
        sessions: summary.sessions.size,
        messages: summary.messages,
        usage_records: summary.usage,
        tool_calls: summary.tool_calls,
        lines: summary.lines,
        skipped_lines: summary.malformed,
        unknown_lines: summary.unknown,
        bytes: summary.bytes,
        seconds: Math.round(seconds * 100) / 100,
        mb_per_second: seconds > 0 ? Math.round((summary.bytes / 1e6 / seconds) * 10) / 10 : 0,
      };
      if (values.json === true) {
        writeStdout(JSON.stringify(report) + "\n");
      } else {
        writeStdout(
          `Ingested ${report.files} of ${report.files_seen} files: ${report.sessions} sessions, ` +
            `${report.messages} messages, ${report.tool_calls} tool calls, ${report.usage_records} usage records; ` +
            `skipped ${report.skipped_lines} malformed lines (${report.unknown_lines} of unknown types) ` +
            `in ${report.seconds}s (${report.mb_per_second} MB/s).\n`,
        );
      }
      return 0;
    } finally {
      await checkpointer?.stop();
      indexer.close();
      db.close();
    }
  },
};

function writeStderrRaw(text: string): void {
  try {
    Deno.stderr.writeSync(new TextEncoder().encode(text));
  } catch {
    writeStderr(text);
  }
}
