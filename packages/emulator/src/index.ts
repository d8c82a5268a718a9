// The public surface of @shiplog/emulator: start and stop it, the world it starts with (fixtures, token names),
// and the types of the handles a running emulator gives for steering it (clock, faults, request log, limits, apps,
// imports, activity). Pieces shiplog's own tests drive directly are at `@shiplog/emulator/internal`.
export { startEmulator, type Emulator, type EmulatorOptions } from "./server.js";
export { defaultFixture, type AccessLevel, type Fixture, type FixtureInput, type TokenFixture, type TokenType } from "./fixture.js";
export { EmulatorUsageError, type UsageIssue } from "./emulator-usage-error.js";
export { SEEDED_DIGESTS, SEEDED_IMPORT_AT, SEEDED_RECORDS_AT, seedDemoWorld, type SeedSummary } from "./seed.js";
export {
  PUBLISHED_SECONDARY_LIMITS,
  type SecondaryLimitName,
  type SecondaryLimitSettings,
  type SecondaryLimitUsage,
  type SecondaryRateLimits,
} from "./secondary-rate-limits.js";
export { Clock } from "./clock.js";
export type { FaultInjector, FaultKind, FaultRule } from "./fault-injection.js";
export type { LoggedRequest, RequestLog } from "./request-log.js";
export type { RateLimits } from "./rate-limits.js";
export type { AppRegistry, AppSettings, MintedToken } from "./app-registry.js";
export type { EmulatorState } from "./emulator-context.js";
export type { SourceImportStore } from "./import-store.js";
export type { SimulatedStatus } from "./simulated-importer.js";
export type { ActivityGenerator } from "./activity-generator.js";
