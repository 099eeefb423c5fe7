/**
 * Glob character classes (`[abc]`, `[!a-z]`) as regular-expression source,
 * shared by the document globs and the `.gitignore` rules. The source uses
 * only what both V8's RegExp and RE2 read the same way (no lookaround), so
 * the document globs can run on the linear-time engine.
 *
 * @module
 */

/**
 * Translates the class starting at `open` (the `[`); returns the regex
 * source and the index after the closing `]`, or undefined when the class is
 * not closed (then `[` is literal). A class never matches `/`, just as `*`
 * and `?` never cross path segments; `\` makes the next character a plain
 * member.
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
  const ranges: Array<[number, number]> = [];
  // A `]` right after the opening bracket is a member, as in POSIX shells.
  let first = true;
  while (i < pattern.length) {
    if (pattern[i] === "]" && !first) {
      return { source: classSource(ranges, negate), next: i + 1 };
    }
    first = false;
    const low = memberAt(pattern, i);
    i = low.next;
    if (pattern[i] === "-" && i + 1 < pattern.length && pattern[i + 1] !== "]") {
      const high = memberAt(pattern, i + 1);
      i = high.next;
      // A reversed range (`[z-a]`) holds nothing.
      if (low.code <= high.code) ranges.push([low.code, high.code]);
    } else {
      ranges.push([low.code, low.code]);
    }
  }
  return undefined;
}

/** The member character at `at` (after a `\`, the escaped one) and where the next one starts. */
function memberAt(pattern: string, at: number): { code: number; next: number } {
  const start = pattern[at] === "\\" && at + 1 < pattern.length ? at + 1 : at;
  const code = pattern.codePointAt(start)!;
  return { code, next: start + (code > 0xffff ? 2 : 1) };
}

const SLASH = 0x2f;

function classSource(ranges: ReadonlyArray<[number, number]>, negate: boolean): string {
  if (negate) return `[^/${ranges.map(rangeSource).join("")}]`;
  // Cut `/` out of the members, splitting a range that spans it.
  const kept: Array<[number, number]> = [];
  for (const [low, high] of ranges) {
    if (low < SLASH) kept.push([low, Math.min(high, SLASH - 1)]);
    if (high > SLASH) kept.push([Math.max(low, SLASH + 1), high]);
  }
  // `[/]` holds nothing a path segment can match.
  return kept.length === 0 ? "[^\\s\\S]" : `[${kept.map(rangeSource).join("")}]`;
}

function rangeSource([low, high]: [number, number]): string {
  return low === high ? memberSource(low) : `${memberSource(low)}-${memberSource(high)}`;
}

/** A class member both engines read literally: ASCII punctuation escaped, the rest as is. */
function memberSource(code: number): string {
  const char = String.fromCodePoint(code);
  return code > 0x20 && code < 0x7f && /[^A-Za-z0-9]/.test(char) ? `\\${char}` : char;
}
