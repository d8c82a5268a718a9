// The files derived from the controller's settings table, each as its path and the function that derives its
// text from the committed one (a file keeps its hand-written parts): what `pnpm generate:settings` writes and
// test/chart-settings.integration.test.ts compares, in the order they must be written (the chart README's values table is
// read from values.yaml).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { valuesTable, withValuesTable } from "./chart-docs.js";
import { controllerRulesTemplate, withControllerRules } from "./controller-rules.js";
import { CHART_DIR, REPO_ROOT } from "./helm.js";
import { settingsTable, withSettingValues, withSettingsTable } from "./settings-docs.js";

/** One derived file. */
export interface DerivedFile {
  path: string;
  derive(committed: string): string;
}

/** Every file derived from the settings table. */
export function settingsFiles(): DerivedFile[] {
  const valuesPath = join(CHART_DIR, "values.yaml");
  return [
    { path: valuesPath, derive: withSettingValues },
    {
      path: join(CHART_DIR, "values.schema.json"),
      derive: (text) => `${JSON.stringify(withControllerRules(JSON.parse(text) as Record<string, unknown>), null, 2)}\n`,
    },
    { path: join(CHART_DIR, "templates/_controller-rules.tpl"), derive: () => controllerRulesTemplate() },
    // From values.yaml as derived: the table shows the defaults and comments the settings table gives.
    {
      path: join(CHART_DIR, "README.md"),
      derive: (text) => withValuesTable(text, valuesTable(withSettingValues(readFileSync(valuesPath, "utf8")))),
    },
    { path: join(REPO_ROOT, "packages/controller/README.md"), derive: (text) => withSettingsTable(text, settingsTable()) },
  ];
}
