// GENERATED from package.json by scripts/write-versions.mjs (pnpm build runs it). Do not edit.

/** The controller's version, as its package.json gives it. */
export const CONTROLLER_VERSION = "0.1.0";
