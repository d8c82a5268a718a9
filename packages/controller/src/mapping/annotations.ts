// Record metadata from annotations on the workload and its pods (pod annotations win, key by key).
//
//   tags.shiplog.dev/<key>: <value>          a tag (at most 5; key and value up to 100 characters)
//   shiplog.dev/runtime-risks: a, b          critical-resource, internet-exposed, lateral-movement, sensitive-data
//   shiplog.dev/repository: web              github_repository for every container of the pod
//   shiplog.dev/repository.<container>: api  github_repository for one container ("" means none for it)
//   shiplog.dev/logical-environment: prod    overrides the configured logical environment
//   shiplog.dev/physical-environment: eu-1   overrides the configured physical environment
//   shiplog.dev/ignore: "true"               the workload is not tracked
//
// An invalid annotation is skipped with a reason; the record is still produced without it.
//
// With the deployment-tracker option (migration from github/deployment-tracker), its annotations are read too:
//   metadata.github.com/<key>: <value>          a tag; a tags.shiplog.dev/<key> of the same key wins
//   metadata.github.com/runtime-risks: a, b     added to shiplog.dev/runtime-risks; case and spaces ignored, an
//                                               unknown risk dropped alone (as deployment-tracker does)
import { RUNTIME_RISKS, type RuntimeRisk } from "@shiplog/client";

export const ANNOTATION_PREFIX = "shiplog.dev/";
/**
 * The service refuses a record whose single-line values (tags, environments) hold a control character (a line
 * break, NUL, an escape): the annotation is skipped, and the record is sent without it.
 */
const SINGLE_LINE_RULE = "must be a single line: no control characters (line breaks, tabs, NUL, escapes)";

/** C0 control characters and DEL. */
function hasControlCharacter(text: string): boolean {
  for (const c of text) if (c < " " || c === "\x7f") return true;
  return false;
}

export const TAG_ANNOTATION_PREFIX = "tags.shiplog.dev/";
export const RUNTIME_RISKS_ANNOTATION = "shiplog.dev/runtime-risks";
export const REPOSITORY_ANNOTATION = "shiplog.dev/repository";
export const LOGICAL_ENVIRONMENT_ANNOTATION = "shiplog.dev/logical-environment";
export const PHYSICAL_ENVIRONMENT_ANNOTATION = "shiplog.dev/physical-environment";
export const IGNORE_ANNOTATION = "shiplog.dev/ignore";

export const DEPLOYMENT_TRACKER_PREFIX = "metadata.github.com/";
export const DEPLOYMENT_TRACKER_RUNTIME_RISKS = "metadata.github.com/runtime-risks";

export const MAX_TAGS = 5;
export const MAX_TAG_LENGTH = 100;
const REPOSITORY = /^[A-Za-z0-9.\-_]{1,100}$/;

/** A repository name the service takes: 1 to 100 letters, digits, '.', '-' or '_'. */
export function isRepositoryName(name: string): boolean {
  return REPOSITORY.test(name);
}

/** What the annotations say about one container's record. */
export interface RecordAnnotations {
  tags?: Record<string, string>;
  runtimeRisks?: RuntimeRisk[];
  repository?: string;
  /** The container's annotation names no repository on purpose (`shiplog.dev/repository.<container>: ""`). */
  noRepository?: true;
  logicalEnvironment?: string;
  physicalEnvironment?: string;
}

/** An annotation that was skipped, and why. */
export interface AnnotationWarning {
  annotation: string;
  reason: string;
}

/** Merges annotation maps, later ones winning key by key (workload first, then pod). */
export function mergeAnnotations(...sources: (Record<string, string> | undefined)[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const source of sources) if (source) Object.assign(merged, source);
  return merged;
}

/** Which annotation vocabularies are read besides shiplog's own. */
export interface AnnotationOptions {
  /** Also read github/deployment-tracker's `metadata.github.com/` annotations (migration). */
  deploymentTracker?: boolean;
}

/** The tag annotations in the order they are taken: shiplog's by key, then deployment-tracker's by key. */
function tagAnnotations(annotations: Record<string, string>, options: AnnotationOptions): { annotation: string; key: string }[] {
  const keys = Object.keys(annotations).sort();
  const own = keys
    .filter((k) => k.startsWith(TAG_ANNOTATION_PREFIX))
    .map((annotation) => ({ annotation, key: annotation.slice(TAG_ANNOTATION_PREFIX.length) }));
  if (!options.deploymentTracker) return own;
  const tracker = keys
    .filter((k) => k.startsWith(DEPLOYMENT_TRACKER_PREFIX) && k !== DEPLOYMENT_TRACKER_RUNTIME_RISKS)
    .map((annotation) => ({ annotation, key: annotation.slice(DEPLOYMENT_TRACKER_PREFIX.length) }));
  return [...own, ...tracker];
}

/** Reads the record metadata for one container from merged annotations. */
export function readRecordAnnotations(
  annotations: Record<string, string>,
  container: string,
  options: AnnotationOptions = {},
): { value: RecordAnnotations; warnings: AnnotationWarning[] } {
  const warnings: AnnotationWarning[] = [];
  const value: RecordAnnotations = {};

  const tags: Record<string, string> = {};
  for (const { annotation, key } of tagAnnotations(annotations, options)) {
    const tagValue = annotations[annotation]!;
    // Lengths in code points, as the service and deployment-tracker count them.
    if (key === "" || [...key].length > MAX_TAG_LENGTH) {
      warnings.push({ annotation, reason: `tag key must be 1 to ${MAX_TAG_LENGTH} characters` });
    } else if (hasControlCharacter(key) || hasControlCharacter(tagValue)) {
      warnings.push({ annotation, reason: SINGLE_LINE_RULE });
    } else if ([...tagValue].length > MAX_TAG_LENGTH) {
      warnings.push({ annotation, reason: `tag value must be at most ${MAX_TAG_LENGTH} characters (has ${[...tagValue].length})` });
    } else if (key in tags) {
      warnings.push({ annotation, reason: `tag "${key}" is already set by ${TAG_ANNOTATION_PREFIX}${key}, which wins` });
    } else if (Object.keys(tags).length >= MAX_TAGS) {
      warnings.push({ annotation, reason: `at most ${MAX_TAGS} tags; tags are taken in key order` });
    } else {
      tags[key] = tagValue;
    }
  }
  if (Object.keys(tags).length > 0) value.tags = tags;

  const risks = annotations[RUNTIME_RISKS_ANNOTATION];
  if (risks !== undefined) {
    const items = [
      ...new Set(
        risks
          .split(",")
          .map((r) => r.trim())
          .filter((r) => r !== ""),
      ),
    ];
    const unknown = items.filter((r) => !(RUNTIME_RISKS as readonly string[]).includes(r));
    if (unknown.length > 0) {
      warnings.push({
        annotation: RUNTIME_RISKS_ANNOTATION,
        reason: `unknown runtime risk ${unknown.map((u) => `"${u}"`).join(", ")}; allowed: ${RUNTIME_RISKS.join(", ")}`,
      });
    } else if (items.length > 0) {
      value.runtimeRisks = (items as RuntimeRisk[]).sort();
    }
  }
  const trackerRisks = options.deploymentTracker ? annotations[DEPLOYMENT_TRACKER_RUNTIME_RISKS] : undefined;
  if (trackerRisks !== undefined) {
    const read = readTrackerRisks(trackerRisks);
    if (read.unknown.length > 0) {
      warnings.push({
        annotation: DEPLOYMENT_TRACKER_RUNTIME_RISKS,
        reason: `unknown runtime risk ${read.unknown.map((u) => `"${u}"`).join(", ")} dropped; allowed: ${RUNTIME_RISKS.join(", ")}`,
      });
    }
    const union = [...new Set([...(value.runtimeRisks ?? []), ...read.risks])].sort();
    if (union.length > 0) value.runtimeRisks = union;
  }

  const perContainer = `${REPOSITORY_ANNOTATION}.${container}`;
  const repositoryAnnotation = annotations[perContainer] !== undefined ? perContainer : REPOSITORY_ANNOTATION;
  const repository = annotations[repositoryAnnotation];
  if (repository === "" && repositoryAnnotation === perContainer) value.noRepository = true;
  if (repository !== undefined && repository !== "") {
    if (REPOSITORY.test(repository)) value.repository = repository;
    else {
      warnings.push({
        annotation: repositoryAnnotation,
        reason: "repository must be 1 to 100 characters of letters, digits, '.', '-' or '_'",
      });
    }
  }

  const logical = annotations[LOGICAL_ENVIRONMENT_ANNOTATION];
  if (logical !== undefined) {
    if (hasControlCharacter(logical)) warnings.push({ annotation: LOGICAL_ENVIRONMENT_ANNOTATION, reason: SINGLE_LINE_RULE });
    else if (logical.length >= 1 && logical.length <= 128) value.logicalEnvironment = logical;
    else warnings.push({ annotation: LOGICAL_ENVIRONMENT_ANNOTATION, reason: "logical environment must be 1 to 128 characters" });
  }
  const physical = annotations[PHYSICAL_ENVIRONMENT_ANNOTATION];
  if (physical !== undefined) {
    if (hasControlCharacter(physical)) warnings.push({ annotation: PHYSICAL_ENVIRONMENT_ANNOTATION, reason: SINGLE_LINE_RULE });
    else if (physical.length <= 128) value.physicalEnvironment = physical;
    else warnings.push({ annotation: PHYSICAL_ENVIRONMENT_ANNOTATION, reason: "physical environment must be at most 128 characters" });
  }

  const ignore = readIgnore(annotations);
  if (ignore.warning) warnings.push(ignore.warning);
  return { value, warnings };
}

/**
 * Whether merged annotations take the workload out of tracking (`shiplog.dev/ignore: "true"`): the one place the
 * flag is read. Anything but "true" or "false" is a warning, and the workload stays tracked.
 */
export function readIgnore(annotations: Record<string, string>): { ignore: boolean; warning?: AnnotationWarning } {
  const flag = annotations[IGNORE_ANNOTATION];
  if (flag === undefined || flag === "false") return { ignore: false };
  if (flag === "true") return { ignore: true };
  return { ignore: false, warning: { annotation: IGNORE_ANNOTATION, reason: 'must be "true" or "false"' } };
}

/** deployment-tracker's reading of a runtime-risks list: trimmed, lower-cased, each unknown risk dropped alone. */
function readTrackerRisks(text: string): { risks: RuntimeRisk[]; unknown: string[] } {
  const risks: RuntimeRisk[] = [];
  const unknown: string[] = [];
  for (const item of text
    .split(",")
    .map((r) => r.trim().toLowerCase())
    .filter((r) => r !== "")) {
    if ((RUNTIME_RISKS as readonly string[]).includes(item)) risks.push(item as RuntimeRisk);
    else unknown.push(item);
  }
  return { risks, unknown };
}
