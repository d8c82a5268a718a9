// `pnpm chart:generate`: regenerates the chart's values table (README.md) and files/prometheus-rules.yaml from
// values.yaml and the alert template. Needs the chart renderer's Go toolchain (see helm-renderer.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rulesFile, valuesTable, withValuesTable } from "./chart-docs.js";
import { buildRenderer, CHART_DIR, findToolchain, renderDefaultPrometheusRule } from "./helm-renderer.js";

const toolchain = findToolchain();
if (!toolchain.ok) {
  console.error(toolchain.reason);
  process.exit(1);
}
const readmePath = join(CHART_DIR, "README.md");
const readme = readFileSync(readmePath, "utf8");
writeFileSync(readmePath, withValuesTable(readme, valuesTable(readFileSync(join(CHART_DIR, "values.yaml"), "utf8"))));
writeFileSync(join(CHART_DIR, "files/prometheus-rules.yaml"), rulesFile(renderDefaultPrometheusRule(buildRenderer(toolchain.go)).spec));
console.log("wrote charts/shiplog-controller/README.md (values table) and charts/shiplog-controller/files/prometheus-rules.yaml");
