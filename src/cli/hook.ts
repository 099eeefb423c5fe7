/**
 * `vantage hook --agent <name>`: called by an agent with one hook payload on
 * stdin. It must never block or break the agent, so every outcome exits 0.
 * Storing the payload is built in later work; until then the hook reads its
 * input, says so on stderr and exits 0.
 *
 * @module
 */
import { type Command, parseFlags, readStdin, writeStderr } from "./command.ts";

/** The `hook` command. */
export const command: Command = {
  name: "hook",
  summary: "Receive one agent hook payload on stdin (called by the agent)",
  usage: `Usage: vantage hook --agent claude-code|codex|copilot-cli|openclaw < payload.json

Reads one hook payload on stdin. Always exits 0 so the agent is never blocked.
Not available in this version yet: the payload is read and dropped.`,
  async run(args) {
    try {
      parseFlags("hook", args, { agent: { type: "string" } });
      await readStdin();
      writeStderr("vantage hook: hook ingestion is not part of this version yet; payload ignored");
    } catch (error) {
      writeStderr(`vantage hook: ${error instanceof Error ? error.message : error}`);
    }
    return 0;
  },
};
