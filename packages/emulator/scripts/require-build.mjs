// Preloaded by the root `pnpm emulator` script (`node --import` this file, then packages/emulator/dist/cli.js): the
// emulator runs from its build, with no rebuild, so without a build the user gets one line saying what to do
// rather than a module-not-found stack.
import { existsSync } from "node:fs";
import { relative } from "node:path";

const entry = process.argv[1];
if (entry !== undefined && !existsSync(entry)) {
  console.error(
    `shiplog-emulator: ${relative(process.cwd(), entry)} is missing: run \`pnpm build\` first (about a minute), then \`pnpm emulator\``,
  );
  process.exit(1);
}
