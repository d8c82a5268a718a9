import Table from "cli-table3";

/** Where a command writes, and what it knows of the terminal; a test or an embedding program can capture it. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where a progress bar is drawn: stderr when it is a terminal, else none. */
  progressStream?: NodeJS.WriteStream;
  /** How wide stdout is, when it is a terminal; prose is wrapped to it (else to 80 columns). */
  columns?: number;
}

type Cell = string | number | undefined | null;

const NO_BORDER = Object.fromEntries(
  ["top", "top-mid", "top-left", "top-right", "bottom", "bottom-mid", "bottom-left", "bottom-right"]
    .concat(["left", "left-mid", "mid", "mid-mid", "right", "right-mid"])
    .map((name) => [name, ""]),
);

export interface TableOptions {
  /** The widest a line may be: past it, the widest columns wrap their words to fit. Default: no limit. */
  width?: number;
  /** Whether the heading row is printed (default: yes). */
  heading?: boolean;
}

const GAP = 2;

/**
 * A plain, borderless table (headings in capitals, two spaces between columns), as kubectl and gh print them. No rows
 * print nothing, not a lone heading: the command says on stderr that there was nothing.
 */
export function renderTable(head: readonly string[], rows: readonly (readonly Cell[])[], options: TableOptions = {}): string {
  if (rows.length === 0) return "";
  const cells = rows.map((row) => row.map((cell) => (cell === undefined || cell === null ? "" : String(cell))));
  const heading = options.heading === false ? undefined : head.map((h) => h.toUpperCase());
  const widths = options.width === undefined ? undefined : fittedWidths(heading ? [heading, ...cells] : cells, options.width);
  const table = new Table({
    ...(heading && { head: heading }),
    ...(widths && { colWidths: widths, wordWrap: true, wrapOnWordBoundary: true }),
    chars: { ...NO_BORDER, middle: " ".repeat(GAP) },
    style: { head: [], border: [], "padding-left": 0, "padding-right": 0 },
  });
  table.push(...cells);
  return `${table
    .toString()
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")}\n`;
}

/**
 * Column widths that fit `width`, the widest narrowable column narrowed first, none below its longest word (a word is
 * never cut); undefined when the table fits as it is. A table whose words cannot fit stays wider than `width`.
 */
function fittedWidths(rows: readonly (readonly string[])[], width: number): number[] | undefined {
  const widths: number[] = [];
  const words: number[] = [];
  for (const row of rows) {
    row.forEach((text, i) => {
      widths[i] = Math.max(widths[i] ?? 0, text.length);
      words[i] = Math.max(words[i] ?? 0, ...text.split(/\s+/).map((word) => word.length));
    });
  }
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP * (widths.length - 1);
  if (total() <= width) return undefined;
  while (total() > width) {
    const narrowable = widths.map((w, i) => (w > words[i]! ? w : -1));
    const widest = narrowable.indexOf(Math.max(...narrowable));
    if (narrowable[widest]! < 0) break;
    widths[widest]! -= 1;
  }
  return widths;
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
    for (const [i, text] of texts.entries()) this.#widths[i] = Math.max(this.#widths[i] ?? 0, text.length);
    return `${texts
      .map((text, i) => (i === texts.length - 1 ? text : text.padEnd(this.#widths[i]!)))
      .join("  ")
      .trimEnd()}\n`;
  }
}

/** One JSON document per line (for tails: each item as it comes). */
export const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;
