/**
 * Writing to stdout and stderr, and reading stdin, for the CLI boundary.
 * Kept free of Node compatibility imports: the hook command loads it on
 * every agent tool call, where each millisecond of start-up counts.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Writes text to stdout, tolerating a closed pipe (`vantage ops | head`). */
export function writeStdout(text: string): void {
  try {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
}

/** Writes one line to stderr. */
export function writeStderr(text: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(text.endsWith("\n") ? text : text + "\n"));
  } catch {
    // Nothing useful can be done when stderr is gone.
  }
}

/** Reads all of stdin as text. */
export async function readStdin(): Promise<string> {
  return await new Response(Deno.stdin.readable).text();
}
