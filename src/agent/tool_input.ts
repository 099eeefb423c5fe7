/**
 * What a tool call touches: the files it reads or writes and the shell command it runs,
 * read from the tool input of any of the four agents.
 *
 * Tool inputs differ per agent — Claude `Edit{file_path}`, `NotebookEdit{notebook_path}`,
 * Codex `exec_command{cmd}` / `shell{command:[…]}` / `apply_patch` patch text, Copilot
 * `edit{path}` / `bash{command}`, OpenClaw `exec{command}` / `write{path}` — and the anomaly
 * rules only care about the file and the command, so both are extracted here once.
 *
 * @module
 */

import { isRecord, str, type UnknownRecord } from "./values.ts";

/** Files and command found in one tool input. */
export interface ToolTarget {
  /** First file the tool reads or writes. */
  file_path?: string;
  /** Every file, when the tool names several. */
  file_paths?: string[];
  /** Full shell command of a shell tool. */
  command?: string;
  /** First word(s) of {@link command}, see {@link commandPrefix}. */
  command_prefix?: string;
}

// Keys that hold a file path in the tool inputs of the agents we know.
const PATH_KEYS = ["file_path", "notebook_path", "filePath", "path", "filename", "file"];

// Tools whose input is a shell command. Lower-cased; MCP tools never match.
const SHELL_TOOLS = new Set([
  "bash",
  "shell",
  "exec_command",
  "exec",
  "local_shell",
  "local_shell_call",
  "container.exec",
  "powershell",
  "run_shell_command",
  "run_terminal_cmd",
  "bashexecution",
]);

/** The shell tools' names, lower-cased (for a store query that picks their calls). */
export const SHELL_TOOL_NAMES: readonly string[] = [...SHELL_TOOLS];

/**
 * Tells whether a tool name denotes a shell tool (`Bash`, `exec_command`, `shell`, `bash`,
 * `exec`, `powershell`).
 *
 * @example
 * ```ts
 * isShellTool("Bash");       // true
 * isShellTool("mcp__x__y");  // false
 * ```
 */
export function isShellTool(toolName: string | undefined): boolean {
  return toolName !== undefined && SHELL_TOOLS.has(toolName.toLowerCase());
}

// `*** Add File: path`, `*** Update File: path`, `*** Delete File: path`, `*** Move to: path`.
const PATCH_HEADER = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/**
 * Lists the files named by the headers of a Codex `apply_patch` patch.
 *
 * @example
 * ```ts
 * patchFiles("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"); // ["a.txt"]
 * ```
 */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  if (!patch.includes("*** ")) return files;
  PATCH_HEADER.lastIndex = 0;
  for (const match of patch.matchAll(PATCH_HEADER)) {
    const file = match[1].trim();
    if (file !== "" && !files.includes(file)) files.push(file);
  }
  return files;
}

function shellCommandOf(input: UnknownRecord): string | undefined {
  const cmd = input.cmd ?? input.command ?? input.script;
  if (typeof cmd === "string") return cmd.trim() === "" ? undefined : cmd;
  if (Array.isArray(cmd) && cmd.every((part) => typeof part === "string")) {
    const parts = cmd as string[];
    // `["bash", "-lc", "npm test"]`: the script is what the agent meant to run.
    const shellFlag = parts.findIndex((part) => /^-[a-z]*c$/.test(part));
    if (shellFlag >= 1 && shellFlag === parts.length - 2 && /(^|\/)(ba|z|da)?sh$/.test(parts[0])) {
      return parts[parts.length - 1];
    }
    const joined = parts.map((p) => (/[\s"'$]/.test(p) ? JSON.stringify(p) : p)).join(" ");
    return joined === "" ? undefined : joined;
  }
  return undefined;
}

/**
 * Extracts the files and the shell command of one tool call.
 *
 * `input` may be an object or a JSON string (Copilot's `toolArgs`, Codex `arguments`); a
 * non-JSON string is taken as the raw input of a freeform tool (Codex `apply_patch`).
 *
 * @example
 * ```ts
 * toolTarget("Bash", { command: "cd app && npm test -- --watch" });
 * // { command: "cd app && npm test -- --watch", command_prefix: "npm test" }
 * toolTarget("Edit", { file_path: "/p/a.ts" }); // { file_path: "/p/a.ts" }
 * ```
 */
export function toolTarget(toolName: string | undefined, input: unknown): ToolTarget {
  const target: ToolTarget = {};
  let record: UnknownRecord | undefined;
  let rawText: string | undefined;
  if (typeof input === "string") {
    const trimmed = input.trim();
    if (trimmed.startsWith("{")) {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        if (isRecord(parsed)) record = parsed;
      } catch {
        rawText = input;
      }
    } else {
      rawText = input;
    }
  } else if (isRecord(input)) {
    record = input;
  }

  const files: string[] = [];
  if (record !== undefined) {
    for (const key of PATH_KEYS) {
      const value = str(record[key]);
      if (value !== undefined && !files.includes(value)) {
        files.push(value);
        break;
      }
    }
    if (Array.isArray(record.edits) && files.length === 0) {
      for (const edit of record.edits) {
        const value = isRecord(edit) ? str(edit.file_path) ?? str(edit.path) : undefined;
        if (value !== undefined && !files.includes(value)) files.push(value);
      }
    }
  }

  const lowerTool = toolName?.toLowerCase() ?? "";
  const patchText = rawText ??
    (record !== undefined ? str(record.patch) ?? str(record.input) : undefined) ??
    (lowerTool === "apply_patch" && record !== undefined ? str(record.command) : undefined);
  if (patchText !== undefined) {
    for (const file of patchFiles(patchText)) if (!files.includes(file)) files.push(file);
  }

  if (record !== undefined && isShellTool(toolName)) {
    const command = shellCommandOf(record);
    if (command !== undefined) {
      target.command = command;
      const prefix = commandPrefix(command);
      if (prefix !== undefined) target.command_prefix = prefix;
      // A shell command embedding a patch (`apply_patch <<'EOF'`) still names its files.
      for (const file of patchFiles(command)) if (!files.includes(file)) files.push(file);
    }
  }

  if (files.length > 0) {
    target.file_path = files[0];
    if (files.length > 1) target.file_paths = files;
  }
  return target;
}

// Wrappers that run the real program: the prefix is about the program, not the wrapper.
const WRAPPERS = new Set(["sudo", "time", "env", "nice", "nohup", "command", "exec", "xargs"]);

// Programs whose first argument is a subcommand worth keeping (`git status`, `npm test`).
const WITH_SUBCOMMAND = new Set([
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "npx",
  "bunx",
  "pnpx",
  "git",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "helm",
  "make",
  "mvn",
  "gradle",
  "./gradlew",
  "gradlew",
  "dotnet",
  "pip",
  "pip3",
  "uv",
  "poetry",
  "pipenv",
  "bundle",
  "rake",
  "mix",
  "composer",
  "swift",
  "terraform",
  "gh",
  "brew",
  "apt",
  "apt-get",
  "nx",
  "turbo",
  "rustup",
  "flutter",
  "dart",
  "zig",
]);

// `npm run build`, `deno task test`, `uv run pytest`, `bundle exec rspec`: the third word is
// the real command.
const RUNNER_SUBCOMMANDS = new Set([
  "npm run",
  "npm exec",
  "pnpm run",
  "pnpm exec",
  "pnpm dlx",
  "yarn run",
  "yarn exec",
  "yarn dlx",
  "bun run",
  "bun x",
  "deno task",
  "uv run",
  "uv tool",
  "poetry run",
  "pipenv run",
  "bundle exec",
  "go tool",
  "docker compose",
  "dotnet tool",
]);

function tokenize(segment: string): string[] {
  const tokens: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of segment.matchAll(re)) {
    tokens.push(match[1] ?? match[2] ?? match[3]);
    if (tokens.length > 12) break;
  }
  return tokens;
}

function isAssignment(token: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(token);
}

/**
 * The first word(s) of a shell command, naming what it runs: `npm test`, `deno task test`,
 * `git status`, `pytest`, `python -m pytest`. Leading `cd … &&`, environment assignments and
 * wrappers such as `sudo` or `time` are skipped; flags are never part of the prefix.
 *
 * @example
 * ```ts
 * commandPrefix("cd web && CI=1 npm run test -- --ci"); // "npm run test"
 * commandPrefix("/usr/bin/git -C repo status");         // "git status"
 * ```
 */
export function commandPrefix(command: string): string | undefined {
  // Split on command separators and take the first segment that is not just a `cd`.
  const segments = command.split(/&&|\|\||;|\||\n/);
  for (const segment of segments) {
    const tokens = tokenize(segment.trim());
    let i = 0;
    while (i < tokens.length && (isAssignment(tokens[i]) || WRAPPERS.has(tokens[i]))) i++;
    if (i >= tokens.length) continue;
    const program = tokens[i].replace(/^.*\//, (m) => (m === "./" ? m : ""));
    if (program === "cd" || program === "pushd" || program === "popd" || program === "set") {
      continue;
    }
    const words = [program];
    const nextWord = (from: number): [string | undefined, number] => {
      let j = from;
      while (j < tokens.length) {
        const token = tokens[j];
        // `git -C dir status`, `go -C dir test`: skip the flag and its value.
        if (token === "-C" || token === "--prefix" || token === "--cwd" || token === "--dir") {
          j += 2;
          continue;
        }
        if (token.startsWith("-")) {
          j++;
          continue;
        }
        return [token, j];
      }
      return [undefined, j];
    };
    if (/^python[0-9.]*$/.test(program) && tokens[i + 1] === "-m" && tokens[i + 2] !== undefined) {
      return `${program} -m ${tokens[i + 2]}`;
    }
    if (WITH_SUBCOMMAND.has(program)) {
      const [sub, at] = nextWord(i + 1);
      if (sub !== undefined && !/[=<>$`]/.test(sub)) {
        words.push(sub);
        if (RUNNER_SUBCOMMANDS.has(`${program} ${sub}`)) {
          const [third] = nextWord(at + 1);
          if (third !== undefined && !/[=<>$`]/.test(third)) words.push(third);
        }
      }
    }
    return words.join(" ").slice(0, 200);
  }
  return undefined;
}
