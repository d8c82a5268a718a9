// GENERATED from package.json by scripts/write-versions.mjs (pnpm build runs it). Do not edit.

/** The action's version, as its package.json gives it. */
export const ACTION_VERSION = "0.1.0";
