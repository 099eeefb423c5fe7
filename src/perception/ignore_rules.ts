/**
 * Which paths of a project the sensors look at: `.gitignore` semantics (nested files, negation,
 * directory-only and anchored patterns, `**`) on top of a built-in list of directories no agent
 * edits by hand (`node_modules`, `.git`, `dist`, `target`, virtual envs, caches, …) and editor
 * droppings (`*.swp`, vim's `4913` probe file, `*~`).
 *
 * Paths given to the matcher are relative to the project root, `/`-separated, without a
 * leading `./` — {@linkcode toRelativePath} turns an absolute path into that form.
 *
 * @module
 */

import { translateGlobClass } from "../core/glob_class.ts";
import { relative, sep } from "node:path";

/**
 * Directory names ignored at any depth. These hold dependencies, build output, caches or VCS
 * data: watching them costs watches and produces noise, and nobody edits them by hand.
 */
export const BUILTIN_IGNORED_DIRS: readonly string[] = [
  ".git",
  ".hg",
  ".svn",
  ".jj",
  "node_modules",
  "bower_components",
  "jspm_packages",
  ".pnpm-store",
  ".yarn",
  "dist",
  "build",
  "out",
  "target",
  "obj",
  "vendor",
  ".venv",
  "venv",
  ".tox",
  ".nox",
  "__pycache__",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".hypothesis",
  ".ipynb_checkpoints",
  ".eggs",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".astro",
  ".angular",
  ".expo",
  ".vercel",
  ".netlify",
  ".turbo",
  ".parcel-cache",
  ".cache",
  ".vite",
  ".vitepress",
  ".docusaurus",
  ".output",
  "coverage",
  ".nyc_output",
  ".gradle",
  ".idea",
  ".vscode",
  ".vs",
  ".terraform",
  ".serverless",
  ".gocache",
  ".zig-cache",
  "zig-out",
  ".stack-work",
  "_build",
  ".dart_tool",
  "Pods",
  "DerivedData",
  ".bundle",
  ".vantage",
];

/**
 * File patterns (gitignore syntax) ignored everywhere: editor swap/backup files, compiled
 * Python, logs and OS metadata. Editors create and delete these around every save, so they
 * would otherwise show up as changes the agent did not make.
 */
export const BUILTIN_IGNORED_FILES: readonly string[] = [
  "*.swp",
  "*.swo",
  "*.swx",
  "*~",
  "4913",
  ".#*",
  "#*#",
  "*.pyc",
  "*.pyo",
  "*.class",
  "*.o",
  "*.obj",
  "*.log",
  "*.tmp",
  ".DS_Store",
  "Thumbs.db",
  "desktop.ini",
];

/** One parsed line of a `.gitignore` file. */
export interface GitignoreRule {
  /** The line as written (after trimming trailing spaces). */
  source: string;
  /** `!pattern`: re-includes what an earlier rule excluded. */
  negate: boolean;
  /** `pattern/`: matches directories only. */
  dir_only: boolean;
  /** The pattern contained a `/` before its end: it matches the whole path below `base`. */
  anchored: boolean;
  /** Directory of the `.gitignore` relative to the root (`""` for the root itself). */
  base: string;
  /** Compiled matcher: tested against the base name, or the path below `base` when anchored. */
  regex: RegExp;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

// Glob body to regex source with gitignore's rules for `**`: only `**/` at the start, `/**` at
// the end and `/**/` in the middle are special; any other `**` behaves like `*`.
function globToRegexSource(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const char = glob[i];
    if (char === "*") {
      let run = 1;
      while (glob[i + run] === "*") run++;
      const atSegmentStart = i === 0 || glob[i - 1] === "/";
      const next = glob[i + run];
      if (run >= 2 && atSegmentStart && next === "/") {
        // `**/` : zero or more whole directories.
        out += "(?:[^/]*/)*";
        i += run + 1;
        continue;
      }
      if (run >= 2 && atSegmentStart && next === undefined) {
        // trailing `/**` : everything inside.
        out += ".*";
        i += run;
        continue;
      }
      out += "[^/]*";
      i += run;
      continue;
    }
    if (char === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (char === "[") {
      const cls = translateGlobClass(glob, i);
      if (cls !== undefined) {
        out += cls.source;
        i = cls.next;
        continue;
      }
      out += "\\[";
      i++;
      continue;
    }
    if (char === "\\" && i + 1 < glob.length) {
      const escaped = glob[i + 1];
      out += REGEX_SPECIAL.test(escaped) ? `\\${escaped}` : escaped;
      i += 2;
      continue;
    }
    out += REGEX_SPECIAL.test(char) ? `\\${char}` : char;
    i++;
  }
  return out;
}

/**
 * Parses one `.gitignore` pattern line. Returns undefined for blank lines and comments.
 *
 * @example
 * ```ts
 * parseGitignoreLine("/build/", "")?.anchored; // true
 * parseGitignoreLine("# note", "");            // undefined
 * ```
 */
export function parseGitignoreLine(line: string, base = ""): GitignoreRule | undefined {
  // Trailing spaces are dropped unless escaped; a trailing `\r` comes from CRLF files.
  let text = line.replace(/\r$/, "");
  text = text.replace(/(?<!\\)\s+$/, "");
  if (text === "" || text.startsWith("#")) return undefined;
  const source = text;
  let negate = false;
  if (text.startsWith("!")) {
    negate = true;
    text = text.slice(1);
  } else if (text.startsWith("\\!") || text.startsWith("\\#")) {
    text = text.slice(1);
  }
  let dirOnly = false;
  if (text.endsWith("/") && !text.endsWith("\\/")) {
    dirOnly = true;
    text = text.replace(/\/+$/, "");
  }
  if (text === "") return undefined;
  const anchored = text.includes("/");
  if (text.startsWith("/")) text = text.slice(1);
  const body = globToRegexSource(text);
  return {
    source,
    negate,
    dir_only: dirOnly,
    anchored,
    base,
    regex: new RegExp(`^${body}$`),
  };
}

/**
 * Parses the text of a `.gitignore` file living in directory `base` (relative to the root).
 *
 * @example
 * ```ts
 * parseGitignore("node_modules/\n!keep.log\n*.log\n").length; // 3
 * ```
 */
export function parseGitignore(text: string, base = ""): GitignoreRule[] {
  const rules: GitignoreRule[] = [];
  for (const line of text.split("\n")) {
    const rule = parseGitignoreLine(line, base);
    if (rule !== undefined) rules.push(rule);
  }
  return rules;
}

/**
 * Tells whether one rule matches a path (relative to the root). Does not look at ancestors.
 *
 * @example
 * ```ts
 * const rule = parseGitignoreLine("docs/*.md", "")!;
 * ruleMatches(rule, "docs/a.md", false); // true
 * ruleMatches(rule, "x/docs/a.md", false); // false: anchored to the .gitignore's directory
 * ```
 */
export function ruleMatches(rule: GitignoreRule, relPath: string, isDir: boolean): boolean {
  if (rule.dir_only && !isDir) return false;
  let below = relPath;
  if (rule.base !== "") {
    if (!relPath.startsWith(`${rule.base}/`)) return false;
    below = relPath.slice(rule.base.length + 1);
  }
  if (rule.anchored) return rule.regex.test(below);
  const slash = below.lastIndexOf("/");
  return rule.regex.test(slash === -1 ? below : below.slice(slash + 1));
}

/** Options for {@linkcode IgnoreMatcher}. */
export interface IgnoreMatcherOptions {
  /** Apply {@linkcode BUILTIN_IGNORED_DIRS} and {@linkcode BUILTIN_IGNORED_FILES}. Default true. */
  builtin?: boolean;
  /** Extra root-level patterns in gitignore syntax (evaluated before any `.gitignore`). */
  extraPatterns?: readonly string[];
}

/**
 * Decides whether a project path is ignored: built-in names first (they cannot be re-included,
 * which keeps `node_modules` out even when a `.gitignore` says `!node_modules`), then every
 * loaded `.gitignore`, parents before children, last matching rule wins.
 *
 * @example
 * ```ts
 * const m = new IgnoreMatcher();
 * m.setGitignore("", "*.gen.ts\n!keep.gen.ts\n");
 * m.ignores("src/a.gen.ts", false);     // true
 * m.ignores("src/keep.gen.ts", false);  // false
 * m.ignores("node_modules/x/y.js", false); // true (built-in)
 * ```
 */
export class IgnoreMatcher {
  readonly #builtinDirs: Set<string>;
  readonly #builtinFiles: GitignoreRule[];
  readonly #extra: GitignoreRule[];
  readonly #byBase = new Map<string, GitignoreRule[]>();

  /** Creates a matcher with the built-in rules (unless disabled) and `extraPatterns`. */
  constructor(options: IgnoreMatcherOptions = {}) {
    const builtin = options.builtin ?? true;
    this.#builtinDirs = new Set(builtin ? BUILTIN_IGNORED_DIRS : []);
    this.#builtinFiles = builtin ? BUILTIN_IGNORED_FILES.flatMap((p) => parseGitignore(p)) : [];
    this.#extra = (options.extraPatterns ?? []).flatMap((p) => parseGitignore(p));
  }

  /** Replaces the rules of the `.gitignore` in directory `base` (relative, `""` = root). */
  setGitignore(base: string, text: string): void {
    const rules = parseGitignore(text, base);
    if (rules.length === 0) this.#byBase.delete(base);
    else this.#byBase.set(base, rules);
  }

  /** Forgets the `.gitignore` of directory `base`. */
  removeGitignore(base: string): void {
    this.#byBase.delete(base);
  }

  /** Directories (relative) whose `.gitignore` rules are loaded, shallowest first. */
  get gitignoreBases(): string[] {
    return [...this.#byBase.keys()].sort((a, b) => depthOf(a) - depthOf(b) || (a < b ? -1 : 1));
  }

  /**
   * Whether the entry itself is ignored, assuming its parent directory is not. Walkers that
   * never descend into ignored directories call this; it skips the ancestor checks.
   */
  ignoresEntry(relPath: string, isDir: boolean): boolean {
    if (relPath === "") return false;
    const slash = relPath.lastIndexOf("/");
    const name = slash === -1 ? relPath : relPath.slice(slash + 1);
    // `.git` is a file in worktrees and submodules; the other names only count as directories
    // so that a script called `build` at the root stays visible.
    if (this.#builtinDirs.has(name) && (isDir || name === ".git")) return true;
    if (!isDir) {
      for (const rule of this.#builtinFiles) if (ruleMatches(rule, relPath, false)) return true;
    }
    let ignored = false;
    for (const rule of this.#extra) {
      if (ruleMatches(rule, relPath, isDir)) ignored = !rule.negate;
    }
    // Only `.gitignore` files in ancestor directories apply; look them up by prefix.
    let cut = -1;
    const bases: string[] = [""];
    while ((cut = relPath.indexOf("/", cut + 1)) !== -1) bases.push(relPath.slice(0, cut));
    for (const base of bases) {
      const rules = this.#byBase.get(base);
      if (rules === undefined) continue;
      for (const rule of rules) {
        if (ruleMatches(rule, relPath, isDir)) ignored = !rule.negate;
      }
    }
    return ignored;
  }

  /**
   * Whether a path is ignored, including because one of its parent directories is (git cannot
   * re-include a file inside an excluded directory, and neither can this).
   */
  ignores(relPath: string, isDir: boolean): boolean {
    let cut = -1;
    while ((cut = relPath.indexOf("/", cut + 1)) !== -1) {
      if (this.ignoresEntry(relPath.slice(0, cut), true)) return true;
    }
    return this.ignoresEntry(relPath, isDir);
  }
}

function depthOf(base: string): number {
  if (base === "") return 0;
  let depth = 1;
  for (const char of base) if (char === "/") depth++;
  return depth;
}

/**
 * Turns an absolute path into the matcher's form: relative to `root`, `/`-separated. Returns
 * undefined for paths outside the root.
 *
 * @example
 * ```ts
 * toRelativePath("/p", "/p/src/a.ts"); // "src/a.ts"
 * toRelativePath("/p", "/q/a.ts");     // undefined
 * ```
 */
export function toRelativePath(root: string, absPath: string): string | undefined {
  const rel = relative(root, absPath);
  if (rel === "") return "";
  if (rel.startsWith("..") || rel.startsWith("/") || /^[A-Za-z]:/.test(rel)) return undefined;
  return sep === "/" ? rel : rel.split(sep).join("/");
}

/**
 * Reads `<root>/<dir>/.gitignore` (and for the root also `.git/info/exclude`, which git applies
 * with lower precedence) into the matcher. Missing files are not an error.
 *
 * @returns whether any rules were loaded for `dir`.
 */
export async function loadGitignore(
  matcher: IgnoreMatcher,
  root: string,
  dir: string,
): Promise<boolean> {
  const dirPath = dir === "" ? root : `${root}/${dir}`;
  let text = "";
  if (dir === "") text += await readOptional(`${root}/.git/info/exclude`);
  text += `\n${await readOptional(`${dirPath}/.gitignore`)}`;
  matcher.setGitignore(dir, text);
  return text.trim() !== "";
}

async function readOptional(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    // Absent or unreadable: the directory simply has no rules.
    return "";
  }
}
