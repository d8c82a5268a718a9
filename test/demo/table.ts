/** Prints rows as an aligned plain-text table with a title. */
export function printTable(title: string, rows: Record<string, unknown>[], columns?: string[]): void {
  console.log(`\n${title}`);
  if (rows.length === 0) {
    console.log("  (none)");
    return;
  }
  const cols = columns ?? Object.keys(rows[0]!);
  const cell = (value: unknown) =>
    value === undefined || value === null ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    "  " +
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  console.log(line(cols));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(cols.map((c) => cell(row[c]))));
}
