import Table from "cli-table3";

/** Where a command writes, and what it knows of the terminal; a test or an embedding program can capture it. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where a progress bar is drawn: stderr when it is a terminal, else none. */
  progressStream?: NodeJS.WriteStream;
}

/** A plain, borderless table (headings in capitals, two spaces between columns), as kubectl and gh print them. */
export function renderTable(head: readonly string[], rows: readonly (readonly (string | number | undefined | null)[])[]): string {
  const table = new Table({
    head: head.map((h) => h.toUpperCase()),
    chars: { top: "", "top-mid": "", "top-left": "", "top-right": "", bottom: "", "bottom-mid": "", "bottom-left": "", "bottom-right": "", left: "", "left-mid": "", mid: "", "mid-mid": "", right: "", "right-mid": "", middle: "  " },
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0 },
  });
  for (const row of rows) table.push(row.map((cell) => (cell === undefined || cell === null ? "" : String(cell))));
  return `${table.toString().split("\n").map((line) => line.trimEnd()).join("\n")}\n`;
}

/** Pretty JSON with a final newline. */
export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** One JSON document per line (for tails: each item as it comes). */
export const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;
