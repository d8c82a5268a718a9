#!/usr/bin/env node
// The package's bin, committed so that `pnpm install` links `shiplog-controller` before anything is built (pnpm and
// npm link bins at install time, and skip one whose file does not exist yet). It runs the built controller.
try {
  await import("../dist/main.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist/main.js")) throw error;
  process.stderr.write("shiplog-controller: the controller is not built yet: run `pnpm build` at the repository's root\n");
  process.exitCode = 2;
}
