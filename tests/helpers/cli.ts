/** Runs the real CLI as a child process and captures its output. */
import { MAIN } from "./mcp_stdio.ts";

/** What a CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `vantage <args>` with `deno run -A`, optional stdin and environment. */
export async function runVantage(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; flags?: string[] } = {},
): Promise<CliRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...(options.flags ?? ["-A"]), MAIN, ...args],
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: options.env,
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
