#!/usr/bin/env node
import { parseArgs } from "node:util";
import { readFile } from "node:fs/promises";
import { INSTALLATION_TOKEN_LIFETIME_MS } from "./app-registry.js";
import { Clock } from "./clock.js";
import { EmulatorUsageError } from "./emulator-usage-error.js";
import type { SecondaryLimitSettings } from "./secondary-rate-limits.js";
import { seedDemoWorld, type SeedSummary } from "./seed.js";
import { startEmulator, type Emulator } from "./server.js";

// Stop on SIGINT/SIGTERM from the first moment: a signal during start-up ends the process once it is up; a second
// signal ends it at once. The emulator has no child processes; run it with `exec` (the root `pnpm emulator` script
// does) so a wrapper's signal reaches it and nothing is left running.
let running: Emulator | undefined;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping || !running) process.exit(0);
    stopping = true;
    void running.stop().then(() => process.exit(0));
  });
}

const USAGE = `Usage: shiplog-emulator [--port 8080] [--host 127.0.0.1] [--fixture world.json] [--no-seed] [--clock <time>]
                        [--rate-limit 5000] [--anonymous-rate-limit 60] [--log]
                        [--show-tokens] [--admin] [--admin-port 0]
                        [--no-secondary-limits] [--concurrent-requests 100] [--endpoint-points-per-minute 900]
                        [--content-per-minute 80] [--content-per-hour 500] [--secondary-limit-status 403]
                        [--no-retry-after] [--installation-token-lifetime 3600]

Starts the service emulator. Prints its URL and the fixture's token names and types.
The default world is seeded with what the READMEs' examples read (records, a tag, activity,
a notification, an import); --no-seed starts it empty (a --fixture of yours is never seeded).
--clock sets the emulator's clock at start (ISO 8601; it runs on from there).
--show-tokens also prints the token values: the default fixture's are fake and only
valid here, but a fixture of your own may hold tokens you do not want in a terminal log.
With --admin, GET <admin API>/tokens gives them too.
--admin starts the admin API (clock, activity, faults, request log, imports, secondary
limits, App settings, record counts) on its own port (--admin-port, default a free one) and prints its URL;
see the emulator README.
The service's secondary rate limits are on, per caller, with its published figures (the
defaults shown); --no-secondary-limits turns them off, the other flags change one each.
--no-retry-after leaves retry-after out of their answers (a client then waits a minute).
--installation-token-lifetime sets how long an App installation token lives, in seconds
(1 to 3600; the service's is 3600): a client's renewal and expiry alerts without waiting an hour.`;

/** The secondary-limit flags that take a number, by the setting each sets. */
const LIMIT_FLAGS = {
  "concurrent-requests": "concurrentRequests",
  "endpoint-points-per-minute": "endpointPointsPerMinute",
  "content-per-minute": "contentPerMinute",
  "content-per-hour": "contentPerHour",
  "secondary-limit-status": "status",
} as const satisfies Record<string, keyof SecondaryLimitSettings>;
type LimitFlag = keyof typeof LIMIT_FLAGS;

/** A user's mistake: one line on stderr, exit 2 (bad usage, as the shiplog CLI), no stack. */
function fail(message: string): never {
  console.error(`shiplog-emulator: ${message.replace(/\s*\n\s*/g, "; ")}`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        port: { type: "string", default: "8080" },
        host: { type: "string", default: "127.0.0.1" },
        fixture: { type: "string" },
        seed: { type: "boolean" },
        "no-seed": { type: "boolean", default: false },
        clock: { type: "string" },
        log: { type: "boolean", default: false },
        "rate-limit": { type: "string", default: "5000" },
        "anonymous-rate-limit": { type: "string", default: "60" },
        "show-tokens": { type: "boolean", default: false },
        admin: { type: "boolean", default: false },
        "admin-port": { type: "string", default: "0" },
        "no-secondary-limits": { type: "boolean", default: false },
        "no-retry-after": { type: "boolean", default: false },
        "installation-token-lifetime": { type: "string" },
        ...(Object.fromEntries(Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: "string" }])) as Record<
          LimitFlag,
          { type: "string" }
        >),
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    // parseArgs names the flag: "Unknown option '--prot'", "Option '--port <value>' argument missing".
    return fail(`${(error as Error).message.split("\n")[0]} (see --help)`);
  }
}

function portOf(flag: string, raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) fail(`--${flag} must be an integer from 0 to 65535 (got ${JSON.stringify(raw)})`);
  return port;
}

const values = parse();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = portOf("port", values.port);
const adminPort = portOf("admin-port", values["admin-port"]);
const rateLimit = Number(values["rate-limit"]);
if (!/^\d+$/.test(values["rate-limit"]) || rateLimit < 1) {
  fail(`--rate-limit must be a positive integer (got ${JSON.stringify(values["rate-limit"])})`);
}
const anonymousRateLimit = Number(values["anonymous-rate-limit"]);
if (!/^\d+$/.test(values["anonymous-rate-limit"]) || anonymousRateLimit < 1) {
  fail(`--anonymous-rate-limit must be a positive integer (got ${JSON.stringify(values["anonymous-rate-limit"])})`);
}
if (values.seed && values["no-seed"]) fail("--seed and --no-seed: give one");
// The seeded world is the default fixture's: a fixture of yours starts as it is unless --seed asks.
const seed = values.seed ?? (!values["no-seed"] && values.fixture === undefined);
const clock = new Clock();
if (values.clock !== undefined) {
  if (!/^\d{4}-\d\d-\d\dT/.test(values.clock) || Number.isNaN(Date.parse(values.clock))) {
    fail(`--clock must be an ISO 8601 time such as 2024-03-01T12:00:00Z (got ${JSON.stringify(values.clock)})`);
  }
}

// Each flag's value must be an integer here; the settings' own rules (ranges) are checked by startEmulator.
const secondaryLimits: Partial<SecondaryLimitSettings> = { enabled: !values["no-secondary-limits"] };
if (values["no-retry-after"]) secondaryLimits.retryAfter = false;
for (const [flag, setting] of Object.entries(LIMIT_FLAGS) as [LimitFlag, keyof SecondaryLimitSettings][]) {
  const raw = values[flag];
  if (raw === undefined) continue;
  if (!/^\d+$/.test(raw)) fail(`--${flag} must be a whole number (got ${JSON.stringify(raw)})`);
  (secondaryLimits as Record<string, number>)[setting] = Number(raw);
}

// A whole number here; its range is the setting's own rule, checked by startEmulator and named by the flag below.
const lifetime = values["installation-token-lifetime"];
if (lifetime !== undefined && !/^\d+$/.test(lifetime)) {
  fail(`--installation-token-lifetime must be a whole number of seconds (got ${JSON.stringify(lifetime)})`);
}
/** The flag of each App setting, for errors. */
const APP_FLAGS: Record<string, string> = { installationTokenLifetimeSeconds: "installation-token-lifetime" };

let fixture: unknown;
if (values.fixture !== undefined) {
  let text: string;
  try {
    text = await readFile(values.fixture, "utf8");
  } catch (error) {
    fail(`--fixture ${values.fixture}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    fixture = JSON.parse(text);
  } catch (error) {
    fail(`--fixture ${values.fixture}: not JSON (${(error as Error).message})`);
  }
}

/** What a failed listen means for the user, in one line. */
function listenProblem(error: NodeJS.ErrnoException): string | undefined {
  const which = (error as { port?: number }).port;
  const flag = values.admin && which === adminPort && adminPort !== port ? "--admin-port" : "--port";
  if (error.code === "EADDRINUSE") return `${flag} ${which ?? ""}: the port is in use`.replace(" :", ":");
  if (error.code === "EACCES") return `${flag}: not allowed to listen on that port`;
  if (error.code === "EADDRNOTAVAIL") return `--host ${values.host}: not an address of this machine`;
  if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") return `--host ${values.host}: no such host`;
  return undefined;
}

let emulator: Emulator;
try {
  emulator = await startEmulator({
    port,
    host: values.host,
    fixture: fixture as never,
    logger: values.log,
    clock,
    rateLimit,
    anonymousRateLimit,
    secondaryLimits,
    ...(lifetime !== undefined ? { apps: { installationTokenLifetimeSeconds: Number(lifetime) } } : {}),
    ...(values.admin ? { admin: { port: adminPort } } : {}),
    // A fixture file that holds `null` is refused, not read as "no fixture".
    ...(values.fixture !== undefined && fixture === null ? { fixture: null as never } : {}),
  });
} catch (error) {
  if (error instanceof EmulatorUsageError) {
    // A secondary limit's setting is named by its flag.
    const flagged = error.issues.find((i) => i.argument.startsWith("secondaryLimits."));
    if (flagged) {
      const setting = flagged.argument.slice("secondaryLimits.".length);
      const flag = Object.entries(LIMIT_FLAGS).find(([, name]) => name === setting)?.[0] ?? setting;
      fail(`--${flag} ${flagged.message} [rule: ${flagged.rule}]`);
    }
    const appSetting = error.issues.find((i) => i.argument.startsWith("apps."));
    if (appSetting) {
      const setting = appSetting.argument.slice("apps.".length);
      fail(`--${APP_FLAGS[setting] ?? setting} ${appSetting.message} [rule: ${appSetting.rule}]`);
    }
    const issues = error.issues.map((i) => `${i.argument} ${i.message} [rule: ${i.rule}]`).join("; ");
    fail(`--fixture ${values.fixture}: not a valid fixture: ${issues}`);
  }
  const problem = listenProblem(error as NodeJS.ErrnoException);
  if (problem) fail(problem);
  throw error;
}
running = emulator;
let seeded: SeedSummary | undefined;
if (seed) {
  try {
    seeded = seedDemoWorld(emulator);
  } catch (error) {
    await emulator.stop();
    if (error instanceof EmulatorUsageError) fail(`--seed: ${error.issues.map((i) => `${i.argument} ${i.message}`).join("; ")}`);
    throw error;
  }
}
// After the seed, which writes at its own fixed times.
if (values.clock !== undefined) clock.set(values.clock);
console.log(`shiplog emulator listening on ${emulator.url}`);
if (emulator.adminUrl) console.log(`admin API on ${emulator.adminUrl}`);
const limits = emulator.secondaryLimits.settings;
console.log(
  limits.enabled
    ? `secondary rate limits on, per caller: ${limits.concurrentRequests} requests in flight, ${limits.endpointPointsPerMinute} points a ` +
        `minute per endpoint, ${limits.contentPerMinute} content-generating requests a minute and ${limits.contentPerHour} an hour ` +
        `(answered ${limits.status}${limits.retryAfter ? " with retry-after" : ", no retry-after"})`
    : "secondary rate limits off",
);
const { installationTokenLifetimeSeconds } = emulator.apps.settings;
if (lifetime !== undefined) {
  console.log(
    `App installation tokens live ${installationTokenLifetimeSeconds} s (the service's: ${INSTALLATION_TOKEN_LIFETIME_MS / 1000} s)`,
  );
}
console.log(
  seeded
    ? `seeded: ${seeded.storageRecords} storage and ${seeded.deploymentRecords} deployment records in acme ` +
        `(${seeded.digests.join(", ")}), refs/tags/v1 in acme/web, ${seeded.events} events, ` +
        `${seeded.notificationThreads} unread notification for octo, an import of acme/api (--no-seed: an empty world)`
    : "not seeded: the fixture's world, no records, events or notifications",
);
for (const token of emulator.fixture.tokens) {
  const line = `  token ${token.name.padEnd(14)} ${token.type}`;
  console.log(values["show-tokens"] ? `${line.padEnd(38)} ${token.token}` : line);
}
if (!values["show-tokens"]) {
  console.log(
    emulator.adminUrl
      ? `token values: curl -s ${emulator.adminUrl}/tokens (or start with --show-tokens)`
      : "token values: start with --show-tokens to print them (or with --admin, then GET <admin API>/tokens)",
  );
}
console.log(`process ${process.pid}: stop it with Ctrl-C (SIGINT) or kill ${process.pid} (SIGTERM)`);
