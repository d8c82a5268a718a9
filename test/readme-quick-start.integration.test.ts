import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { seedDemoWorld, startEmulator, type Emulator } from "@shiplog/emulator";
import { runProcess } from "./kit/process.js";
import { ROOT, blocksUnder, shellCommands, typecheck, writeModule } from "./kit/readme.js";

// The root README's "Quick start: the library and the command line", run as written against the emulator seeded as
// `pnpm emulator` seeds it: the ts block by tsx with only SHIPLOG_API_URL and SHIPLOG_TOKEN set, importing the built
// client as a user's script does, printing the console block after it; the shell block's commands with `shiplog`
// from node_modules/.bin (where the install and build put it), each printing what the README shows under it.
const README = "README.md";
const SECTION = "Quick start: the library and the command line";
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
  seedDemoWorld(emu);
});
afterAll(() => emu.stop());

it("the library example prints where the artifact is stored and where it runs, as the README shows", async () => {
  const [code, printed] = blocksUnder(README, SECTION).filter((b) => b.lang === "ts" || (b.lang === "console" && !b.code.startsWith("$")));
  const file = writeModule("quick-start-library", code!.code);
  const run = await runProcess(join(ROOT, "node_modules", ".bin", "tsx"), [file], {
    env: { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emu.url, SHIPLOG_TOKEN: emu.tokens.admin },
  });
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe(printed!.code);
  expect(run.code).toBe(0);
});

it("the library example type-checks (strict, NodeNext) against the built client's types", { timeout: 120_000 }, async () => {
  const [code] = blocksUnder(README, SECTION, "ts");
  expect(await typecheck({ "quick-start.mts": `export {};\n${code!.code}` })).toBe("");
});

it("the command-line example: shiplog on PATH from node_modules/.bin, each command prints what the README shows", async () => {
  const [block] = blocksUnder(README, SECTION, "console").filter((b) => b.code.startsWith("$"));
  const commands = shellCommands(block!);
  expect(commands.slice(0, 2)).toEqual([
    'export PATH="$PWD/node_modules/.bin:$PATH"',
    "export SHIPLOG_TOKEN=... SHIPLOG_API_URL=https://api.service.example",
  ]);
  // The README's placeholders are the emulator's URL and token here; every other line runs as written, from the root.
  const marker = "\u241e";
  const script = commands
    .map((command) =>
      command.startsWith("export SHIPLOG_TOKEN=")
        ? `export SHIPLOG_TOKEN=${emu.tokens.admin} SHIPLOG_API_URL=${emu.url}`
        : `printf '%s\\n' '${marker}'; ${command} 2>&1`,
    )
    .join("\n");
  const run = await runProcess("sh", ["-c", script], { cwd: ROOT, env: { PATH: process.env.PATH ?? "" } });
  expect(run.stderr).toBe("");
  const outputs = run.stdout.split(`${marker}\n`).slice(2);
  const shown = block!.code.split(/^\$ .*\n/m).slice(3);
  expect(outputs).toEqual(shown);
  expect(run.code).toBe(0);
});
