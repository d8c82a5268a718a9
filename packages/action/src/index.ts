// The package's public surface. The runner's entry is src/entry.ts (bundled to dist/index.js).
export { RECORD_CONCURRENCY, run } from "./main.js";
export { INPUT_NAMES, planFromInputs, type ActionPlan, type InputName, type InputProblem, type RawInputs, type RunContext } from "./inputs.js";
export { explainFailure, type FailedStep, type FailureExplanation } from "./failure-messages.js";
export { renderSummary, runOutputs, type RunReport, type StorageRecordReport, type TagReport } from "./run-report.js";
export { HASH_CONCURRENCY, fileDigest, fileSubjects, matchFiles, type FileSubjectsOptions, type Subject } from "./subjects.js";
export { evaluateDefault, inputEnvName, runnerInputEnv, type ActionInputDeclaration, type GithubContextSource } from "./runner-inputs.js";
export { ACTION_YML_PATH, BUNDLE_PATH, readActionInputs, runBundledAction, type Annotation, type LocalRunOptions, type LocalRunResult } from "./local-runner.js";
