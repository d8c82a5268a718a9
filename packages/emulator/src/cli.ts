#!/usr/bin/env node
import { parseArgs } from "node:util";
import { readFile } from "node:fs/promises";
import { startEmulator } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8080" },
    host: { type: "string", default: "127.0.0.1" },
    fixture: { type: "string" },
    log: { type: "boolean", default: false },
    "rate-limit": { type: "string", default: "5000" },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(`Usage: shiplog-emulator [--port 8080] [--host 127.0.0.1] [--fixture world.json] [--rate-limit 5000] [--log]

Starts the service emulator. Prints its URL and the fixture's token names and values
(emulator tokens are fake and only valid here).`);
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

const fixture = values.fixture ? JSON.parse(await readFile(values.fixture, "utf8")) : undefined;
const emulator = await startEmulator({ port, host: values.host, fixture, logger: values.log, rateLimit });
console.log(`shiplog emulator listening on ${emulator.url}`);
for (const token of emulator.fixture.tokens) console.log(`  token ${token.name.padEnd(14)} ${token.type.padEnd(17)} ${token.token}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void emulator.stop().then(() => process.exit(0)));
}
