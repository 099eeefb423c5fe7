/**
 * Unified diffs (the `diff -u` format) of two versions of a file, for
 * `--dry-run`: exactly what would change, with three lines of context.
 *
 * @module
 */

/**
 * The unified diff turning `before` into `after`, with `---`/`+++` headers
 * naming `path` (`/dev/null` for a file that does not exist on that side).
 * Returns "" when nothing changes.
 *
 * @example
 * ```ts
 * import { unifiedDiff } from "./unified_diff.ts";
 * unifiedDiff("/x.json", "a\nb\n", "a\nc\n");
 * // "--- /x.json\n+++ /x.json\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 * ```
 */
export function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string | undefined,
  context = 3,
): string {
  if (before === after) return "";
  const oldLines = splitLines(before ?? "");
  const newLines = splitLines(after ?? "");
  const edits = diffLines(oldLines, newLines);
  const hunks = groupHunks(edits, context);
  const header = `--- ${before === undefined ? "/dev/null" : path}\n` +
    `+++ ${after === undefined ? "/dev/null" : path}\n`;
  return header + hunks.map((hunk) => renderHunk(hunk, oldLines, newLines)).join("");
}

interface Edit {
  kind: " " | "-" | "+";
  /** Index in the old lines (for " " and "-") or the new lines (for "+"). */
  index: number;
  /** Old and new line numbers reached before this edit (0-based). */
  oldAt: number;
  newAt: number;
}

interface Hunk {
  edits: Edit[];
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  // A final newline ends the last line rather than starting an empty one.
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += "\n\\ No newline at end of file";
  return lines;
}

function diffLines(oldLines: string[], newLines: string[]): Edit[] {
  // Common head and tail first: config edits are small, so the table below stays tiny.
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) {
    head += 1;
  }
  let tail = 0;
  while (
    tail < oldLines.length - head && tail < newLines.length - head &&
    oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail += 1;
  const a = oldLines.slice(head, oldLines.length - tail);
  const b = newLines.slice(head, newLines.length - tail);
  if (a.length * b.length > 4_000_000) {
    // Too large to align line by line: show the middle as replaced wholesale.
    return [
      ...Array.from(
        { length: head },
        (_, k) => ({ kind: " " as const, index: k, oldAt: k, newAt: k }),
      ),
      ...a.map((_, k) => ({ kind: "-" as const, index: head + k, oldAt: head + k, newAt: head })),
      ...b.map((_, k) => ({
        kind: "+" as const,
        index: head + k,
        oldAt: head + a.length,
        newAt: head + k,
      })),
      ...Array.from({ length: tail }, (_, k) => ({
        kind: " " as const,
        index: head + a.length + k,
        oldAt: head + a.length + k,
        newAt: head + b.length + k,
      })),
    ];
  }
  const lengths: number[][] = Array.from(
    { length: a.length + 1 },
    () => new Array(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i][j] = a[i] === b[j]
        ? lengths[i + 1][j + 1] + 1
        : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const edits: Edit[] = [];
  let oldAt = 0;
  let newAt = 0;
  const push = (kind: Edit["kind"]): void => {
    edits.push({ kind, index: kind === "+" ? newAt : oldAt, oldAt, newAt });
    if (kind !== "+") oldAt += 1;
    if (kind !== "-") newAt += 1;
  };
  for (let k = 0; k < head; k += 1) push(" ");
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      push(" ");
      i += 1;
      j += 1;
    } else if (i < a.length && (j === b.length || lengths[i + 1][j] >= lengths[i][j + 1])) {
      // Deletions before insertions, as diff(1) prints them.
      push("-");
      i += 1;
    } else {
      push("+");
      j += 1;
    }
  }
  for (let k = 0; k < tail; k += 1) push(" ");
  return edits;
}

function groupHunks(edits: Edit[], context: number): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Edit[] | undefined;
  let lastChange = -Infinity;
  for (let index = 0; index < edits.length; index += 1) {
    if (edits[index].kind === " ") continue;
    const from = Math.max(0, index - context);
    if (current !== undefined && from <= lastChange + context + 1) {
      current.push(...edits.slice(lastChange + 1, index + 1));
    } else {
      if (current !== undefined) {
        current.push(
          ...edits.slice(lastChange + 1, Math.min(edits.length, lastChange + 1 + context)),
        );
        hunks.push({ edits: current });
      }
      current = edits.slice(from, index + 1);
    }
    lastChange = index;
  }
  if (current !== undefined) {
    current.push(...edits.slice(lastChange + 1, Math.min(edits.length, lastChange + 1 + context)));
    hunks.push({ edits: current });
  }
  return hunks;
}

function renderHunk(hunk: Hunk, oldLines: string[], newLines: string[]): string {
  const first = hunk.edits[0];
  const oldCount = hunk.edits.filter((edit) => edit.kind !== "+").length;
  const newCount = hunk.edits.filter((edit) => edit.kind !== "-").length;
  const oldStart = oldCount === 0 ? first.oldAt : first.oldAt + 1;
  const newStart = newCount === 0 ? first.newAt : first.newAt + 1;
  let out = `@@ -${oldStart}${oldCount === 1 ? "" : `,${oldCount}`} ` +
    `+${newStart}${newCount === 1 ? "" : `,${newCount}`} @@\n`;
  for (const edit of hunk.edits) {
    const line = edit.kind === "+" ? newLines[edit.index] : oldLines[edit.index];
    out += `${edit.kind}${line}\n`;
  }
  return out;
}
