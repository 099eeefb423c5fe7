/** Small statistics and table helpers for the benchmarks. */

/** The median of `values`. */
export function median(values: number[]): number {
  return percentile(values, 50);
}

/** The p-th percentile of `values` (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Prints rows as an aligned table; the first row is the header. */
export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? "").length))
  );
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd());
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}
