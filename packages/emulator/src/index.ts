export { startEmulator, DEFAULT_REQUEST_API_VERSION, type Emulator, type EmulatorOptions } from "./server.js";
export { defaultFixture, fixtureSchema, TOKEN_TYPES, type Fixture, type FixtureInput, type TokenFixture, type TokenType, type AccessLevel } from "./fixture.js";
export { FaultInjector, type FaultRule, type FaultKind } from "./fault-injection.js";
export { RequestLog, type LoggedRequest } from "./request-log.js";
export { Clock } from "./clock.js";
export { RateLimits } from "./rate-limits.js";
export { ArtifactStore, type StoredDeploymentRecord, type StoredStorageRecord } from "./artifact-store.js";
export type { AccessRule, PermissionNeed, Principal } from "./access-control.js";
export type { EmulatorContext, EmulatorState } from "./emulator-context.js";
