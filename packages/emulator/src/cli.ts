#!/usr/bin/env node
import { parseArgs } from "node:util";
import { readFile } from "node:fs/promises";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import { startEmulator, type Emulator } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8080" },
    host: { type: "string", default: "127.0.0.1" },
    fixture: { type: "string" },
    log: { type: "boolean", default: false },
    "rate-limit": { type: "string", default: "5000" },
    "show-tokens": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(`Usage: shiplog-emulator [--port 8080] [--host 127.0.0.1] [--fixture world.json] [--rate-limit 5000] [--log] [--show-tokens]

Starts the service emulator. Prints its URL and the fixture's token names and types.
--show-tokens also prints the token values: the default fixture's are fake and only
valid here, but a fixture of your own may hold tokens you do not want in a terminal log.`);
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be an integer from 0 to 65535 (got ${values.port})`);
  process.exit(64);
}

const rateLimit = Number(values["rate-limit"]);
if (!Number.isInteger(rateLimit) || rateLimit < 1) {
  console.error(`--rate-limit must be a positive integer (got ${values["rate-limit"]})`);
  process.exit(64);
}

let fixture: unknown;
if (values.fixture) {
  try {
    fixture = JSON.parse(await readFile(values.fixture, "utf8"));
  } catch (error) {
    console.error(`--fixture ${values.fixture}: ${(error as Error).message}`);
    process.exit(64);
  }
}

let emulator: Emulator;
try {
  emulator = await startEmulator({ port, host: values.host, fixture: fixture as never, logger: values.log, rateLimit });
} catch (error) {
  if (!(error instanceof EmulatorUsageError)) throw error;
  console.error(`--fixture ${values.fixture}: not a valid fixture\n${error.issues.map((i) => `  - ${i.argument}: ${i.message} [rule: ${i.rule}]`).join("\n")}`);
  process.exit(64);
}
console.log(`shiplog emulator listening on ${emulator.url}`);
for (const token of emulator.fixture.tokens) {
  const line = `  token ${token.name.padEnd(14)} ${token.type}`;
  console.log(values["show-tokens"] ? `${line.padEnd(38)} ${token.token}` : line);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void emulator.stop().then(() => process.exit(0)));
}
