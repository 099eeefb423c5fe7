/**
 * Glob patterns for selecting stored documents by path, with .gitignore-like anchoring:
 * a pattern without `/` matches a file's base name at any depth, a pattern with `/` matches the
 * whole relative path, and a pattern ending in `/` matches everything inside that directory.
 *
 * Syntax: `*` (any run of characters except `/`), `**` (any number of whole path segments),
 * `?` (one character except `/`), `[abc]` / `[a-z]` / `[!abc]` (one character from a set),
 * `{a,b}` (alternatives, nestable) and `\` to escape the next character.
 *
 * Globs come from callers, so they run on RE2JS, in time linear in the path: as a backtracking
 * RegExp, `*a*a*a*a*a*a*a*b` takes V8 over half a second on a 30-character name, and more
 * stars or a longer name take hours.
 *
 * @module
 */
import { RE2JS, RE2JSException } from "re2js";
import { VantageError } from "../core/errors.ts";
import { translateGlobClass } from "../core/glob_class.ts";

/** Options for {@linkcode globToRegExp}. */
export interface GlobOptions {
  /** Match letters regardless of case. Default false. */
  caseInsensitive?: boolean;
}

const REGEX_SPECIALS = /[.*+?^${}()|[\]\\/]/g;

function escapeLiteral(text: string): string {
  return text.replace(REGEX_SPECIALS, "\\$&");
}

// Index of the `}` closing the brace group opened at `open`, honouring nesting and escapes;
// -1 when unclosed, in which case the `{` is taken literally.
function closingBrace(pattern: string, open: number): number {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return i;
  }
  return -1;
}

// Splits a brace group's body on top-level commas.
function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === "\\") i++;
    else if (char === "{") depth++;
    else if (char === "}") depth--;
    else if (char === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function translate(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      if (i + 1 < pattern.length) out += escapeLiteral(pattern[++i]);
      else out += "\\\\";
    } else if (char === "*") {
      if (pattern[i + 1] === "*") {
        let end = i;
        while (pattern[end] === "*") end++;
        const atSegmentStart = i === 0 || pattern[i - 1] === "/";
        const atSegmentEnd = end === pattern.length || pattern[end] === "/";
        if (atSegmentStart && atSegmentEnd) {
          if (end === pattern.length) {
            // Trailing `**`: everything below, or (for a bare `**`) everything.
            out += ".*";
          } else {
            // `**/` spans zero or more whole directories.
            out += "(?:[^/]*/)*";
            end++;
          }
          i = end - 1;
          continue;
        }
        // `**` inside a segment (`a**b`) means the same as `*`.
        i = end - 1;
      }
      out += "[^/]*";
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "[") {
      const translated = translateGlobClass(pattern, i);
      if (translated) {
        out += translated.source;
        i = translated.next - 1;
      } else {
        out += "\\[";
      }
    } else if (char === "{") {
      const close = closingBrace(pattern, i);
      if (close === -1) {
        out += "\\{";
      } else {
        const alternatives = splitAlternatives(pattern.slice(i + 1, close)).map(translate);
        out += `(?:${alternatives.join("|")})`;
        i = close;
      }
    } else {
      out += escapeLiteral(char);
    }
  }
  return out;
}

/**
 * Compiles a glob into an anchored RE2JS matcher (linear time) over a POSIX relative path. The pattern is matched
 * against the exact string given; base-name and directory rules live in {@linkcode matchesGlob}.
 *
 * @example
 * ```ts
 * import { globToRegExp } from "./glob.ts";
 *
 * const re = globToRegExp("src/**\/*.{ts,tsx}");
 * re.test("src/a/b/c.tsx"); // true
 * re.test("src/c.ts"); // true
 * re.test("lib/c.ts"); // false
 * ```
 */
export function globToRegExp(pattern: string, options: GlobOptions = {}): RE2JS {
  return linear(pattern, `^${translate(pattern)}$`, options);
}

function linear(glob: string, source: string, options: GlobOptions): RE2JS {
  try {
    return RE2JS.compile(source, options.caseInsensitive === true ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    // Every glob translates to valid syntax; what RE2 can still refuse is sheer size or nesting.
    throw new VantageError(
      "invalid_arguments",
      `glob '${glob.length > 200 ? `${glob.slice(0, 200)}…` : glob}' cannot be matched: ${
        error.message.replace(/^error parsing regexp: /, "")
      }`,
      { details: { glob } },
    );
  }
}

/** Normalizes a path for matching: `\` becomes `/`, and a leading `./` or `/` is dropped. */
function normalizePath(path: string): string {
  let out = path.replaceAll("\\", "/");
  while (out.startsWith("./")) out = out.slice(2);
  return out.replace(/^\/+/, "");
}

interface CompiledGlob {
  negated: boolean;
  test(path: string, basename: string): boolean;
}

// Compiling for RE2JS costs ~0.2 ms, which callers testing one glob against every stored path
// would pay per path; the globs in use at once are few.
const compiledGlobs = new Map<string, CompiledGlob>();
const COMPILED_GLOBS_KEPT = 256;

function compile(rawPattern: string, options: GlobOptions): CompiledGlob {
  const key = `${options.caseInsensitive === true ? "i" : "-"}${rawPattern}`;
  let compiled = compiledGlobs.get(key);
  if (compiled === undefined) {
    compiled = compileGlob(rawPattern, options);
    if (compiledGlobs.size >= COMPILED_GLOBS_KEPT) {
      compiledGlobs.delete(compiledGlobs.keys().next().value!);
    }
    compiledGlobs.set(key, compiled);
  }
  return compiled;
}

function compileGlob(rawPattern: string, options: GlobOptions): CompiledGlob {
  let pattern = rawPattern.trim();
  const negated = pattern.startsWith("!");
  if (negated) pattern = pattern.slice(1);
  const directoryOnly = pattern.endsWith("/");
  pattern = pattern.replace(/\/+$/, "");
  while (pattern.startsWith("./")) pattern = pattern.slice(2);
  const anchored = pattern.includes("/");
  pattern = pattern.replace(/^\/+/, "");
  const body = translate(pattern);
  if (directoryOnly) {
    // `build/` matches what lies inside a directory named build; without another slash the
    // directory may sit at any depth, like a .gitignore entry.
    const re = linear(rawPattern, `${anchored ? "^" : "(?:^|/)"}${body}/`, options);
    return { negated, test: (path) => re.test(path) };
  }
  if (!anchored) {
    const re = linear(rawPattern, `^${body}$`, options);
    return { negated, test: (_path, basename) => re.test(basename) };
  }
  const re = linear(rawPattern, `^${body}$`, options);
  return { negated, test: (path) => re.test(path) };
}

/**
 * Tests one path against one glob, with the anchoring rules of this module (see the module
 * documentation). A leading `!` inverts the result.
 *
 * @example
 * ```ts
 * import { matchesGlob } from "./glob.ts";
 *
 * matchesGlob("src/deep/util.ts", "*.ts"); // true: no slash, so the base name is matched
 * matchesGlob("src/deep/util.ts", "src/*.ts"); // false: `*` stops at `/`
 * matchesGlob("web/node_modules/x/index.js", "node_modules/"); // true
 * ```
 */
export function matchesGlob(path: string, pattern: string, options: GlobOptions = {}): boolean {
  const normalized = normalizePath(path);
  const compiled = compile(pattern, options);
  const hit = compiled.test(normalized, basenameOf(normalized));
  return compiled.negated ? !hit : hit;
}

function basenameOf(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/**
 * Builds a reusable predicate over a list of globs, evaluated like .gitignore: the last pattern
 * that matches decides, and a pattern starting with `!` re-includes what an earlier one matched.
 * An empty list matches nothing.
 *
 * @example
 * ```ts
 * import { createGlobMatcher } from "./glob.ts";
 *
 * const isSelected = createGlobMatcher(["**\/*.md", "!drafts/**"]);
 * isSelected("docs/intro.md"); // true
 * isSelected("drafts/idea.md"); // false
 * ```
 */
export function createGlobMatcher(
  patterns: readonly string[],
  options: GlobOptions = {},
): (path: string) => boolean {
  const compiled = patterns.filter((p) => p.trim() !== "").map((p) => compile(p, options));
  return (path: string) => {
    const normalized = normalizePath(path);
    const basename = basenameOf(normalized);
    let selected = false;
    for (const glob of compiled) {
      // Only a pattern that could flip the current verdict needs to be tested.
      if (glob.negated === selected && glob.test(normalized, basename)) selected = !glob.negated;
    }
    return selected;
  };
}

/** Which paths an include/exclude pair of glob lists lets through. */
export interface PathFilter {
  /** Whether `path` is included (every path, when no include globs were given) and not excluded. */
  selects(path: string): boolean;
  /** Whether `path` matches the exclude globs (so a folder can be skipped whole). */
  excludes(path: string): boolean;
}

/**
 * A filter from optional include and exclude glob lists: an absent or empty
 * include list includes everything, an absent or empty exclude list
 * excludes nothing.
 *
 * @example
 * ```ts
 * import { createPathFilter } from "./glob.ts";
 *
 * const filter = createPathFilter(["*.md"], ["drafts/**"]);
 * filter.selects("docs/intro.md"); // true
 * filter.selects("drafts/idea.md"); // false
 * filter.selects("src/app.ts"); // false
 * ```
 */
export function createPathFilter(
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): PathFilter {
  const included = include !== undefined && include.length > 0
    ? createGlobMatcher(include)
    : undefined;
  const excluded = exclude !== undefined && exclude.length > 0
    ? createGlobMatcher(exclude)
    : undefined;
  const excludes = (path: string) => excluded !== undefined && excluded(path);
  return {
    selects: (path) => (included === undefined || included(path)) && !excludes(path),
    excludes,
  };
}

// Callers such as list/restore filters test many paths against the same few patterns.
const MATCHER_CACHE = new Map<string, (path: string) => boolean>();
const MATCHER_CACHE_LIMIT = 256;

/**
 * True when `path` is selected by `patterns` (see {@linkcode createGlobMatcher} for the rules).
 * Compiled patterns are cached, so calling this in a loop is cheap.
 *
 * @example
 * ```ts
 * import { matchesAny } from "./glob.ts";
 *
 * matchesAny("src/app.test.ts", ["*.test.ts", "*.spec.ts"]); // true
 * matchesAny("README.md", ["src/**"]); // false
 * ```
 */
export function matchesAny(
  path: string,
  patterns: readonly string[],
  options: GlobOptions = {},
): boolean {
  const key = `${options.caseInsensitive ? "i" : "s"}\u0000${patterns.join("\u0000")}`;
  let matcher = MATCHER_CACHE.get(key);
  if (!matcher) {
    if (MATCHER_CACHE.size >= MATCHER_CACHE_LIMIT) MATCHER_CACHE.clear();
    matcher = createGlobMatcher(patterns, options);
    MATCHER_CACHE.set(key, matcher);
  }
  return matcher(path);
}
