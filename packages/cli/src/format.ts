// Structured output, as gh gives it: `--json` (the service's answer), `--json a,b` (those fields of each item),
// `-o yaml`, and `-q/--query` (a JSONata expression over what would be printed). Tables stay the default.
//
// JSONata (the `jsonata` package) is the query language: a maintained, dependency-free JavaScript implementation
// with its own specification and types, so `--query` behaves the same on every machine with no jq binary or
// WebAssembly build to install.
import jsonata from "jsonata";
import { stringify as yamlStringify } from "yaml";
import { UsageError } from "./cli-errors.js";

export const OUTPUT_FORMATS = ["table", "json", "yaml"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The global output options, as commander gives them. */
export interface OutputOptions {
  /** true for `--json`, the field list for `--json a,b`. */
  json?: boolean | string;
  output?: OutputFormat;
  query?: string;
}

/** What a command prints when a structured format is asked for: the answer, and the items `--json a,b` selects from. */
export interface Printable {
  data: unknown;
  /** The list's items, when the answer is a list (or holds one): `--json fields` and `--limit` apply to them. */
  items?: readonly unknown[];
}

/** The format the options ask for: `table` unless --json, -o json|yaml or --query. */
export function outputFormat(options: OutputOptions): OutputFormat {
  if (options.json !== undefined && options.output !== undefined && options.output !== "json") {
    throw new UsageError(`--json and --output ${options.output} ask for two formats: give one`);
  }
  if (options.query !== undefined && options.output === "table") throw new UsageError("--query needs JSON data, not --output table");
  if (options.json !== undefined || options.query !== undefined) return options.output ?? "json";
  return options.output ?? "table";
}

/** Checks the output options before the command sends anything: one format, a query that compiles. */
export function checkOutputOptions(options: OutputOptions): void {
  outputFormat(options);
  if (options.query !== undefined) compileQuery(options.query);
}

/** Whether the options ask for something other than the table. */
export const structured = (options: OutputOptions) => outputFormat(options) !== "table";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The fields `--json a,b` names, checked against those the items have. */
function selectFields(options: OutputOptions, printable: Printable): unknown {
  // `--json` alone (given as `--json=` when a word followed it): the whole answer.
  if (typeof options.json !== "string" || options.json === "") return printable.data;
  const fields = options.json
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean);
  if (fields.length === 0) throw new UsageError("--json: name at least one field (--json id,name), or give --json alone");
  const records = (printable.items ?? [printable.data]).filter(isRecord);
  const known = new Set(records.flatMap((r) => Object.keys(r)));
  const unknown = fields.filter((f) => !known.has(f));
  if (records.length > 0 && unknown.length > 0) {
    throw new UsageError(
      `--json: unknown field${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; available: ${[...known].sort().join(", ")}`,
    );
  }
  const pick = (r: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, r[f] ?? null]));
  return printable.items ? printable.items.filter(isRecord).map(pick) : isRecord(printable.data) ? pick(printable.data) : printable.data;
}

/** A compiled --query, or a usage error naming the flag and where the expression breaks. */
function compileQuery(expression: string): jsonata.Expression {
  try {
    return jsonata(expression);
  } catch (error) {
    const e = error as { message?: string; position?: number };
    throw new UsageError(`--query: ${e.message ?? String(error)}${e.position !== undefined ? ` (at character ${e.position})` : ""}`);
  }
}

/** A query's result as lines: strings as they are (as `gh --jq` prints them), anything else as compact JSON. */
function queryLines(result: unknown): string {
  if (result === undefined) return "";
  const values = Array.isArray(result) ? result : [result];
  return values.map((v) => `${typeof v === "string" ? v : JSON.stringify(v)}\n`).join("");
}

/** A JSONata sequence is an array with a flag on it: a plain copy prints as JSON does. */
const plain = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** The text of a structured answer in the asked format (never the table). */
export async function formatData(options: OutputOptions, printable: Printable): Promise<string> {
  const format = outputFormat(options);
  let data = selectFields(options, printable);
  if (options.query !== undefined) {
    const expression = compileQuery(options.query);
    try {
      data = plain(await expression.evaluate(data));
    } catch (error) {
      throw new UsageError(`--query: ${(error as Error).message}`);
    }
    if (format === "json") return queryLines(data);
  }
  if (format === "yaml") return data === undefined ? "" : yamlStringify(data);
  return data === undefined ? "" : `${JSON.stringify(data, null, 2)}\n`;
}

/**
 * A formatter for lines printed one at a time (a tail's): each item on one line as JSON (its selected fields, or the
 * query's result), a YAML document each, or undefined for the table's line.
 */
export function itemFormatter(options: OutputOptions): ((item: unknown) => Promise<string>) | undefined {
  const format = outputFormat(options);
  if (format === "table") return undefined;
  const expression = options.query === undefined ? undefined : compileQuery(options.query);
  return async (item) => {
    let data = selectFields(options, { data: item });
    if (expression) {
      data = plain(await expression.evaluate(data));
      if (format === "json") return queryLines(data);
    }
    if (format === "yaml") return `---\n${yamlStringify(data)}`;
    return `${JSON.stringify(data)}\n`;
  };
}
