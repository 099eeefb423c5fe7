/**
 * Logging goes to stderr only: stdout belongs to JSON-RPC frames in
 * `mcp-serve` and to command output everywhere else.
 *
 * @module
 */

/** Log levels in increasing severity. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A sink for log lines; the default writes to stderr. */
export type LogSink = (line: string) => void;

const encoder = new TextEncoder();

function stderrSink(line: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // A closed stderr must never take the process down with it.
  }
}

/** A small structured logger. */
export interface Logger {
  /** Logs at debug level. */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Logs at info level. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Logs at warn level. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Logs at error level. */
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Creates a logger that writes `level component: message {fields}` lines at
 * or above `minimum` (default from `VANTAGE_LOG`, else `info`).
 */
export function createLogger(
  component: string,
  options: { minimum?: LogLevel; sink?: LogSink } = {},
): Logger {
  let envLevel: string | undefined;
  try {
    envLevel = Deno.env.get("VANTAGE_LOG");
  } catch {
    envLevel = undefined;
  }
  const minimum = options.minimum ??
    (envLevel !== undefined && envLevel in ORDER ? envLevel as LogLevel : "info");
  const sink = options.sink ?? stderrSink;
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < ORDER[minimum]) return;
    const suffix = fields === undefined ? "" : " " + JSON.stringify(fields);
    sink(`${new Date().toISOString()} ${level} ${component}: ${message}${suffix}`);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}
