// `pnpm chart:generate`: everything `pnpm generate:settings` writes from the controller's settings table
// (generate-settings.ts), then the chart's values table (README.md, from values.yaml) and files/prometheus-rules.yaml
// (from the alert template), rendered with the real-cluster toolset's Helm (`pnpm cluster:tools`).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterToolsError } from "../cluster/tools.js";
import { rulesFile, valuesTable, withValuesTable } from "./chart-docs.js";
import { CHART_DIR, renderDefaultPrometheusRule } from "./helm.js";
import "./generate-settings.js";

let rule: ReturnType<typeof renderDefaultPrometheusRule>;
try {
  rule = renderDefaultPrometheusRule();
} catch (error) {
  if (!(error instanceof ClusterToolsError)) throw error;
  console.error(`chart:generate: ${error.message}`);
  process.exit(1);
}
const readmePath = join(CHART_DIR, "README.md");
const readme = readFileSync(readmePath, "utf8");
writeFileSync(readmePath, withValuesTable(readme, valuesTable(readFileSync(join(CHART_DIR, "values.yaml"), "utf8"))));
writeFileSync(join(CHART_DIR, "files/prometheus-rules.yaml"), rulesFile(rule.spec));
console.log("wrote charts/shiplog-controller/README.md (values table) and charts/shiplog-controller/files/prometheus-rules.yaml");
