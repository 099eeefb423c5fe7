/**
 * Scanning helpers the language modules share: lists of base types, match columns, the calls
 * on a line, and the C family's keywords that stand before a parenthesis like a function name.
 *
 * @module
 */

/**
 * The text without generic arguments (`<…>`, `[…]`), nested ones too: they may contain commas,
 * so they go before a list of base types is split.
 */
export function stripGenerics(text: string): string {
  let out = text;
  let previous;
  do {
    previous = out;
    out = out.replace(/<[^<>]*>/g, "").replace(/\[[^[\]]*\]/g, "");
  } while (out !== previous);
  return out;
}

/** Names in a list of base types (`A, B<C>, public D`), generics and access words dropped. */
export function splitNames(list: string, separator: RegExp = /,/): string[] {
  return stripGenerics(list)
    .split(separator)
    .map((part) => part.trim().replace(/^(?:public|private|protected|virtual|\s)+/, "").trim())
    .map((part) => part.replace(/\(.*$/, "").trim())
    .filter((part) => /^[A-Za-z_$][\w$.:]*$/.test(part));
}

/**
 * Column of a match group. Definition regexes carry the `d` flag, so group positions are exact
 * even when the name text also occurs earlier in the match.
 */
export function columnOf(line: string, match: RegExpExecArray, group = 1): number {
  return match.indices?.[group]?.[0] ?? line.indexOf(match[group], match.index);
}

/** `[\w$]`: an ASCII letter, digit, `_` or `$`. */
function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 ||
    c === 36;
}

/** `\s` as regexes read it, for the characters source code holds. */
function isSpaceCode(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0xfeff || c === 0x2028 ||
    c === 0x2029 || (c >= 0x2000 && c <= 0x200a) || c === 0x1680 || c === 0x202f ||
    c === 0x205f || c === 0x3000;
}

const RECEIVER_RE = /(?:([A-Za-z_$][\w$]*)|[)\]>])\s*(?:\?\.|\.|::|->)\s*$/;

/** A name followed by `(` on a line. */
export interface FoundCall {
  /** Column of the name. */
  column: number;
  /** The name. */
  name: string;
  /** Identifier before `.`, `?.`, `::` or `->`; "?" when the receiver is an expression. */
  receiver?: string;
}

/** Every call on a (masked) line, but those at the `excluded` columns (the names defined there). */
export function collectCalls(line: string, excluded: Set<number>): FoundCall[] {
  const found: FoundCall[] = [];
  // Every call has a "(": from each one, back over spaces to the name before it. (A regex for
  // `name\s*\(` retries inside every identifier that is not a call, quadratic in its length.)
  for (let paren = line.indexOf("("); paren !== -1; paren = line.indexOf("(", paren + 1)) {
    let end = paren;
    while (end > 0 && isSpaceCode(line.charCodeAt(end - 1))) end--;
    let start = end;
    while (start > 0 && isWordCode(line.charCodeAt(start - 1))) start--;
    // A name starts with a letter, `_` or `$`; a run that starts with a digit is a number, or a
    // name glued to one, which is part of a longer token.
    if (start === end) continue;
    const first = line.charCodeAt(start);
    if (first >= 48 && first <= 57) continue;
    const column = start;
    if (excluded.has(column)) continue;
    const name = line.slice(start, end);
    // A receiver needs `.`, `?.`, `::` or `->` right before the name (spaces aside): only then is
    // the regex worth running.
    let last = column - 1;
    while (last >= 0 && isSpaceCode(line.charCodeAt(last))) last--;
    const operator = last >= 0 ? line.charCodeAt(last) : 0;
    const receiver = operator === 46 || operator === 58 || operator === 62 // . : >
      ? RECEIVER_RE.exec(line.slice(Math.max(0, column - 120), column))
      : null;
    found.push({ column, name, receiver: receiver ? (receiver[1] ?? "?") : undefined });
  }
  return found;
}

/** Keywords of C, C++ and Java that a parenthesis can follow, so never a function's name. */
export const C_FAMILY_KEYWORDS: ReadonlySet<string> = new Set([
  "if",
  "for",
  "while",
  "switch",
  "return",
  "sizeof",
  "alignof",
  "decltype",
  "catch",
  "else",
  "do",
  "case",
  "defined",
  "static_assert",
  "new",
  "delete",
  "throw",
  "typeid",
]);
