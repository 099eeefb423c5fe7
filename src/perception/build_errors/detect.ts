/**
 * Which tool printed some output: named by the command when it runs a known program (through
 * `npx`, `env` and the like), otherwise recognised by the output's fingerprints. Programs and
 * fingerprints come from the registry ({@linkcode TOOL_PARSERS}).
 *
 * @module
 */
import { stripAnsi } from "./helpers.ts";
import { type KnownTool, TOOL_PARSERS } from "./tools.ts";
import type { BuildTool, ToolParser } from "./types.ts";

const TOOLS = Object.entries(TOOL_PARSERS) as Array<[KnownTool, ToolParser]>;

// Commands that identify a tool on their own: program names (one word), and launchers with the
// word that picks the tool (`deno test`, `python -m pytest`), kept apart so that one word of a
// command given as an array never matches a launcher's form.
const PROGRAM_TOOLS = toolsByProgram((program) => !program.includes(" "));
const LAUNCHED_TOOLS = toolsByProgram((program) => program.includes(" "));

function toolsByProgram(keep: (program: string) => boolean): ReadonlyMap<string, BuildTool> {
  return new Map(
    TOOLS.flatMap(([tool, entry]) =>
      entry.programs.filter(keep).map((program) => [program, tool] as const)
    ),
  );
}

// Runners that execute the next word as the program (`npx tsc`, `pnpm exec vitest`).
const PASS_THROUGH = new Set([
  "npx",
  "bunx",
  "pnpx",
  "exec",
  "dlx",
  "run",
  "poetry",
  "uv",
  "pipenv",
]);

function commandWords(command: string | readonly string[]): string[][] {
  if (typeof command !== "string") return [command.map((word) => String(word))];
  return command
    .split(/&&|\|\||;|\|/)
    .map((segment) => segment.trim().split(/\s+/).filter((word) => word !== ""));
}

function baseName(word: string): string {
  const slash = Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\"));
  return (slash === -1 ? word : word.slice(slash + 1)).replace(/\.(exe|cmd|bat)$/i, "");
}

function toolOfWords(words: readonly string[]): BuildTool {
  let i = 0;
  // Skip `VAR=value` assignments and wrappers so `CI=1 npx jest` reads as jest.
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  while (i < words.length) {
    const name = baseName(words[i]);
    // Launchers: the word after them names the tool (`deno test`, `python -m pytest`).
    if (name === "deno") return LAUNCHED_TOOLS.get(`deno ${words[i + 1]}`) ?? "unknown";
    if (/^python[\d.]*$/.test(name) && words[i + 1] === "-m") {
      return LAUNCHED_TOOLS.get(`python -m ${words[i + 2]}`) ?? "unknown";
    }
    const tool = PROGRAM_TOOLS.get(name);
    if (tool !== undefined) return tool;
    if (PASS_THROUGH.has(name) || name === "time" || name === "env" || name === "sudo") {
      i++;
      continue;
    }
    return "unknown";
  }
  return "unknown";
}

/**
 * Names every tool whose output appears in `output` (a `make` or `npm test` run can hold several),
 * the tool named by the command first.
 *
 * @example
 * ```ts
 * detectTools("npm test", "FAIL src/a.test.ts > adds\n");  // ["vitest"]
 * ```
 */
export function detectTools(command: string | readonly string[], output = ""): BuildTool[] {
  const tools: BuildTool[] = [];
  for (const words of commandWords(command)) {
    const tool = toolOfWords(words);
    if (tool !== "unknown" && !tools.includes(tool)) tools.push(tool);
  }
  if (output !== "") {
    const plain = stripAnsi(output);
    // The registry's order: most specific fingerprint first.
    for (const [tool, entry] of TOOLS) {
      if (!tools.includes(tool) && entry.signature.test(plain)) tools.push(tool);
    }
  }
  return tools;
}

/**
 * Names the tool behind a command and its output: the command decides when it names a known
 * program (`tsc`, `deno test`, `cargo`, `python -m pytest`), otherwise the output's fingerprints
 * do (for wrappers like `npm test` or `make`). `"unknown"` when neither tells.
 *
 * @example
 * ```ts
 * detectTool("npx tsc --noEmit");                  // "tsc"
 * detectTool("make", "main.c:3:5: error: x\n");    // "gcc"
 * detectTool("ls");                                // "unknown"
 * ```
 */
export function detectTool(command: string | readonly string[], output = ""): BuildTool {
  return detectTools(command, output)[0] ?? "unknown";
}
