import Table from "cli-table3";

/** Where a command writes, and what it knows of the terminal; a test or an embedding program can capture it. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where a progress bar is drawn: stderr when it is a terminal, else none. */
  progressStream?: NodeJS.WriteStream;
}

type Cell = string | number | undefined | null;

const NO_BORDER = Object.fromEntries(
  ["top", "top-mid", "top-left", "top-right", "bottom", "bottom-mid", "bottom-left", "bottom-right"]
    .concat(["left", "left-mid", "mid", "mid-mid", "right", "right-mid"])
    .map((name) => [name, ""]),
);

/**
 * A plain, borderless table (headings in capitals, two spaces between columns), as kubectl and gh print them. No rows
 * print nothing, not a lone heading: the command says on stderr that there was nothing.
 */
export function renderTable(head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  if (rows.length === 0) return "";
  const table = new Table({
    head: head.map((h) => h.toUpperCase()),
    chars: { ...NO_BORDER, middle: "  " },
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0 },
  });
  for (const row of rows) table.push(row.map((cell) => (cell === undefined || cell === null ? "" : String(cell))));
  return `${table.toString().split("\n").map((line) => line.trimEnd()).join("\n")}\n`;
}

/** Pretty JSON with a final newline. */
export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The columns of lines printed one at a time (a tail's), aligned as well as a stream can be: each column is as wide
 * as its usual width or its widest value so far, so lines line up unless an unusually wide value comes.
 */
export class StreamColumns {
  #widths: number[];

  /** `minWidths`: the columns' usual widths, so the first lines already line up with the later ones. */
  constructor(minWidths: readonly number[] = []) {
    this.#widths = [...minWidths];
  }

  /** One line: the cells padded to the column widths so far, two spaces apart, the last one as it is. */
  line(cells: readonly Cell[]): string {
    const texts = cells.map((cell) => (cell === undefined || cell === null ? "" : String(cell)));
    texts.forEach((text, i) => (this.#widths[i] = Math.max(this.#widths[i] ?? 0, text.length)));
    return `${texts.map((text, i) => (i === texts.length - 1 ? text : text.padEnd(this.#widths[i]!))).join("  ").trimEnd()}\n`;
  }
}

/** One JSON document per line (for tails: each item as it comes). */
export const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;
