// What `pnpm chart:generate` writes into the chart, as pure functions of the chart's sources: the values table of
// the chart README (from values.yaml's `# --` comments) and files/prometheus-rules.yaml (the PrometheusRule's
// groups rendered with the default values). test/chart-docs.test.ts fails when the committed files differ.
import { parse, stringify } from "yaml";

/** One documented key of values.yaml. */
export interface ValueDoc {
  key: string;
  default: unknown;
  description: string;
}

const KEY_LINE = /^(\s*)([A-Za-z0-9_.-]+):(?:\s|$)/;

/**
 * The documented keys of a values.yaml, in file order: a key is documented by a comment block starting with `# --`
 * right above it (continuation lines `# ...` follow; a blank line ends the block).
 */
export function documentedValues(valuesText: string): ValueDoc[] {
  const values = parse(valuesText) as Record<string, unknown>;
  const docs: ValueDoc[] = [];
  const stack: { indent: number; key: string }[] = [];
  let comment: string[] | undefined;
  for (const line of valuesText.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") {
      comment = undefined;
      continue;
    }
    if (trimmed.startsWith("# --")) {
      comment = [trimmed.slice(4).trim()];
      continue;
    }
    if (trimmed.startsWith("#")) {
      if (comment) comment.push(trimmed.slice(1).trim());
      continue;
    }
    const match = KEY_LINE.exec(line);
    if (!match) {
      comment = undefined;
      continue;
    }
    const indent = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    stack.push({ indent, key: match[2]! });
    if (comment) {
      const path = stack.map((s) => s.key);
      docs.push({ key: path.join("."), default: valueAt(values, path), description: comment.join(" ") });
    }
    comment = undefined;
  }
  return docs;
}

function valueAt(root: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = root;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

/** A default as the table shows it: a section (an object with documented keys) shows none. */
function formatDefault(doc: ValueDoc, docs: ValueDoc[]): string {
  if (docs.some((d) => d.key.startsWith(`${doc.key}.`))) return "";
  const text = JSON.stringify(doc.default);
  return `\`${text.replaceAll("|", "\\|")}\``;
}

/** A comment as table text: pipes escaped, and `<NAME>` kept as text rather than read as an HTML tag. */
function markdownText(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** The Markdown table of the documented keys. */
export function valuesTable(valuesText: string): string {
  const docs = documentedValues(valuesText);
  const rows = docs.map((d) => `| \`${d.key}\` | ${formatDefault(d, docs)} | ${markdownText(d.description)} |`);
  return ["| Key | Default | Description |", "| --- | --- | --- |", ...rows].join("\n");
}

export const TABLE_START = "<!-- values table: generated from values.yaml by `pnpm chart:generate`; do not edit -->";
export const TABLE_END = "<!-- end of values table -->";

/** The README with its values table replaced by `table`; throws when the markers are missing. */
export function withValuesTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the chart README has no "${TABLE_START}" ... "${TABLE_END}" markers`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

/** files/prometheus-rules.yaml: a plain Prometheus rule file holding the PrometheusRule's groups. */
export function rulesFile(prometheusRuleSpec: { groups: unknown[] }): string {
  const header =
    "# The shiplog controller's alerts as a plain Prometheus rule file (rule_files: in prometheus.yml), with the chart's\n" +
    "# default thresholds. Generated from templates/_alert-rules.tpl by `pnpm chart:generate`; do not edit.\n";
  return header + stringify({ groups: prometheusRuleSpec.groups }, { lineWidth: 0 });
}
