// `pnpm generate:settings`: writes every file derived from the controller's settings table
// (packages/controller/src/config/settings.ts): the chart's values.yaml (each setting's comment and default),
// values.schema.json (each setting's schema), templates/_controller-rules.tpl (the env list and the checks Helm's
// template language makes), the chart README's values table (from values.yaml), and the controller README's settings
// table. Pure: no Helm needed. test/chart-settings.integration.test.ts fails when a committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { settingsFiles } from "./settings-files.js";
import { REPO_ROOT } from "./helm.js";

for (const file of settingsFiles()) {
  const before = readFileSync(file.path, "utf8");
  const after = file.derive(before);
  if (after !== before) writeFileSync(file.path, after);
  console.log(`${after === before ? "unchanged" : "wrote"} ${relative(REPO_ROOT, file.path)}`);
}
