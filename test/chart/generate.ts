// `pnpm chart:generate`: regenerates the chart's values table (README.md) and files/prometheus-rules.yaml from
// values.yaml and the alert template, and the checks derived from the controller's settings (controller-rules.ts):
// values.schema.json's patterns and bounds and templates/_controller-rules.tpl. Renders with the real-cluster
// toolset's Helm (`pnpm cluster:tools`).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterToolsError } from "../cluster/tools.js";
import { rulesFile, valuesTable, withValuesTable } from "./chart-docs.js";
import { controllerRulesTemplate, withControllerRules } from "./controller-rules.js";
import { CHART_DIR, renderDefaultPrometheusRule } from "./helm.js";

const schemaPath = join(CHART_DIR, "values.schema.json");
const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as Record<string, unknown>;
writeFileSync(schemaPath, `${JSON.stringify(withControllerRules(schema), null, 2)}\n`);
writeFileSync(join(CHART_DIR, "templates/_controller-rules.tpl"), controllerRulesTemplate());
console.log("wrote charts/shiplog-controller/values.schema.json (the controller's rules) and templates/_controller-rules.tpl");

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
