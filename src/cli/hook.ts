/**
 * `vantage hook --agent <name>`: called by an agent with one hook payload on
 * stdin. It hands the payload to the server as sent (the server parses it)
 * within a small budget or spools it, prints only what the agent should read
 * (the server's context answer), and always exits 0: a hook must never block
 * or break the agent.
 *
 * @module
 */
import { readEnv, resolvePaths, serverUrl } from "../core/config.ts";
import { deliverHook } from "../agent/hooks/hook_delivery.ts";
import { AGENT_NAMES, parseAgentName } from "../model/agent_records.ts";
import type { Command } from "./command.ts";
import { readStdin, writeStderr, writeStdout } from "./output.ts";

/**
 * Reads `--agent X` / `--agent=X` and `--event X`. Hand-rolled rather than
 * node:util's parseArgs, which would add ~10 ms to every agent tool call.
 */
export function parseHookFlags(args: string[]): { agent?: string; event?: string } {
  const flags: { agent?: string; event?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const match = /^--(agent|event)(?:=(.*))?$/.exec(args[i]);
    if (match === null) throw new Error(`Unknown option '${args[i]}' (see 'vantage hook --help')`);
    const value = match[2] ?? args[++i];
    if (value === undefined) throw new Error(`option '--${match[1]}' needs a value`);
    flags[match[1] as "agent" | "event"] = value;
  }
  return flags;
}

/**
 * The machine the hook runs on, which a team server records with each event: `VANTAGE_HOSTNAME`
 * when set, else the system's host name; undefined when neither can be read (the hook's
 * permissions lack `--allow-sys=hostname`, say), and the event is stored without a host.
 */
function hostName(): string | undefined {
  const given = readEnv("VANTAGE_HOSTNAME");
  if (given !== undefined && given.trim() !== "") return given.trim();
  try {
    return Deno.hostname();
  } catch {
    return undefined;
  }
}

/** Largest payload the hook reads (anything bigger is not a hook payload). */
const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

/** The `hook` command. */
export const command: Command = {
  name: "hook",
  summary: "Receive one agent hook payload on stdin (called by the agent)",
  usage:
    `Usage: vantage hook --agent claude-code|codex|copilot-cli|openclaw [--event NAME] < payload.json

Reads one hook payload on stdin and hands it to the running server
(VANTAGE_URL, or http://127.0.0.1:VANTAGE_PORT) with VANTAGE_TOKEN (on a
team server, your own) and this machine's name (VANTAGE_HOSTNAME, else the
system's host name). If the server does not
answer in time (VANTAGE_HOOK_TIMEOUT_MS, default 300) the payload waits in
the spool and is stored when the server next starts. Prints the server's
context answer for the agent, if any. Always exits 0.`,
  async run(args) {
    try {
      const values = parseHookFlags(args);
      const agent = typeof values.agent === "string" ? parseAgentName(values.agent) : undefined;
      if (agent === undefined) {
        writeStderr(
          `vantage hook: ${
            values.agent === undefined ? "missing --agent" : `unknown agent '${values.agent}'`
          }; use one of ${AGENT_NAMES.join(", ")}; payload ignored`,
        );
        return 0;
      }
      const payload = await readStdin();
      if (payload.trim() === "") {
        writeStderr("vantage hook: empty payload on stdin; nothing recorded");
        return 0;
      }
      if (payload.length > MAX_PAYLOAD_BYTES) {
        writeStderr(
          `vantage hook: payload of ${payload.length} bytes is over ${MAX_PAYLOAD_BYTES}; nothing recorded`,
        );
        return 0;
      }
      const timeout = Number(readEnv("VANTAGE_HOOK_TIMEOUT_MS") ?? 300);
      const outcome = await deliverHook({
        agent,
        event: typeof values.event === "string" ? values.event : undefined,
        payload,
        serverUrl: serverUrl(),
        token: readEnv("VANTAGE_TOKEN"),
        host: hostName(),
        timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 300,
        spoolPath: resolvePaths().spool,
      });
      if (outcome.output !== undefined) writeStdout(JSON.stringify(outcome.output) + "\n");
      const event = values.event ?? outcome.hookEventName;
      if (outcome.spooled && outcome.unreachable && /^session_?start$/i.test(String(event))) {
        // No server: start one; it replays the spool, this event included. Loaded only here, to
        // keep the common path of the hook light (see registry.ts on lazy imports).
        const { startServerInBackground } = await import("../agent/hooks/server_autostart.ts");
        startServerInBackground(resolvePaths());
      }
      if (outcome.invalid) {
        writeStderr(`vantage hook: ${outcome.reason}; nothing recorded`);
      } else if (!outcome.delivered && !outcome.spooled) {
        writeStderr(`vantage hook: payload refused: ${outcome.reason}`);
      }
    } catch (error) {
      writeStderr(`vantage hook: ${error instanceof Error ? error.message : error}`);
    }
    return 0;
  },
};
