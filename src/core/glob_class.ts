/**
 * Glob character classes (`[abc]`, `[!a-z]`) as regular-expression source,
 * shared by the document globs and the `.gitignore` rules.
 *
 * @module
 */

/**
 * Translates the class starting at `open` (the `[`); returns the regex
 * source and the index after the closing `]`, or undefined when the class is
 * not closed (then `[` is literal). A class never matches `/`, just as `*`
 * and `?` never cross path segments.
 */
export function translateGlobClass(
  pattern: string,
  open: number,
): { source: string; next: number } | undefined {
  let i = open + 1;
  let negate = false;
  if (pattern[i] === "!" || pattern[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  // A `]` right after the opening bracket is a member, as in POSIX shells.
  let first = true;
  for (; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "]" && !first) {
      // Paths never match `/` through a class, just as `*` and `?` never cross segments.
      return { source: negate ? `[^/${body}]` : `(?!/)[${body}]`, next: i + 1 };
    }
    first = false;
    if (char === "\\" && i + 1 < pattern.length) {
      body += `\\${pattern[++i]}`;
    } else if (char === "-" && body !== "" && pattern[i + 1] !== "]") {
      body += "-";
    } else {
      body += char === "]" || char === "[" || char === "^" || char === "-" || char === "\\"
        ? `\\${char}`
        : char;
    }
  }
  return undefined;
}
