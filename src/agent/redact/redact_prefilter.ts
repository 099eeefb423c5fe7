/**
 * The prefilter in front of secret redaction: one linear scan that tells which detectors a
 * string could possibly trigger, and where. A string with no anchor costs that scan and
 * nothing more; a string whose only anchor is `token=` runs the assignment check at that one
 * place and none of the provider patterns.
 *
 * Every detector names anchors: literals that each of its matches contains (`ghp_`,
 * `PRIVATE KEY`, the word `bearer`), or a lead character with a pattern that must precede it
 * (an `=` or `:` right after a secret-looking name). A regular expression made of a hundred
 * literals is slow in V8, since every position tries every alternative; so each literal is
 * entered by one of a few rare lead characters (`ghp_` by its `_`), the scan stops only at
 * those, and lookbehind and lookahead check the rest of the anchor there.
 *
 * @module
 */

/** A literal that every match of a detector contains. */
export interface LiteralAnchor {
  /** The literal (ASCII). */
  readonly text: string;
  /** Matched in any letter case (for words such as `bearer`). */
  readonly caseless?: boolean;
}

/** A lead character that counts only where patterns end right before it or start after it. */
export interface PatternAnchor {
  /** The lead characters (each one is an anchor on its own). */
  readonly lead: string;
  /** Regular-expression source that must end just before the lead character. */
  readonly behind?: string;
  /** Regular-expression source that must start just after the lead character. */
  readonly ahead?: string;
}

/** What a detector's matches always contain. */
export type Anchor = LiteralAnchor | PatternAnchor;

// The characters a literal may be entered by, best first: rare in code and prose (measured
// on this repository's sources and documents), and few of them, since each one is another
// alternative at every position. A literal is entered by the first of these it contains; a
// caseless literal only by a lead that covers both cases of its letter.
const LEADS: readonly string[] = ["~", "@", "J", "G", "A", "_", "-", "k", "v", "bB", "p", "."];

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/**
 * Regular-expression source matching `text` in any letter case, as a class per letter.
 * (Not a `(?i:…)` group: V8 15 loses matches of some caseless groups inside lookbehind, e.g.
 * `(?<=(?i:pass(?:word|wd|phrase))\\?["'\`]?[ \t]{0,4}.)` misses `PASSWORD=`.)
 */
export function caselessSource(text: string): string {
  let source = "";
  for (const char of text) {
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    source += lower === upper ? escapeLiteral(char) : `[${lower}${upper}]`;
  }
  return source;
}

function literalSource(text: string, caseless: boolean): string {
  return caseless ? caselessSource(text) : escapeLiteral(text);
}

function leadOf(anchor: LiteralAnchor): { lead: string; at: number } {
  for (const lead of LEADS) {
    for (let at = 0; at < anchor.text.length; at++) {
      const char = anchor.text[at];
      const needed = anchor.caseless ? [char.toLowerCase(), char.toUpperCase()] : [char];
      if (needed.every((c) => lead.includes(c))) return { lead, at };
    }
  }
  throw new Error(
    `anchor '${anchor.text}' contains none of the lead characters ${LEADS.join(" ")}`,
  );
}

interface Entry<T> {
  /** Whether the anchor occurs with its lead character at `at`. */
  occursAt(text: string, at: number): boolean;
  /** Where the anchor starts, given the lead character's index. */
  startFor(at: number): number;
  targets: T[];
}

/**
 * Finds which targets (detectors) the anchors present in a text call for, and where. Built
 * once from every detector's anchors.
 */
export class AnchorIndex<T> {
  readonly #pattern: RegExp;
  /** Entries by the character the scan stops at. */
  readonly #byChar = new Map<string, Entry<T>[]>();

  /** @param anchored each target with the anchors that call for it. */
  constructor(anchored: ReadonlyArray<readonly [T, readonly Anchor[]]>) {
    const literals = new Map<string, Entry<T>>();
    const checksByLead = new Map<string, string[]>();
    const addCheck = (lead: string, check: string) => {
      const checks = checksByLead.get(lead) ?? [];
      if (!checks.includes(check)) checks.push(check);
      checksByLead.set(lead, checks);
    };
    const file = (char: string, entry: Entry<T>) => {
      const list = this.#byChar.get(char) ?? [];
      list.push(entry);
      this.#byChar.set(char, list);
    };
    for (const [target, anchors] of anchored) {
      for (const anchor of anchors) {
        if ("lead" in anchor) {
          let check = "";
          if (anchor.behind !== undefined) check += `(?<=${anchor.behind}[^])`;
          if (anchor.ahead !== undefined) check += `(?=${anchor.ahead})`;
          const sticky = new RegExp(check, "y");
          const entry: Entry<T> = {
            occursAt: (text, at) => {
              sticky.lastIndex = at + 1;
              return sticky.test(text);
            },
            startFor: (at) => at,
            targets: [target],
          };
          for (const char of anchor.lead) file(char, entry);
          addCheck(anchor.lead, check);
          continue;
        }
        if (anchor.text === "") throw new Error("an anchor must not be empty");
        const caseless = anchor.caseless === true;
        const key = caseless ? `i:${anchor.text.toLowerCase()}` : `s:${anchor.text}`;
        const known = literals.get(key);
        if (known !== undefined) {
          if (!known.targets.includes(target)) known.targets.push(target);
          continue;
        }
        const { lead, at } = leadOf(anchor);
        const text = anchor.text;
        const entry: Entry<T> = {
          occursAt: (haystack, index) => literalAt(haystack, index - at, text, caseless),
          startFor: (index) => index - at,
          targets: [target],
        };
        literals.set(key, entry);
        const char = text[at];
        for (const c of caseless ? [char.toLowerCase(), char.toUpperCase()] : [char]) {
          file(c, entry);
        }
        const before = text.slice(0, at);
        const after = text.slice(at + 1);
        let check = "";
        if (before !== "") check += `(?<=${literalSource(before, caseless)}[^])`;
        if (after !== "") check += `(?=${literalSource(after, caseless)})`;
        addCheck(lead, check);
      }
    }
    const alternatives: string[] = [];
    const leads = [...LEADS, ...[...checksByLead.keys()].filter((lead) => !LEADS.includes(lead))];
    for (const lead of leads) {
      const checks = checksByLead.get(lead);
      if (checks === undefined) continue;
      const chars = [...new Set([...lead].filter((c) => this.#byChar.has(c)))];
      const leadSource = chars.length === 1
        ? escapeLiteral(chars[0])
        : `[${chars.map(escapeLiteral).join("")}]`;
      alternatives.push(
        checks.includes("") ? leadSource : `${leadSource}(?:${checks.join("|")})`,
      );
    }
    // With no anchors at all, a pattern that never matches (an empty one would match
    // everywhere).
    this.#pattern = new RegExp(alternatives.length === 0 ? "[]" : alternatives.join("|"), "g");
  }

  /** The prefilter's regular expression source, for tests. */
  get source(): string {
    return this.#pattern.source;
  }

  /**
   * The targets whose anchors occur in `text`, each with the start index of every occurrence,
   * or null when no anchor occurs.
   */
  scan(text: string): Map<T, number[]> | null {
    const pattern = this.#pattern;
    pattern.lastIndex = 0;
    let found: Map<T, number[]> | null = null;
    // `test` moves lastIndex past the lead character and allocates nothing.
    while (pattern.test(text)) {
      const at = pattern.lastIndex - 1;
      const entries = this.#byChar.get(text[at]);
      if (entries === undefined) continue;
      for (const entry of entries) {
        if (!entry.occursAt(text, at)) continue;
        found ??= new Map();
        const start = entry.startFor(at);
        for (const target of entry.targets) {
          const list = found.get(target);
          if (list === undefined) found.set(target, [start]);
          else list.push(start);
        }
      }
    }
    return found;
  }
}

function literalAt(text: string, start: number, literal: string, caseless: boolean): boolean {
  if (start < 0 || start + literal.length > text.length) return false;
  if (!caseless) return text.startsWith(literal, start);
  for (let i = 0; i < literal.length; i++) {
    const a = text.charCodeAt(start + i);
    const b = literal.charCodeAt(i);
    if (a === b) continue;
    // Anchors are ASCII; folding an ASCII letter's case is one bit.
    const folded = a | 0x20;
    if (folded !== (b | 0x20) || folded < 0x61 || folded > 0x7a) return false;
  }
  return true;
}
