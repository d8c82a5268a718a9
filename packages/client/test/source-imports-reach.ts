// Bringing the import of the source import tests' target into a state through the client and the simulated importer,
// and the instants either side of the retirement cutoff. Call these after useImportEmulator has registered its hooks.
import { expect } from "vitest";
import { SVN_URL, client, emulator, target } from "./source-imports-setup.js";

/** The last second the retired API answers. */
export const BEFORE_CUTOFF = "2024-04-11T23:59:59Z";
/** The instant the source import API is retired. */
export const AT_CUTOFF = "2024-04-12T00:00:00Z";

/** The target's import status, as the client reads it. */
export const status = async () => (await client.imports.getImportStatus(target)).status;
/** Advances the simulated importer of the target one step. */
export const step = () => emulator.imports.step(target.owner, target.repo);

/** Brings the import of acme/api into a working or complete state through the client and the importer. */
export async function reach(state: "detecting" | "importing" | "mapping" | "pushing" | "complete"): Promise<void> {
  if (state === "detecting") {
    await client.imports.startImport({ ...target, vcs_url: SVN_URL });
    return;
  }
  await client.imports.startImport({ ...target, vcs_url: SVN_URL, vcs: "subversion" });
  const stepsFromImporting = { importing: 0, mapping: 3, pushing: 4, complete: 7 }[state];
  for (let i = 0; i < stepsFromImporting; i++) step();
  expect(await status()).toBe(state);
}

/** Brings the import into a problem state: an injected failure at the next step from `from`. */
export async function reachProblem(
  problem: "auth_failed" | "error" | "detection_needs_auth" | "detection_found_nothing" | "detection_found_multiple",
) {
  emulator.imports.failNext(target.owner, target.repo, problem);
  await reach("detecting");
  step();
  expect(await status()).toBe(problem);
}
