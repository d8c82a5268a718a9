// @shiplog/emulator/internal: the parts shiplog's own tests and benchmarks drive directly (access decisions, the
// simulated importer, the limits' arithmetic, the request log). Not for users: no compatibility promise.
export { fixtureSchema } from "./fixture.js";
export { JWT_MESSAGES } from "./app-registry.js";
export { RequestLog } from "./request-log.js";
export { SecondaryRateLimits, isContentGenerating, requestPoints } from "./secondary-rate-limits.js";
export { resolveArtifactRepository, type ArtifactRepositoryFacts } from "./artifact-repository-resolution.js";
export { AccessControl, decideAccess, type AccessRule, type Principal } from "./access-control.js";
export {
  advance,
  createImport,
  defaultSource,
  renderImport,
  updateImport,
  vcsFromUrl,
  type ImportState,
  type SimulatedSource,
} from "./simulated-importer.js";
