/**
 * Prompt templates: a few built in, plus `PROMPT-*.md` files from the data
 * home's `prompts` folder (name = file name without `PROMPT-` and extension,
 * dashes to underscores), served whole as one assistant message.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { VantageError } from "../core/errors.ts";
import { describeRefusedPath, isPermissionRefusal } from "../core/permissions.ts";

/** One prompt argument. */
export interface PromptArgument {
  /** Argument name. */
  name: string;
  /** What to pass. */
  description: string;
  /** Whether it must be given. */
  required?: boolean;
}

/** A prompt as `prompts/list` shows it. */
export interface PromptInfo {
  /** The prompt's name. */
  name: string;
  /** What it is for. */
  description: string;
  /** Its arguments, when it has any. */
  arguments?: PromptArgument[];
}

/** A message of a rendered prompt. */
export interface PromptMessage {
  /** Who says it. */
  role: "user" | "assistant";
  /** The text. */
  content: { type: "text"; text: string };
}

interface BuiltinPrompt extends PromptInfo {
  render(args: Record<string, string>): string;
}

const BUILTIN: BuiltinPrompt[] = [
  {
    name: "search_codebase",
    description: "Search stored documents and code for a pattern, then read the best hits",
    arguments: [
      { name: "pattern", description: "Words or a regular expression to look for", required: true },
      { name: "file_type", description: "Only files with this extension, e.g. ts" },
    ],
    render: (args) =>
      `Find where "${args.pattern}" appears${
        args.file_type ? ` in .${args.file_type} files` : ""
      }. Search the stored documents (search, then grep for exact matches), read the two or three best hits in full with get, and summarise what you found with paths and line numbers.`,
  },
  {
    name: "how_did_we_fix",
    description: "Look through past agent sessions for how a problem was solved before",
    arguments: [{ name: "problem", description: "The error or topic", required: true }],
    render: (args) =>
      `Before changing anything, check whether this came up before: search past sessions for "${args.problem}" (search_sessions, across agents), open the most relevant transcript (get_session_transcript) and report what was tried, what worked, and what to avoid.`,
  },
  {
    name: "catch_up",
    description: "Summarise what is going on in this project right now",
    render: () =>
      `Get the context bundle for this project (get_context_bundle), then list: what the current session has been doing, any anomalies with their suggestions, the build state, files changed outside the agent, and peer agents' recent sessions (get_peer_sessions). Keep it short and say what to do next.`,
  },
];

/** Lists built-in and file-backed prompts; a missing folder just means none. */
export function listPrompts(promptsDir: string): PromptInfo[] {
  const prompts: PromptInfo[] = BUILTIN.map(({ name, description, arguments: args }) => ({
    name,
    description,
    ...(args !== undefined ? { arguments: args } : {}),
  }));
  const builtinNames = new Set(prompts.map((p) => p.name));
  for (const file of promptFiles(promptsDir)) {
    if (builtinNames.has(file.name)) continue;
    prompts.push({ name: file.name, description: `${file.title} (from ${file.fileName})` });
  }
  return prompts;
}

/**
 * Renders the prompt `name`; `not_found` when there is none, and
 * `invalid_arguments` when a required argument is missing.
 */
export function getPrompt(
  promptsDir: string,
  name: string,
  args: Record<string, string> = {},
): { description: string; messages: PromptMessage[] } {
  const builtin = BUILTIN.find((prompt) => prompt.name === name);
  if (builtin !== undefined) {
    for (const argument of builtin.arguments ?? []) {
      if (argument.required === true && (args[argument.name] ?? "") === "") {
        throw new VantageError(
          "invalid_arguments",
          `prompt '${name}' needs argument '${argument.name}' (${argument.description})`,
        );
      }
    }
    return {
      description: builtin.description,
      messages: [{ role: "user", content: { type: "text", text: builtin.render(args) } }],
    };
  }
  const file = promptFiles(promptsDir).find((candidate) => candidate.name === name);
  if (file === undefined) {
    throw new VantageError("not_found", `no prompt named '${name}'`, { details: { name } });
  }
  return {
    description: `${file.title} (from ${file.fileName})`,
    messages: [{
      role: "assistant",
      content: { type: "text", text: readFileSync(file.path, "utf8") },
    }],
  };
}

interface PromptFile {
  name: string;
  fileName: string;
  path: string;
  title: string;
}

function promptFiles(dir: string): PromptFile[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    if (isPermissionRefusal(error)) {
      throw new VantageError("forbidden", describeRefusedPath(dir, "read"), {
        details: { path: dir },
      });
    }
    // No prompts folder yet simply means no file-backed prompts.
    return [];
  }
  const files: PromptFile[] = [];
  for (const fileName of entries.sort()) {
    const match = /^PROMPT-(.+)\.(md|markdown|txt)$/i.exec(fileName);
    if (match === null) continue;
    const path = join(dir, fileName);
    let title = match[1];
    try {
      const firstHeading = /^#\s+(.+)$/m.exec(readFileSync(path, "utf8").slice(0, 4096));
      if (firstHeading !== null) title = firstHeading[1].trim();
    } catch {
      continue;
    }
    files.push({ name: match[1].replaceAll("-", "_"), fileName, path, title });
  }
  return files;
}
