// The documentation derived from the controller's settings table (packages/controller/src/config/settings.ts), as
// pure functions of it and of the files they rewrite: values.yaml's comment and default of each setting the chart
// sets (its other keys are the chart's own, written by hand), and the controller README's settings table.
// `pnpm generate:settings` writes them; test/chart-settings.integration.test.ts fails when the committed files differ.
import { stringify } from "yaml";
import { defaultText, type Setting, settingEntries } from "@shiplog/controller/internal";
import { CHART_SETTINGS, chartDefault } from "./controller-rules.js";

const KEY_LINE = /^(\s*)([A-Za-z0-9_.-]+):(?:\s|$)/;
const WIDTH = 120;

/** A description as `# --` comment lines at `indent`, wrapped at WIDTH columns. */
export function commentLines(description: string, indent: string): string[] {
  const lines: string[] = [];
  let line = `${indent}# --`;
  for (const word of description.split(/\s+/).filter((w) => w !== "")) {
    if (line.length + 1 + word.length > WIDTH && line.trim() !== "# --" && line.trim() !== "#") {
      lines.push(line);
      line = `${indent}#`;
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** A value as one line of YAML, quoted where YAML 1.1 (Helm's) would read it as something else (a date, a boolean). */
const yamlValue = (value: unknown) => stringify(value, { lineWidth: 0, flowCollectionPadding: false, version: "1.1" }).trimEnd();

interface KeyLine {
  index: number;
  indent: string;
  path: string;
}

function keyLines(lines: string[]): KeyLine[] {
  const keys: KeyLine[] = [];
  const stack: { indent: number; key: string }[] = [];
  lines.forEach((line, index) => {
    if (line.trim().startsWith("#")) return;
    const match = KEY_LINE.exec(line);
    if (!match) return;
    const indent = match[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    stack.push({ indent, key: match[2]! });
    keys.push({ index, indent: match[1]!, path: stack.map((s) => s.key).join(".") });
  });
  return keys;
}

/**
 * values.yaml with the comment and the value of every setting the chart sets as the table says. A key not there yet
 * is added at the end of its section, which must exist.
 */
export function withSettingValues(valuesText: string): string {
  let lines = valuesText.split("\n");
  for (const { setting, chart } of CHART_SETTINGS) {
    let keys = keyLines(lines);
    const parts = chart.path.split(".");
    const name = parts[parts.length - 1]!;
    let at = keys.find((k) => k.path === chart.path);
    if (!at) {
      const parentPath = parts.slice(0, -1).join(".");
      const parent = keys.find((k) => k.path === parentPath);
      if (!parent) throw new Error(`values.yaml has no section ${parentPath} for ${chart.path}: add it`);
      const inside = keys.filter((k) => k.path.startsWith(`${parentPath}.`));
      const last = inside.length > 0 ? inside[inside.length - 1]!.index : parent.index;
      const indent = inside[0]?.indent ?? `${parent.indent}  `;
      lines = [...lines.slice(0, last + 1), `${indent}${name}: ""`, ...lines.slice(last + 1)];
      keys = keyLines(lines);
      at = keys.find((k) => k.path === chart.path)!;
    }
    // The comment block right above the key, from its `# --` line.
    let start = at.index;
    for (let i = at.index - 1; i >= 0 && lines[i]!.trim().startsWith("#"); i--) {
      if (lines[i]!.trim().startsWith("# --")) {
        start = i;
        break;
      }
    }
    const block = [...commentLines(chart.description, at.indent), `${at.indent}${name}: ${yamlValue(chartDefault(setting))}`];
    lines = [...lines.slice(0, start), ...block, ...lines.slice(at.index + 1)];
  }
  return lines.join("\n");
}

/** Table text: pipes escaped, `<NAME>` kept as text rather than read as an HTML tag. */
const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const code = (text: string) => `\`${text.replaceAll("|", "\\|")}\``;

function defaultCell(setting: Setting): string {
  if (setting.required) return "required";
  if (setting.defaultText !== undefined) return cell(setting.defaultText);
  const text = defaultText(setting);
  return text === undefined ? "" : code(text === "" ? '""' : text);
}

/** The controller README's settings table: flag, variable, default, example, rule, chart value and meaning of each setting. */
export function settingsTable(): string {
  const rows = settingEntries().map(([, s]) => {
    const chart = "path" in s.chart ? code(s.chart.path) : cell(s.chart.none);
    const example = s.example === undefined ? "" : code(s.example);
    return `| ${code(`--${s.flag}`)} | ${code(s.env)} | ${defaultCell(s)} | ${example} | ${cell(s.type.rule)} | ${chart} | ${cell(s.help)} |`;
  });
  const header = ["| Flag | Variable | Default | Example | Rule | Chart value | Meaning |", "| --- | --- | --- | --- | --- | --- | --- |"];
  return [...header, ...rows].join("\n");
}

export const SETTINGS_TABLE_START =
  "<!-- settings table: generated from src/config/settings.ts by `pnpm generate:settings`; do not edit -->";
export const SETTINGS_TABLE_END = "<!-- end of settings table -->";

/** The README with its settings table replaced by `table`; throws when the markers are missing. */
export function withSettingsTable(readme: string, table: string): string {
  const start = readme.indexOf(SETTINGS_TABLE_START);
  const end = readme.indexOf(SETTINGS_TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`the controller README has no "${SETTINGS_TABLE_START}" ... "${SETTINGS_TABLE_END}" markers`);
  return `${readme.slice(0, start + SETTINGS_TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}
